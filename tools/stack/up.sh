#!/usr/bin/env bash
# Make Postgres, Redis, Apache Kafka and OpenSearch available for Inkwell and print their URLs.
#
# Idempotent: safe to run any number of times, from any cwd. For each service:
#   1. the env var (DATABASE_URL / REDIS_URL / KAFKA_BROKERS / OPENSEARCH_URL) if set, after
#      checking it answers;
#   2. otherwise a server already listening on the default port is reused;
#   3. otherwise a local one is started (Kafka: KRaft broker from Maven Central jars; OpenSearch:
#      a single node from Maven Central jars, started by tools/stack/opensearch/OpenSearchLauncher.java).
# Tunables: KAFKA_READY_TIMEOUT, OPENSEARCH_READY_TIMEOUT (seconds), OPENSEARCH_HEAP (e.g. 512m),
# OPENSEARCH_JAVA_HOME (a JDK 21+; default: the newest one under /usr/lib/jvm).
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
OPENSEARCH_POM="$SCRIPT_DIR/opensearch/pom.xml"
OPENSEARCH_VERSION=$(sed -n 's:.*<opensearch.version>\(.*\)</opensearch.version>.*:\1:p' "$OPENSEARCH_POM" | head -n 1)
OPENSEARCH_SRC="$SCRIPT_DIR/opensearch"
# path.home of the node: config/ is copied here on every start, data/ and logs/ live here.
OPENSEARCH_HOME="$REPO_ROOT/.cache/opensearch"
OPENSEARCH_LIBS="$OPENSEARCH_HOME/$OPENSEARCH_VERSION/libs"
OPENSEARCH_LAUNCHER="$OPENSEARCH_HOME/$OPENSEARCH_VERSION/launcher"
OPENSEARCH_PID_FILE="$OPENSEARCH_HOME/opensearch.pid"
OPENSEARCH_LOG="$OPENSEARCH_HOME/opensearch.log"
OPENSEARCH_MAIN="dev.inkwell.stack.OpenSearchLauncher"
OPENSEARCH_READY_TIMEOUT=${OPENSEARCH_READY_TIMEOUT:-120}
OPENSEARCH_HEAP=${OPENSEARCH_HEAP:-512m}

DEFAULT_DATABASE_URL="postgres://postgres@127.0.0.1:5432/inkwell"
DEFAULT_REDIS_URL="redis://127.0.0.1:6379"
DEFAULT_KAFKA_BROKERS="127.0.0.1:19092"
KAFKA_CONTROLLER="127.0.0.1:19093"
OPENSEARCH_HTTP_PORT=19200
OPENSEARCH_TRANSPORT_PORT=19300
DEFAULT_OPENSEARCH_URL="http://127.0.0.1:$OPENSEARCH_HTTP_PORT"

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

# This script always starts (or reuses) this machine's servers: tools/lib.sh's ensure_stack decides
# between it and testcontainers, and falls back to it when an engine cannot give the containers.

mkdir -p "$STACK_DIR" "$KAFKA_HOME" "$OPENSEARCH_HOME"
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

# Copy a server's jars and their dependencies from Maven Central into a cache folder, once.
# $1 = label, $2 = pom, $3 = the pom's property naming the output folder, $4 = that folder,
# $5 = a file whose presence means the copy is complete.
maven_fetch() {
  local label=$1 pom=$2 property=$3 libs=$4 marker=$5
  [[ -f $marker ]] && return 0
  command -v mvn >/dev/null 2>&1 || die "$label is not cached and mvn is not installed"
  log "downloading $label from Maven Central (one-off)"
  # Copy into a temp dir and rename, so an interrupted download is never mistaken for a complete one.
  local tmp="$libs.tmp.$$" mvn_log="$libs.mvn.log"
  rm -rf "$tmp"
  mkdir -p "$(dirname -- "$libs")"
  # Output goes to a file (Debian's mvn sprinkles ANSI resets even with -q -B) and is shown on failure.
  if ! mvn -q -B -f "$pom" dependency:copy-dependencies "-D$property=$tmp" >"$mvn_log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$mvn_log" | tail -n 40 >&2
    rm -rf "$tmp"
    die "mvn could not fetch $label (full output: $mvn_log)"
  fi
  rm -rf "$libs"
  mv "$tmp" "$libs"
}

# True if the pid in file $1 is alive and its command line matches the regex $2.
pid_file_alive() {
  [[ -f $1 ]] || return 1
  local pid; pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null \
    && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2"
}

