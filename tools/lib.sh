# Shared steps of tools/dev.sh, tools/test.sh and tools/bench.sh. Source it; do not run it.
# shellcheck shell=bash

REPO_ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"

step() { printf '\n==> %s\n' "$*" >&2; }

# Installs the locked dependency versions when node_modules is missing or older than the lock
# file. `npm install` rather than `npm ci`: npm 11 writes lock files without the optional
# platform packages of other systems (turbo's darwin/windows binaries) and `npm ci` then refuses
# them as out of sync; `npm install` still installs exactly the locked versions.
ensure_dependencies() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    step "Installing dependencies (npm install, as locked)"
    npm install --no-audit --no-fund
  fi
}

docker_answers() {
  command -v docker >/dev/null 2>&1 && timeout 15 docker info >/dev/null 2>&1
}

# With a Docker engine: Postgres, Redis, Kafka and OpenSearch from testcontainers, kept alive by a background
# process that lives as long as this shell (and is stopped with it).
start_testcontainers() {
  rm -f .stack/env
  node --import tsx tools/stack/src/testcontainers.ts &
  local pid=$!
  trap 'kill "$pid" 2>/dev/null || true' EXIT
  for _ in $(seq 1 300); do
    [ -f .stack/env ] && return 0
    kill -0 "$pid" 2>/dev/null || { echo "testcontainers stack failed to start" >&2; return 1; }
    sleep 1
  done
  echo "testcontainers stack not ready after 300 s" >&2
  return 1
}

# Makes Postgres, Redis, Kafka and OpenSearch available and exports DATABASE_URL, REDIS_URL,
# KAFKA_BROKERS, OPENSEARCH_URL. Given variables win; else a Docker engine means testcontainers;
# else tools/stack/up.sh reuses or starts this machine's servers (Kafka and OpenSearch from Maven Central).
ensure_stack() {
  if [ -z "${DATABASE_URL:-}${REDIS_URL:-}${KAFKA_BROKERS:-}${OPENSEARCH_URL:-}" ] && docker_answers; then
    step "Bringing up the stack from testcontainers (a Docker engine answers)"
    start_testcontainers
  else
    step "Bringing up the local stack (Postgres, Redis, Kafka, OpenSearch)"
    bash tools/stack/up.sh >/dev/null
  fi
  if [ -f .stack/env ]; then
    set -a
    # shellcheck disable=SC1091
    . .stack/env
    set +a
  fi
  step "Stack path: ${STACK_PATH:-env} (DATABASE_URL=${DATABASE_URL:-?} REDIS_URL=${REDIS_URL:-?} KAFKA_BROKERS=${KAFKA_BROKERS:-?} OPENSEARCH_URL=${OPENSEARCH_URL:-?})"
}

# Generates the TypeScript of the protobuf contracts.
generate_code() {
  step "Generating protobuf code"
  npx turbo run generate --output-logs=errors-only
}
