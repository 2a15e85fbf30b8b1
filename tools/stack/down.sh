#!/usr/bin/env bash
# Stop the Kafka broker and the OpenSearch node that tools/stack/up.sh started (found via their
# pid files). Postgres and Redis are shared system services and are deliberately left alone.
# Usage: down.sh [kafka] [opensearch]   (no argument: both)
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/../.." && pwd)

log() { printf '[stack] %s\n' "$*" >&2; }

# Stop the server whose pid is in a file, if it is still ours.
# $1 = label, $2 = pid file, $3 = regex its command line must match.
stop_server() {
  local label=$1 pid_file=$2 pattern=$3
  if [[ ! -f $pid_file ]]; then
    log "$label: no pid file ($pid_file); nothing started by up.sh is running"
    return 0
  fi
  local pid; pid=$(<"$pid_file")

  # Only signal the pid if it is still our server (pids get reused after a reboot/crash).
  if ! [[ $pid =~ ^[0-9]+$ ]] || ! kill -0 "$pid" 2>/dev/null \
     || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern"; then
    log "$label: pid $pid is not running; removing stale pid file"
    rm -f "$pid_file"
    return 0
  fi

  log "$label: stopping pid $pid"
  kill -TERM "$pid"
  # SIGTERM triggers a controlled shutdown (Kafka flushes its logs; OpenSearch closes its
  # shards and writes its AppCDS archive); give it time before SIGKILL.
  local _
  for _ in $(seq 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$label: still alive after 30s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
  log "$label: stopped"
}

[[ $# -gt 0 ]] || set -- opensearch kafka
for server in "$@"; do
  case $server in
    opensearch) stop_server opensearch "$REPO_ROOT/.cache/opensearch/opensearch.pid" 'dev\.inkwell\.stack\.OpenSearchLauncher' ;;
    kafka) stop_server kafka "$REPO_ROOT/.cache/kafka/kafka.pid" 'kafka\.Kafka' ;;
    *) log "unknown server '$server' (expected kafka or opensearch)"; exit 2 ;;
  esac
done
