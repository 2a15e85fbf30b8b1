#!/usr/bin/env bash
# Make Postgres, Redis and Apache Kafka available for Inkwell and print their URLs.
#
# Idempotent: safe to run any number of times, from any cwd. For each service:
#   1. the env var (DATABASE_URL / REDIS_URL / KAFKA_BROKERS) if set, after checking it answers;
#   2. otherwise a server already listening on the default port is reused;
#   3. otherwise a local one is started (Kafka: KRaft broker from Maven Central jars).
# Result goes to <repo>/.stack/env and stdout as KEY=value lines (progress goes to
# stderr), so `set -a; . .stack/env; set +a` or `eval "$(tools/stack/up.sh)"` both work.
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/../.." && pwd)
STACK_DIR="$REPO_ROOT/.stack"
KAFKA_POM="$SCRIPT_DIR/kafka/pom.xml"
# Single source of truth for the Kafka version is the pom.
KAFKA_VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_POM" | head -n 1)
KAFKA_HOME="$REPO_ROOT/.cache/kafka"
KAFKA_LIBS="$KAFKA_HOME/$KAFKA_VERSION/libs"
KAFKA_DATA="$KAFKA_HOME/data"
KAFKA_PID_FILE="$KAFKA_HOME/kafka.pid"
KAFKA_LOG="$KAFKA_HOME/kafka.log"
KAFKA_READY_TIMEOUT=${KAFKA_READY_TIMEOUT:-90}

DEFAULT_DATABASE_URL="postgres://postgres@127.0.0.1:5432/inkwell"
DEFAULT_REDIS_URL="redis://127.0.0.1:6379"
DEFAULT_KAFKA_BROKERS="127.0.0.1:19092"
KAFKA_CONTROLLER="127.0.0.1:19093"

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

# With a Docker engine the Node test setup starts testcontainers itself.
# Given variables always win, so the Docker check only applies when none is set.
if [ -z "${DATABASE_URL:-}${REDIS_URL:-}${KAFKA_BROKERS:-}" ] && command -v docker >/dev/null 2>&1 && timeout 15 docker info >/dev/null 2>&1; then
  log "Docker engine answers: the testcontainers path is used; nothing to start here."
  exit 0
fi

mkdir -p "$STACK_DIR" "$KAFKA_HOME"
# Serialize concurrent runs (parallel test jobs) so only one broker is ever started.
# Every long-lived process started below gets `9>&-`: an inherited fd 9 would hold
# this lock for the server's lifetime and block all later runs.
exec 9>"$STACK_DIR/up.lock"
flock -w 300 9 || die "another tools/stack/up.sh has held $STACK_DIR/up.lock for 5 minutes"

