# Apache Kafka (KRaft, broker and controller in one JVM) from the Maven Central jars that
# tools/stack caches (.cache/kafka/<version>/libs, tools/stack/kafka/pom.xml) on Debian's
# OpenJDK 17, on the locally built Debian base (tools/images). Configured like the apache/kafka
# image the dev-stores StatefulSet names: every KAFKA_<NAME> variable becomes the broker setting
# <name> (KAFKA_ADVERTISED_LISTENERS → advertised.listeners); CLUSTER_ID formats an empty log dir.
# Build context: a folder with libs/ and kafka-entrypoint.sh (deploy/docker/stores/build.sh makes it).
ARG BASE_IMAGE=inkwell-local/debian:bookworm
FROM ${BASE_IMAGE}
# The JRE's postinst links its man page into /usr/share/man/man1, which the slim base leaves out.
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log /usr/share/man \
 && mkdir -p /var/lib/kafka/data /etc/kafka && chown -R 1000:1000 /var/lib/kafka /etc/kafka
COPY libs/ /opt/kafka/libs/
COPY kafka-entrypoint.sh /usr/local/bin/kafka-entrypoint.sh
ENV KAFKA_NODE_ID=1 \
    KAFKA_PROCESS_ROLES=broker,controller \
    KAFKA_LISTENERS=PLAINTEXT://:9092,CONTROLLER://:9093 \
    KAFKA_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT \
    KAFKA_CONTROLLER_LISTENER_NAMES=CONTROLLER \
    KAFKA_CONTROLLER_QUORUM_VOTERS=1@localhost:9093 \
    KAFKA_INTER_BROKER_LISTENER_NAME=PLAINTEXT \
    KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR=1 \
    KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=1 \
    KAFKA_TRANSACTION_STATE_LOG_MIN_ISR=1 \
    KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS=0 \
    KAFKA_LOG_DIRS=/var/lib/kafka/data/logs \
    KAFKA_HEAP_OPTS="-Xms256m -Xmx512m" \
    CLUSTER_ID=inkwell-local-kraft-01
USER 1000:1000
EXPOSE 9092
ENTRYPOINT ["/usr/local/bin/kafka-entrypoint.sh"]
