#!/bin/sh
# Starts the OpenSearch node (deploy/docker/stores/opensearch.Dockerfile) the way tools/stack/up.sh
# does: the flags of config/jvm.options, heap OPENSEARCH_HEAP, path.home /usr/share/opensearch (data/
# and logs/ there, config/ read-only), then OPENSEARCH_JAVA_OPTS (as the official image reads it; a
# later -Xmx wins). PID 1 is the JVM: SIGTERM closes the node.
set -eu
home=/usr/share/opensearch
options=$(sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' "$home/config/jvm.options")
# shellcheck disable=SC2086 # one flag per line of jvm.options, none with spaces
exec /opt/java/bin/java "-Xms$OPENSEARCH_HEAP" "-Xmx$OPENSEARCH_HEAP" $options ${OPENSEARCH_JAVA_OPTS:-} \
  "-Dopensearch.path.home=$home" "-Dopensearch.path.conf=$home/config" \
  -cp "$home/launcher.jar:$home/libs/*" dev.inkwell.stack.OpenSearchLauncher