# True if something accepts TCP connections on host:port (no nc on this image).
port_open() {
  # shellcheck disable=SC2016 # $1/$2 are meant for the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# Echo "host port" for a URL like scheme://[user[:pw]@]host[:port][/path].
url_host_port() {
  local rest=${1#*://} default_port=$2
  rest=${rest%%/*}; rest=${rest%%\?*}; rest=${rest##*@}
  if [[ $rest == *:* ]]; then echo "${rest%%:*} ${rest##*:}"; else echo "$rest $default_port"; fi
}

given=0   # how many services came from the environment (for STACK_PATH)

# ---------------------------------------------------------------- Postgres
pg_answers() { # $1 = libpq URL
  if command -v psql >/dev/null 2>&1; then
    psql "$1" -XAtqc 'select 1' >/dev/null 2>&1
  else
    local host port; read -r host port <<<"$(url_host_port "$1" 5432)"; port_open "$host" "$port"
  fi
}

if [[ -n ${DATABASE_URL:-} ]]; then
  given=$((given + 1))
  pg_answers "$DATABASE_URL" || die "DATABASE_URL is set but does not answer: $DATABASE_URL"
  log "postgres: using DATABASE_URL from the environment"
else
  DATABASE_URL=$DEFAULT_DATABASE_URL
  if port_open 127.0.0.1 5432; then
    log "postgres: reusing server on 127.0.0.1:5432"
  elif command -v pg_ctlcluster >/dev/null 2>&1 && [[ -d /etc/postgresql ]]; then
    pg_ver=$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
    log "postgres: starting cluster $pg_ver/main"
    pg_ctlcluster --skip-systemctl-redirect "$pg_ver" main start 9>&- \
      || die "could not start PostgreSQL $pg_ver/main"
  else
    die "no PostgreSQL on 127.0.0.1:5432 and no local cluster to start; set DATABASE_URL"
  fi
  command -v psql >/dev/null 2>&1 || die "psql not found (needed to create the inkwell database)"
  for _ in $(seq 30); do
    psql -h 127.0.0.1 -U postgres -d postgres -XAtqc 'select 1' >/dev/null 2>&1 && break
    sleep 1
  done
  psql -h 127.0.0.1 -U postgres -d postgres -XAtqc 'select 1' >/dev/null \
    || die "PostgreSQL on 127.0.0.1:5432 does not accept user postgres"
  # CREATE DATABASE has no IF NOT EXISTS; check first.
  if [[ $(psql -h 127.0.0.1 -U postgres -d postgres -XAtqc \
          "select 1 from pg_database where datname = 'inkwell'") != 1 ]]; then
    log "postgres: creating database inkwell"
    psql -h 127.0.0.1 -U postgres -d postgres -XAtqc 'create database inkwell' >/dev/null
  fi
  pg_answers "$DATABASE_URL" || die "database inkwell does not answer at $DATABASE_URL"
fi

# ---------------------------------------------------------------- Redis
redis_answers() { # $1 = redis URL
  if command -v redis-cli >/dev/null 2>&1; then
    [[ $(timeout 5 redis-cli -u "$1" ping 2>/dev/null) == PONG ]]
  else
    local host port; read -r host port <<<"$(url_host_port "$1" 6379)"; port_open "$host" "$port"
  fi
}

if [[ -n ${REDIS_URL:-} ]]; then
  given=$((given + 1))
  redis_answers "$REDIS_URL" || die "REDIS_URL is set but does not answer: $REDIS_URL"
  log "redis: using REDIS_URL from the environment"
else
  REDIS_URL=$DEFAULT_REDIS_URL
  if port_open 127.0.0.1 6379; then
    log "redis: reusing server on 127.0.0.1:6379"
  elif command -v redis-server >/dev/null 2>&1; then
    log "redis: starting redis-server on 127.0.0.1:6379"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log 9>&- || die "could not start redis-server"
  else
    die "no Redis on 127.0.0.1:6379 and no redis-server binary; set REDIS_URL"
  fi
  for _ in $(seq 30); do redis_answers "$REDIS_URL" && break; sleep 1; done
  redis_answers "$REDIS_URL" || die "Redis on 127.0.0.1:6379 does not answer PING"
fi

# ---------------------------------------------------------------- Kafka
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

kafka_fetch() {
  [[ -f $KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar ]] && return 0
  command -v mvn >/dev/null 2>&1 || die "Kafka $KAFKA_VERSION is not cached and mvn is not installed"
  log "kafka: downloading Apache Kafka $KAFKA_VERSION from Maven Central (one-off)"
  # Copy into a temp dir and rename, so an interrupted download is never mistaken for a complete one.
  local tmp="$KAFKA_LIBS.tmp.$$"
  rm -rf "$tmp"
  # Output goes to a file (Debian's mvn sprinkles ANSI resets even with -q -B) and is shown on failure.
  if ! mvn -q -B -f "$KAFKA_POM" dependency:copy-dependencies -Dkafka.libs="$tmp" >"$KAFKA_HOME/mvn.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$KAFKA_HOME/mvn.log" | tail -n 40 >&2
    rm -rf "$tmp"
    die "mvn could not fetch Kafka $KAFKA_VERSION (full output: $KAFKA_HOME/mvn.log)"
  fi
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
}

# CLI tools only need warnings, on stderr, and must not wait a minute per try.
kafka_tool_config() {
  printf '%s\n' 'log4j.rootLogger=WARN, stderr' \
    'log4j.appender.stderr=org.apache.log4j.ConsoleAppender' \
    'log4j.appender.stderr.Target=System.err' \
    'log4j.appender.stderr.layout=org.apache.log4j.PatternLayout' \
    'log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n' >"$KAFKA_HOME/tools-log4j.properties"
  printf '%s\n' 'request.timeout.ms=5000' 'default.api.timeout.ms=10000' \
    >"$KAFKA_HOME/admin-client.properties"
}

# Really ready = the broker serves an admin request (metadata), not just an open port.
kafka_answers() { # $1 = bootstrap servers
  timeout 30 "$JAVA" -Xmx128m -Dlog4j.configuration="file:$KAFKA_HOME/tools-log4j.properties" \
    -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.TopicCommand \
    --bootstrap-server "$1" --command-config "$KAFKA_HOME/admin-client.properties" --list >/dev/null 2>&1
}

kafka_pid_alive() {
  [[ -f $KAFKA_PID_FILE ]] || return 1
  local pid; pid=$(<"$KAFKA_PID_FILE")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null \
    && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'
}

kafka_start() {
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found (Kafka needs Java 17)"
  kafka_fetch
  local props="$KAFKA_HOME/server.properties"
  # Single-node KRaft (broker + controller in one JVM), tuned for tests. Rewritten every
  # start so edits here take effect; node.id and the log dir must never change.
  cat >"$props" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_CONTROLLER
listeners=PLAINTEXT://$DEFAULT_KAFKA_BROKERS,CONTROLLER://$KAFKA_CONTROLLER
advertised.listeners=PLAINTEXT://$DEFAULT_KAFKA_BROKERS
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_DATA
group.initial.rebalance.delay.ms=0
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
auto.create.topics.enable=true
num.partitions=3
EOF
  # Broker log: everything INFO+ to stdout, which nohup sends to kafka.log.
  printf '%s\n' 'log4j.rootLogger=INFO, stdout' \
    'log4j.appender.stdout=org.apache.log4j.ConsoleAppender' \
    'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout' \
    'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n' \
    'log4j.logger.kafka.request.logger=WARN' 'log4j.logger.state.change.logger=WARN' \
    >"$KAFKA_HOME/log4j.properties"

  # Format only once; a formatted dir keeps its cluster id across restarts.
  if [[ ! -f $KAFKA_DATA/meta.properties ]]; then
    log "kafka: formatting storage in $KAFKA_DATA"
    mkdir -p "$KAFKA_DATA"
    local cluster_id
    cluster_id=$("$JAVA" -cp "$KAFKA_LIBS/*" -Dlog4j.configuration="file:$KAFKA_HOME/tools-log4j.properties" \
      kafka.tools.StorageTool random-uuid)
    "$JAVA" -cp "$KAFKA_LIBS/*" -Dlog4j.configuration="file:$KAFKA_HOME/tools-log4j.properties" \
      kafka.tools.StorageTool format -t "$cluster_id" -c "$props" >&2 \
      || die "kafka.tools.StorageTool format failed"
  fi

  [[ -f $KAFKA_LOG ]] && mv -f "$KAFKA_LOG" "$KAFKA_LOG.1"   # keep the previous run's log
  log "kafka: starting broker $KAFKA_VERSION on $DEFAULT_KAFKA_BROKERS (log: $KAFKA_LOG)"
  # setsid: detach from the caller's process group so the broker outlives the shell/CI step.
  setsid nohup "$JAVA" -Xms256m -Xmx512m -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$KAFKA_HOME/log4j.properties" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$props" >"$KAFKA_LOG" 2>&1 </dev/null 9>&- &
  echo $! >"$KAFKA_PID_FILE"
}

kafka_wait_ready() {
  local deadline=$((SECONDS + KAFKA_READY_TIMEOUT))
  local pid; pid=$(<"$KAFKA_PID_FILE")
  while ((SECONDS < deadline)); do
    # Plain kill -0: right after the fork /proc/<pid>/cmdline is still bash, not java.
    if ! kill -0 "$pid" 2>/dev/null; then
      log "kafka: broker process exited; last lines of $KAFKA_LOG:"
      tail -n 40 "$KAFKA_LOG" >&2 || true
      die "Kafka broker died during startup"
    fi
    # Cheap port probe first; only then pay for a JVM running the admin request.
    if port_open 127.0.0.1 "${DEFAULT_KAFKA_BROKERS##*:}" && kafka_answers "$DEFAULT_KAFKA_BROKERS"; then
      return 0
    fi
    sleep 1
  done
  log "kafka: not ready after ${KAFKA_READY_TIMEOUT}s; last lines of $KAFKA_LOG:"
  tail -n 40 "$KAFKA_LOG" >&2 || true
  die "Kafka broker did not become ready on $DEFAULT_KAFKA_BROKERS (pid $pid)"
}

kafka_tool_config
if [[ -n ${KAFKA_BROKERS:-} ]]; then
  given=$((given + 1))
  # Protocol-level check when the client jars are cached, otherwise at least TCP.
  if [[ -f $KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar ]] && command -v "$JAVA" >/dev/null 2>&1; then
    kafka_answers "$KAFKA_BROKERS" || die "KAFKA_BROKERS is set but does not answer: $KAFKA_BROKERS"
  else
    ok=0
    IFS=, read -ra brokers <<<"$KAFKA_BROKERS"
    for b in "${brokers[@]}"; do port_open "${b%:*}" "${b##*:}" && ok=1 && break; done
    ((ok)) || die "KAFKA_BROKERS is set but no broker accepts connections: $KAFKA_BROKERS"
  fi
  log "kafka: using KAFKA_BROKERS from the environment"
else
  KAFKA_BROKERS=$DEFAULT_KAFKA_BROKERS
  if port_open 127.0.0.1 "${KAFKA_BROKERS##*:}"; then
    log "kafka: reusing broker on $KAFKA_BROKERS"
    command -v "$JAVA" >/dev/null 2>&1 || die "java not found (needed to check Kafka)"
    kafka_fetch
    if kafka_pid_alive; then
      kafka_wait_ready   # ours, maybe still starting
    else
      kafka_answers "$KAFKA_BROKERS" || die "something listens on $KAFKA_BROKERS but does not answer as Kafka"
    fi
  elif kafka_pid_alive; then
    log "kafka: broker pid $(<"$KAFKA_PID_FILE") is starting; waiting"
    kafka_wait_ready
  else
    rm -f "$KAFKA_PID_FILE"
    kafka_start
    kafka_wait_ready
    log "kafka: broker ready (pid $(<"$KAFKA_PID_FILE"))"
  fi
fi

# ---------------------------------------------------------------- result
if ((given == 3)); then STACK_PATH="env"; else STACK_PATH="local"; fi
tmp_env="$STACK_DIR/env.tmp.$$"
printf '%s\n' "DATABASE_URL=$DATABASE_URL" "REDIS_URL=$REDIS_URL" \
  "KAFKA_BROKERS=$KAFKA_BROKERS" "STACK_PATH=$STACK_PATH" >"$tmp_env"
mv -f "$tmp_env" "$STACK_DIR/env"   # atomic: readers never see a half-written file
cat "$STACK_DIR/env"