# Show the last lines of a server's log, then fail. $1 = log file, $2.. = message.
die_with_log() {
  local log_file=$1; shift
  log "last lines of $log_file:"
  tail -n 40 "$log_file" >&2 || true
  die "$*"
}

# Wait until a server we started answers. $1 = label, $2 = pid file, $3 = log, $4 = timeout (s),
# $5.. = the readiness command (retried once a second).
wait_started() {
  local label=$1 pid_file=$2 log_file=$3 timeout=$4; shift 4
  local deadline=$((SECONDS + timeout))
  local pid; pid=$(<"$pid_file")
  while ((SECONDS < deadline)); do
    # Plain kill -0: right after the fork /proc/<pid>/cmdline is still bash, not java.
    kill -0 "$pid" 2>/dev/null || die_with_log "$log_file" "$label died during startup (pid $pid)"
    "$@" && return 0
    sleep 1
  done
  die_with_log "$log_file" "$label did not become ready within ${timeout}s (pid $pid; raise ${label^^}_READY_TIMEOUT?)"
}

given=0   # how many services came from the environment (for STACK_PATH)

# Checks the server at URL $1 with the command from $4 on when its client CLI $3 is installed;
# without it, only that the URL's host and port (default port $2) take a TCP connection.
answers_by_client_or_port() { # $1 = URL, $2 = default port, $3 = client CLI, $4… = the check
  local url=$1 default_port=$2 client=$3
  shift 3
  if command -v "$client" >/dev/null 2>&1; then
    "$@"
  else
    local host port; read -r host port <<<"$(url_host_port "$url" "$default_port")"; port_open "$host" "$port"
  fi
}

# Uses the server that environment variable $1 names, when it is set: it must pass check $3 (the
# script stops otherwise). Returns 1 when $1 is unset, so the caller reuses or starts its own.
use_given() { # $1 = variable, $2 = service (for the log), $3 = check taking the URL
  local url=${!1:-}
  [[ -n $url ]] || return 1
  given=$((given + 1))
  "$3" "$url" || die "$1 is set but does not answer: $url"
  log "$2: using $1 from the environment"
}

# ---------------------------------------------------------------- Postgres
pg_answers() { # $1 = libpq URL
  answers_by_client_or_port "$1" 5432 psql psql "$1" -XAtqc 'select 1' >/dev/null 2>&1
}

if ! use_given DATABASE_URL postgres pg_answers; then
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
redis_pongs() { # $1 = redis URL
  [[ $(timeout 5 redis-cli -u "$1" ping 2>/dev/null) == PONG ]]
}

redis_answers() { # $1 = redis URL
  answers_by_client_or_port "$1" 6379 redis-cli redis_pongs "$1"
}

if ! use_given REDIS_URL redis redis_answers; then
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

# ---------------------------------------------------------------- OpenSearch
# Started here and waited for after Kafka, so that both JVMs start at the same time.

# Prints the major version of the JDK at $1 (from its `release` file), or nothing.
jdk_major() {
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null || true
}

# True if $1 is a JDK (java and javac) of version 21 or newer: OpenSearch 3.x needs Java 21+ and
# the launcher is compiled here.
jdk_fits() {
  local major; major=$(jdk_major "$1")
  [[ -x $1/bin/java && -x $1/bin/javac && -n $major ]] && ((major >= 21))
}

# Sets OPENSEARCH_JDK: OPENSEARCH_JAVA_HOME if set, else JAVA_HOME if it is a JDK 21+, else the
# newest JDK 21+ under /usr/lib/jvm (Temurin 25 on this machine kind).
opensearch_find_jdk() {
  if [[ -n ${OPENSEARCH_JAVA_HOME:-} ]]; then
    jdk_fits "$OPENSEARCH_JAVA_HOME" \
      || die "OPENSEARCH_JAVA_HOME=$OPENSEARCH_JAVA_HOME is not a JDK 21+ with bin/java and bin/javac"
    OPENSEARCH_JDK=$OPENSEARCH_JAVA_HOME
    return 0
  fi
  if [[ -n ${JAVA_HOME:-} ]] && jdk_fits "$JAVA_HOME"; then OPENSEARCH_JDK=$JAVA_HOME; return 0; fi
  local home best="" best_major=0 major found=()
  for home in /usr/lib/jvm/*; do
    [[ -d $home ]] || continue
    major=$(jdk_major "$home")
    found+=("${home##*/} (${major:-?})")
    if jdk_fits "$home" && ((major > best_major)); then best=$home; best_major=$major; fi
  done
  [[ -n $best ]] || die "OpenSearch $OPENSEARCH_VERSION needs a JDK 21 or newer (java and javac), e.g. Temurin 25; found under /usr/lib/jvm: ${found[*]:-nothing}. Install one there or set OPENSEARCH_JAVA_HOME."
  OPENSEARCH_JDK=$best
}

