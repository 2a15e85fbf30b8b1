# Shared steps of the scripts in tools/ (dev, test, bench, faults, ensure-*). Source it; do not run it.
# shellcheck shell=bash

REPO_ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"
# The project's own Node.js 22 (the root devDependency `node`, from the npm registry) comes before
# the machine's, as in npm scripts, also when a script here is run directly.
export PATH="$REPO_ROOT/node_modules/.bin:$PATH"

step() { printf '\n==> %s\n' "$*" >&2; }

# Installs the locked dependency versions when node_modules is missing or older than the lock
# file. `npm install` rather than `npm ci`: npm 11 writes lock files without the optional
# platform packages of other systems (turbo's darwin/windows binaries) and `npm ci` then refuses
# them as out of sync; `npm install` still installs exactly the locked versions.
ensure_dependencies() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    step "Installing dependencies (npm install, as locked)"
    npm install --no-audit --no-fund
    hash -r # node is now the project's Node.js 22
  fi
}

# True when a Docker engine answers a ping where testcontainers looks for it: DOCKER_HOST (unix:// or
# tcp://) or the default socket. Asks the engine itself, so an installed CLI without an engine is no.
docker_answers() {
  local host=${DOCKER_HOST:-unix:///var/run/docker.sock}
  case $host in
    unix://*) [ -S "${host#unix://}" ] && curl -fsS --max-time 5 --unix-socket "${host#unix://}" http://engine/_ping >/dev/null 2>&1 ;;
    tcp://*) curl -fsS --max-time 5 "http://${host#tcp://}/_ping" >/dev/null 2>&1 ;;
    *) return 1 ;;
  esac
}

# Starts the Docker engine (dockerd, in the background, as root or through sudo; log in
# /var/log/dockerd.log) when it is installed and does not answer, and waits up to 30 s for it.
# Fails with a message when no engine is installed or it does not come up.
ensure_docker_engine() {
  docker_answers && return 0
  if ! command -v dockerd >/dev/null 2>&1; then
    echo "no Docker engine answers and dockerd is not installed (Debian: apt-get install docker.io)" >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  step "Starting the Docker engine (dockerd, log in /var/log/dockerd.log)"
  $sudo sh -c 'nohup dockerd >>/var/log/dockerd.log 2>&1 &'
  for _ in $(seq 1 30); do
    docker_answers && return 0
    sleep 1
  done
  echo "the Docker engine did not answer within 30 s (see /var/log/dockerd.log)" >&2
  return 1
}

# The background process that keeps the testcontainers stack alive (stopped when this shell exits).
STACK_CONTAINERS_PID=""

# With a Docker engine: Postgres, Redis, Kafka and OpenSearch from testcontainers on the store images
# built here (`npm run images`; nothing is pulled), kept alive by a background process that lives as
# long as this shell. Its URLs go to .stack/testcontainers.env. Fails (status 1, the reason in
# .stack/testcontainers.log) when they cannot start, e.g. when an image is missing.
start_testcontainers() {
  rm -f .stack/testcontainers.env
  mkdir -p .stack
  node --import tsx tools/stack/src/testcontainers.ts 2>.stack/testcontainers.log &
  STACK_CONTAINERS_PID=$!
  trap 'if [ -n "$STACK_CONTAINERS_PID" ]; then kill "$STACK_CONTAINERS_PID" 2>/dev/null || true; fi' EXIT
  for _ in $(seq 1 300); do
    [ -f .stack/testcontainers.env ] && return 0
    kill -0 "$STACK_CONTAINERS_PID" 2>/dev/null || { wait "$STACK_CONTAINERS_PID" 2>/dev/null || true; STACK_CONTAINERS_PID=""; return 1; }
    sleep 1
  done
  echo "[stack] testcontainers stack not ready after 300 s" >>.stack/testcontainers.log
  kill "$STACK_CONTAINERS_PID" 2>/dev/null || true
  STACK_CONTAINERS_PID=""
  return 1
}

# The last line testcontainers wrote: why its stack did not start.
testcontainers_failure() {
  tail -n 1 .stack/testcontainers.log 2>/dev/null | sed 's/^\[stack\] //'
}

