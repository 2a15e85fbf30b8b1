# Shared steps of tools/dev.sh, tools/test.sh and tools/bench.sh. Source it; do not run it.
# shellcheck shell=bash

REPO_ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"

step() { printf '\n==> %s\n' "$*" >&2; }

# Installs dependencies exactly as locked when node_modules is missing or older than the lock file.
ensure_dependencies() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    step "Installing dependencies (npm ci)"
    npm ci --no-audit --no-fund
  fi
}

# Makes Postgres, Redis and Kafka available and exports DATABASE_URL, REDIS_URL, KAFKA_BROKERS.
ensure_stack() {
  step "Bringing up the local stack (Postgres, Redis, Kafka)"
  bash tools/stack/up.sh >/dev/null
  if [ -f .stack/env ]; then
    set -a
    # shellcheck disable=SC1091
    . .stack/env
    set +a
  fi
}

# Generates the TypeScript of the protobuf contracts.
generate_code() {
  step "Generating protobuf code"
  npx turbo run generate --output-logs=errors-only
}