# Compiles tools/stack/opensearch/OpenSearchLauncher.java into launcher.jar in the cache when the
# source changed. A jar, not a class folder: the AppCDS archive accepts no folders on the class path.
opensearch_compile() {
  local src="$OPENSEARCH_SRC/OpenSearchLauncher.java" sum
  sum=$(sha256sum <"$src" | cut -d' ' -f1)
  [[ -f $OPENSEARCH_LAUNCHER/launcher.jar && $(cat "$OPENSEARCH_LAUNCHER/source.sha256" 2>/dev/null) == "$sum" ]] && return 0
  log "opensearch: compiling the launcher with $OPENSEARCH_JDK"
  local tmp="$OPENSEARCH_LAUNCHER.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/classes"
  "$OPENSEARCH_JDK/bin/javac" --release 21 -proc:none -cp "$OPENSEARCH_LIBS/*" -d "$tmp/classes" "$src" >&2 \
    || { rm -rf "$tmp"; die "javac could not compile $src"; }
  "$OPENSEARCH_JDK/bin/jar" --create --file "$tmp/launcher.jar" -C "$tmp/classes" . \
    || { rm -rf "$tmp"; die "jar could not package the launcher"; }
  rm -rf "$tmp/classes"
  echo "$sum" >"$tmp/source.sha256"
  rm -rf "$OPENSEARCH_LAUNCHER"   # also drops the AppCDS archive of the previous launcher
  mv "$tmp" "$OPENSEARCH_LAUNCHER"
}

# True if $1 is an OpenSearch whose cluster is at least yellow.
opensearch_answers() {
  local url=${1%/}
  curl -fsS --max-time 10 "$url/" 2>/dev/null | grep -q '"distribution" *: *"opensearch"' \
    && curl -fsS --max-time 15 -o /dev/null "$url/_cluster/health?wait_for_status=yellow&timeout=10s" 2>/dev/null
}

opensearch_pid_alive() { pid_file_alive "$OPENSEARCH_PID_FILE" "$OPENSEARCH_MAIN"; }

