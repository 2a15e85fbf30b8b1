#!/usr/bin/env bash
# Stop the Kafka broker that tools/stack/up.sh started (found via its pid file).
# Postgres and Redis are shared system services and are deliberately left alone.
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/../.." && pwd)
KAFKA_PID_FILE="$REPO_ROOT/.cache/kafka/kafka.pid"

log() { printf '[stack] %s\n' "$*" >&2; }

if [[ ! -f $KAFKA_PID_FILE ]]; then
  log "kafka: no pid file ($KAFKA_PID_FILE); nothing started by up.sh is running"
  exit 0
fi
pid=$(<"$KAFKA_PID_FILE")

# Only signal the pid if it is still our broker (pids get reused after a reboot/crash).
if ! [[ $pid =~ ^[0-9]+$ ]] || ! kill -0 "$pid" 2>/dev/null \
   || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'; then
  log "kafka: pid $pid is not a running broker; removing stale pid file"
  rm -f "$KAFKA_PID_FILE"
  exit 0
fi

log "kafka: stopping broker pid $pid"
kill -TERM "$pid"
# SIGTERM triggers a controlled shutdown that flushes logs; give it time before SIGKILL.
for _ in $(seq 60); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
if kill -0 "$pid" 2>/dev/null; then
  log "kafka: broker still alive after 30s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
fi
rm -f "$KAFKA_PID_FILE"
log "kafka: stopped"
