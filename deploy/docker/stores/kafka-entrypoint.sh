#!/bin/sh
# Starts the Kafka broker (deploy/docker/stores/kafka.Dockerfile): writes /etc/kafka/server.properties
# from the KAFKA_<NAME> variables (KAFKA_HEAP_OPTS excepted), advertises PLAINTEXT://<hostname>:9092
# unless KAFKA_ADVERTISED_LISTENERS is set, formats an empty log dir with CLUSTER_ID, then runs
# kafka.Kafka in the foreground (PID 1: SIGTERM is a controlled shutdown).
set -eu
props=/etc/kafka/server.properties
: "${KAFKA_ADVERTISED_LISTENERS:=PLAINTEXT://$(hostname):9092}"
export KAFKA_ADVERTISED_LISTENERS
env | sed -n 's/^KAFKA_\([A-Z0-9_]*\)=\(.*\)$/\1 \2/p' | grep -v '^HEAP_OPTS ' | while read -r name value; do
  printf '%s=%s\n' "$(printf '%s' "$name" | tr 'A-Z_' 'a-z.')" "$value"
done >"$props"
printf '%s\n' 'log4j.rootLogger=INFO, stdout' 'log4j.appender.stdout=org.apache.log4j.ConsoleAppender' \
  'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout' \
  'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n' \
  'log4j.logger.kafka.request.logger=WARN' 'log4j.logger.state.change.logger=WARN' >/etc/kafka/log4j.properties
classpath='/opt/kafka/libs/*'
if [ ! -f "${KAFKA_LOG_DIRS%%,*}/meta.properties" ]; then
  java -cp "$classpath" -Dlog4j.configuration=file:/etc/kafka/log4j.properties \
    kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$props" --ignore-formatted
fi
# shellcheck disable=SC2086 # KAFKA_HEAP_OPTS holds several flags
exec java $KAFKA_HEAP_OPTS -Djava.awt.headless=true -Dlog4j.configuration=file:/etc/kafka/log4j.properties \
  -cp "$classpath" kafka.Kafka "$props"