opensearch_start() {
  [[ $OPENSEARCH_HEAP =~ ^[0-9]+[kKmMgG]?$ ]] \
    || die "OPENSEARCH_HEAP must be a JVM size such as 512m or 1g, not '$OPENSEARCH_HEAP'"
  opensearch_find_jdk
  maven_fetch "OpenSearch $OPENSEARCH_VERSION" "$OPENSEARCH_POM" opensearch.libs "$OPENSEARCH_LIBS" \
    "$OPENSEARCH_LIBS/opensearch-$OPENSEARCH_VERSION.jar"
  opensearch_compile
  # Config is copied on every start so edits under tools/stack/opensearch/config take effect.
  mkdir -p "$OPENSEARCH_HOME/config"
  cp "$OPENSEARCH_SRC/config/opensearch.yml" "$OPENSEARCH_SRC/config/log4j2.properties" \
    "$OPENSEARCH_SRC/config/jvm.options" "$OPENSEARCH_HOME/config/"
  local jvm_options=()
  mapfile -t jvm_options < <(sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' \
    "$OPENSEARCH_HOME/config/jvm.options")

  [[ -f $OPENSEARCH_LOG ]] && mv -f "$OPENSEARCH_LOG" "$OPENSEARCH_LOG.1"   # keep the previous run's log
  log "opensearch: starting node $OPENSEARCH_VERSION on $DEFAULT_OPENSEARCH_URL (heap $OPENSEARCH_HEAP, log: $OPENSEARCH_LOG)"
  # AppCDS: the JVM writes an archive of the loaded classes when the node stops and maps it on
  # later starts (about twice as fast to green); it is rebuilt by itself when the JDK or jars change.
  # -Xlog:cds=off: the JDK's base archive reports "errors" for --add-modules that only disable an
  # optimisation; they would alarm readers of the log.
  OPENSEARCH_HTTP_PORT=$OPENSEARCH_HTTP_PORT OPENSEARCH_TRANSPORT_PORT=$OPENSEARCH_TRANSPORT_PORT \
    setsid nohup "$OPENSEARCH_JDK/bin/java" "-Xms$OPENSEARCH_HEAP" "-Xmx$OPENSEARCH_HEAP" "${jvm_options[@]}" \
    -XX:+AutoCreateSharedArchive "-XX:SharedArchiveFile=$OPENSEARCH_LAUNCHER/opensearch.jsa" -Xlog:cds=off \
    "-Dopensearch.path.home=$OPENSEARCH_HOME" "-Dopensearch.path.conf=$OPENSEARCH_HOME/config" \
    -cp "$OPENSEARCH_LAUNCHER/launcher.jar:$OPENSEARCH_LIBS/*" "$OPENSEARCH_MAIN" \
    >"$OPENSEARCH_LOG" 2>&1 </dev/null 9>&- &
  echo $! >"$OPENSEARCH_PID_FILE"
}

opensearch_started_answers() { opensearch_answers "$DEFAULT_OPENSEARCH_URL"; }

opensearch_wait_ready() {
  wait_started opensearch "$OPENSEARCH_PID_FILE" "$OPENSEARCH_LOG" "$OPENSEARCH_READY_TIMEOUT" opensearch_started_answers
}

command -v curl >/dev/null 2>&1 || die "curl not found (needed to check OpenSearch)"
opensearch_pending=0   # 1 when a node of ours is (maybe still) starting: waited for after Kafka
if [[ -n ${OPENSEARCH_URL:-} ]]; then
  given=$((given + 1))
  OPENSEARCH_URL=${OPENSEARCH_URL%/}
  opensearch_answers "$OPENSEARCH_URL" \
    || die "OPENSEARCH_URL is set but does not answer as an OpenSearch with a yellow or green cluster: $OPENSEARCH_URL"
  log "opensearch: using OPENSEARCH_URL from the environment"
else
  OPENSEARCH_URL=$DEFAULT_OPENSEARCH_URL
  if opensearch_pid_alive; then
    log "opensearch: node pid $(<"$OPENSEARCH_PID_FILE") is running; checking it answers"
    opensearch_pending=1
  elif port_open 127.0.0.1 "$OPENSEARCH_HTTP_PORT"; then
    opensearch_answers "$OPENSEARCH_URL" \
      || die "something listens on $OPENSEARCH_URL but does not answer as OpenSearch (yellow or green)"
    log "opensearch: reusing node on $OPENSEARCH_URL"
  else
    rm -f "$OPENSEARCH_PID_FILE"
    opensearch_start
    opensearch_pending=1
  fi
fi

# ---------------------------------------------------------------- Kafka
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

kafka_fetch() {
  maven_fetch "Apache Kafka $KAFKA_VERSION" "$KAFKA_POM" kafka.libs "$KAFKA_LIBS" "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar"
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

kafka_pid_alive() { pid_file_alive "$KAFKA_PID_FILE" 'kafka\.Kafka'; }

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

# Cheap port probe first; only then pay for a JVM running the admin request.
kafka_started_answers() {
  port_open 127.0.0.1 "${DEFAULT_KAFKA_BROKERS##*:}" && kafka_answers "$DEFAULT_KAFKA_BROKERS"
}

kafka_wait_ready() {
  wait_started kafka "$KAFKA_PID_FILE" "$KAFKA_LOG" "$KAFKA_READY_TIMEOUT" kafka_started_answers
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

if ((opensearch_pending)); then
  opensearch_wait_ready
  log "opensearch: node ready (pid $(<"$OPENSEARCH_PID_FILE"))"
fi

# ---------------------------------------------------------------- result
if ((given == 4)); then STACK_PATH="env"; else STACK_PATH="local"; fi
tmp_env="$STACK_DIR/env.tmp.$$"
printf '%s\n' "DATABASE_URL=$DATABASE_URL" "REDIS_URL=$REDIS_URL" \
  "KAFKA_BROKERS=$KAFKA_BROKERS" "OPENSEARCH_URL=$OPENSEARCH_URL" "STACK_PATH=$STACK_PATH" >"$tmp_env"
mv -f "$tmp_env" "$STACK_DIR/env"   # atomic: readers never see a half-written file
cat "$STACK_DIR/env"