# True when this machine's own stack is up: the Kafka broker and the OpenSearch node that
# tools/stack/up.sh starts answer on their ports (Postgres and Redis are the machine's services).
local_stack_running() {
  local port
  for port in 19092 19200; do
    # shellcheck disable=SC2016 # $1/$2 are meant for the inner bash
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ 127.0.0.1 "$port" 2>/dev/null || return 1
  done
}

# Makes Postgres, Redis, Kafka and OpenSearch available and exports DATABASE_URL, REDIS_URL,
# KAFKA_BROKERS, OPENSEARCH_URL and STACK_PATH, deciding in this order:
#   1. given variables win (STACK_PATH=env);
#   2. INKWELL_STACK=local or INKWELL_STACK=testcontainers chooses;
#   3. a local stack that already runs is reused, so a session never switches stacks under the
#      tests and servers that use it;
#   4. a Docker engine that answers means testcontainers on the local store images;
#   5. else tools/stack/up.sh starts this machine's servers (Kafka and OpenSearch from Maven Central).
# When the testcontainers stack cannot start (an image missing, an engine that fails) one line
# says so and the local stack is used.
ensure_stack() {
  local choice=${INKWELL_STACK:-auto} local_stack=yes
  case $choice in
    auto | local | testcontainers) ;;
    *) echo "[stack] INKWELL_STACK must be auto, local or testcontainers, not '$choice'" >&2; return 1 ;;
  esac
  if [ -z "${DATABASE_URL:-}${REDIS_URL:-}${KAFKA_BROKERS:-}${OPENSEARCH_URL:-}" ] && [ "$choice" != local ]; then
    if [ "$choice" = testcontainers ] || { ! local_stack_running && docker_answers; }; then
      step "Bringing up the stack from testcontainers ($([ "$choice" = testcontainers ] && echo 'INKWELL_STACK=testcontainers' || echo 'a Docker engine answers'))"
      if start_testcontainers; then
        local_stack=no
      else
        echo "[stack] the Docker engine answers but the testcontainers stack did not start ($(testcontainers_failure)); using the local stack" >&2
      fi
    fi
  fi
  if [ "$local_stack" = yes ]; then
    step "Bringing up the local stack (Postgres, Redis, Kafka, OpenSearch)"
    bash tools/stack/up.sh >/dev/null
  fi
  local env_file=.stack/env
  [ "$local_stack" = no ] && env_file=.stack/testcontainers.env
  if [ -f "$env_file" ]; then
    set -a
    # shellcheck disable=SC1090
    . "$env_file"
    set +a
  fi
  step "Stack path: ${STACK_PATH:-env} (DATABASE_URL=${DATABASE_URL:-?} REDIS_URL=${REDIS_URL:-?} KAFKA_BROKERS=${KAFKA_BROKERS:-?} OPENSEARCH_URL=${OPENSEARCH_URL:-?})"
}

# Generates the TypeScript of the protobuf contracts.
generate_code() {
  step "Generating protobuf code"
  npx turbo run generate --output-logs=errors-only
}

# What `npm run dev`, `npm run bench` and `npm run faults` do: install what is missing, bring up
# the stack, generate code, then replace this shell with the TypeScript entry point `$2` (under
# tsx, reading the workspaces' sources), announced as step `$1`; further arguments go to it.
run_on_stack() {
  local title=$1 entry=$2
  shift 2
  ensure_dependencies
  ensure_stack
  generate_code
  step "$title"
  exec node --conditions=@inkwell/source --import tsx "$entry" "$@"
}

# Installs Debian's package `$1` (apt-get; sudo when not root) unless the check that follows it
# (a command, e.g. `test -x /usr/bin/chromium`) already succeeds, then runs the check again.
# Idempotent; fails when the package is missing and apt-get is not available.
ensure_debian_package() {
  local package=$1
  shift
  if "$@" >/dev/null 2>&1; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-$package: $package is missing and apt-get is not available; install $package by hand" >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "ensure-$package: installing Debian's $package (apt-get install -y $package)" >&2
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null
  "$@" >/dev/null 2>&1
}
