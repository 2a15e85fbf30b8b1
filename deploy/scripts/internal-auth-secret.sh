#!/usr/bin/env bash
# Creates (or replaces) the Secret inkwell-internal-auth in a namespace: one Ed25519 key pair per
# Inkwell process, its key id, and trusted-keys (every process's public keys as JSON), which is
# what the INTERNAL_AUTH_* variables of docs/api/foundation.md ("Internal calls") read.
#
#   deploy/scripts/internal-auth-secret.sh <namespace> [key-id suffix, default: today's date]
#
# Needs openssl, jq and kubectl. Prints nothing secret. Rotation: deploy/README.md.
set -euo pipefail
namespace=${1:?usage: internal-auth-secret.sh <namespace> [key-id suffix]}
suffix=${2:-$(date -u +%Y%m%d)}
processes=(gateway users stories bookshelves messaging blog webhooks)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trusted='{}'
args=()
for process in "${processes[@]}"; do
  openssl genpkey -algorithm ed25519 -out "$work/$process-private-key" 2>/dev/null
  openssl pkey -in "$work/$process-private-key" -pubout -out "$work/$process.pub"
  printf '%s' "$process-$suffix" > "$work/$process-key-id"
  trusted=$(jq --arg p "$process" --arg kid "$process-$suffix" --rawfile pem "$work/$process.pub" '. + {($p): [{kid: $kid, publicKey: $pem}]}' <<<"$trusted")
  args+=(--from-file="$process-private-key=$work/$process-private-key" --from-file="$process-key-id=$work/$process-key-id")
done
printf '%s' "$trusted" > "$work/trusted-keys"
kubectl -n "$namespace" create secret generic inkwell-internal-auth "${args[@]}" --from-file="trusted-keys=$work/trusted-keys" \
  --dry-run=client -o yaml | kubectl -n "$namespace" apply -f -
echo "inkwell-internal-auth in $namespace: keys ${processes[*]} with key ids <process>-$suffix"
