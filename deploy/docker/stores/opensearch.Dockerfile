# A single OpenSearch node from the Maven Central jars that tools/stack caches
# (.cache/opensearch/<version>/libs, tools/stack/opensearch/pom.xml), started by the same launcher
# and configuration as the local stack (tools/stack/opensearch: OpenSearchLauncher, config/), on
# a Java runtime cut with jlink from the machine's Temurin (OpenSearch 3 needs Java 21+; Debian
# bookworm has 17 only), on the locally built Debian base (tools/images). Plain HTTP on 9200, no
# security plugin: development and tests only.
# Build context: runtime/, libs/, launcher.jar, config/ and opensearch-entrypoint.sh
# (deploy/docker/stores/build.sh makes it).
ARG BASE_IMAGE=inkwell-local/debian:bookworm
FROM ${BASE_IMAGE}
COPY runtime/ /opt/java/
COPY libs/ /usr/share/opensearch/libs/
COPY launcher.jar /usr/share/opensearch/launcher.jar
COPY config/ /usr/share/opensearch/config/
COPY opensearch-entrypoint.sh /usr/local/bin/opensearch-entrypoint.sh
RUN mkdir -p /usr/share/opensearch/data /usr/share/opensearch/logs && chown 1000:1000 /usr/share/opensearch/data /usr/share/opensearch/logs
ENV OPENSEARCH_NETWORK_HOST=0.0.0.0 \
    OPENSEARCH_HTTP_PORT=9200 \
    OPENSEARCH_TRANSPORT_PORT=9300 \
    OPENSEARCH_HEAP=512m
USER 1000:1000
EXPOSE 9200
ENTRYPOINT ["/usr/local/bin/opensearch-entrypoint.sh"]
