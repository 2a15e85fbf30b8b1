#!/usr/bin/env bash
# Builds the store images of the container system (`npm run containers`) and of the testcontainers
# stack (tools/stack/src/testcontainers.ts), on the locally built Debian base (tools/images), with
# nothing pulled from a registry:
#
#   inkwell-local/postgres:15            Debian's postgresql-15
#   inkwell-local/redis:7                Debian's redis-server
#   inkwell-local/kafka:<version>        Maven Central jars (tools/stack/kafka/pom.xml) on Debian's OpenJDK 17
#   inkwell-local/opensearch:<version>   Maven Central jars (tools/stack/opensearch/pom.xml) on a jlink
#                                        runtime of the machine's Temurin 21+
#
# Usage: deploy/docker/stores/build.sh [postgres] [redis] [kafka] [opensearch]   (no argument: all)
# BASE_IMAGE overrides the base (default inkwell-local/debian:bookworm). The jars come from the
# local stack's cache (.cache/<store>/<version>/libs), fetched with mvn when missing. Prints each
# image's size.
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/../../.." && pwd)
STACK_DIR="$REPO_ROOT/tools/stack"
CONTEXTS="$REPO_ROOT/.cache/store-images"
BASE_IMAGE=${BASE_IMAGE:-inkwell-local/debian:bookworm}
# The same versions as the local stack: the poms are their single source.
pom_version() { sed -n "s:.*<$2>\(.*\)</$2>.*:\1:p" "$1" | head -n 1; }
KAFKA_VERSION=$(pom_version "$STACK_DIR/kafka/pom.xml" kafka.version)
OPENSEARCH_VERSION=$(pom_version "$STACK_DIR/opensearch/pom.xml" opensearch.version)

log() { printf '[store-images] %s\n' "$*" >&2; }
die() { printf '[store-images] ERROR: %s\n' "$*" >&2; exit 1; }

docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 \
  || die "base image $BASE_IMAGE is missing: build it first (npm run images)"

# Prints the folder of a store's Maven Central jars, fetching them (as tools/stack/up.sh does) when
# the local stack has not cached them yet. $1 = label, $2 = pom, $3 = pom property of the output
# folder, $4 = cache folder, $5 = a jar whose presence means the folder is complete.
cached_jars() {
  local label=$1 pom=$2 property=$3 libs=$4 marker=$5
  if [[ ! -f $marker ]]; then
    command -v mvn >/dev/null 2>&1 || die "$label is not cached and mvn is not installed"
    log "downloading $label from Maven Central (one-off)"
    rm -rf "$libs.tmp"
    mvn -q -B -f "$pom" dependency:copy-dependencies "-D$property=$libs.tmp" >&2 || die "mvn could not fetch $label"
    rm -rf "$libs" && mv "$libs.tmp" "$libs"
  fi
  echo "$libs"
}

# Prints the newest JDK 21+ under /usr/lib/jvm (or OPENSEARCH_JAVA_HOME), as tools/stack/up.sh picks it.
opensearch_jdk() {
  if [[ -n ${OPENSEARCH_JAVA_HOME:-} ]]; then echo "$OPENSEARCH_JAVA_HOME"; return; fi
  local home major best="" best_major=0
  for home in /usr/lib/jvm/*; do
    major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release" 2>/dev/null || true)
    if [[ -x $home/bin/jlink && -n $major ]] && ((major >= 21 && major > best_major)); then best=$home; best_major=$major; fi
  done
  [[ -n $best ]] || die "the OpenSearch image needs a JDK 21+ with jlink under /usr/lib/jvm (or OPENSEARCH_JAVA_HOME)"
  echo "$best"
}

# A fresh build context for store $1 holding its Dockerfile's helper scripts.
new_context() {
  local context="$CONTEXTS/$1"
  rm -rf "$context"
  mkdir -p "$context"
  cp "$SCRIPT_DIR/$1-entrypoint.sh" "$context/" 2>/dev/null || true
  echo "$context"
}

prepare_postgres() { new_context postgres; }
prepare_redis() { new_context redis; }

prepare_kafka() {
  local context libs
  context=$(new_context kafka)
  libs=$(cached_jars "Apache Kafka $KAFKA_VERSION" "$STACK_DIR/kafka/pom.xml" kafka.libs \
    "$REPO_ROOT/.cache/kafka/$KAFKA_VERSION/libs" "$REPO_ROOT/.cache/kafka/$KAFKA_VERSION/libs/kafka_2.13-$KAFKA_VERSION.jar")
  cp -r "$libs" "$context/libs"
  echo "$context"
}

# The OpenSearch context: the jars, the launcher compiled from tools/stack/opensearch, the local
# stack's config/ and a Java runtime of the modules a node uses (jlink; about 80 MB).
prepare_opensearch() {
  local context libs jdk
  context=$(new_context opensearch)
  libs=$(cached_jars "OpenSearch $OPENSEARCH_VERSION" "$STACK_DIR/opensearch/pom.xml" opensearch.libs \
    "$REPO_ROOT/.cache/opensearch/$OPENSEARCH_VERSION/libs" "$REPO_ROOT/.cache/opensearch/$OPENSEARCH_VERSION/libs/opensearch-$OPENSEARCH_VERSION.jar")
  cp -r "$libs" "$context/libs"
  cp -r "$STACK_DIR/opensearch/config" "$context/config"
  jdk=$(opensearch_jdk)
  log "opensearch: compiling the launcher and linking a Java runtime from $jdk"
  mkdir -p "$context/classes"
  "$jdk/bin/javac" --release 21 -proc:none -cp "$libs/*" -d "$context/classes" "$STACK_DIR/opensearch/OpenSearchLauncher.java" >&2
  "$jdk/bin/jar" --create --file "$context/launcher.jar" -C "$context/classes" .
  rm -rf "$context/classes"
  local modules
  modules=$("$jdk/bin/java" --list-modules | sed 's/@.*//' \
    | grep -E '^(java\.|jdk\.(incubator\.vector|unsupported|crypto\.|zipfs|localedata|management|naming\.|net|charsets|jfr|sctp|httpserver))' | paste -sd, -)
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=zip-6 \
    --output "$context/runtime" 2>&1 | { grep -v 'incubator modules' || true; } >&2
  echo "$context"
}

# The image name of store $1.
image_of() {
  case $1 in
    postgres) echo inkwell-local/postgres:15 ;;
    redis) echo inkwell-local/redis:7 ;;
    kafka) echo "inkwell-local/kafka:$KAFKA_VERSION" ;;
    opensearch) echo "inkwell-local/opensearch:$OPENSEARCH_VERSION" ;;
    *) die "unknown store '$1' (expected postgres, redis, kafka or opensearch)" ;;
  esac
}

[[ $# -gt 0 ]] || set -- postgres redis kafka opensearch
for store in "$@"; do
  image=$(image_of "$store")
  context=$("prepare_$store")
  log "building $image"
  # The classic builder: BuildKit needs the buildx plugin and pulls its Dockerfile frontend.
  DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    -f "$SCRIPT_DIR/$store.Dockerfile" -t "$image" "$context" >/dev/null
  rm -rf "$context"
  size=$(docker image inspect -f '{{.Size}}' "$image")
  printf '%-40s %4d MB\n' "$image" $((size / 1000 / 1000))
done
