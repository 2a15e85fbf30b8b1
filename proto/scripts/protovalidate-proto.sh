#!/usr/bin/env bash
# Puts buf/validate/validate.proto (the protovalidate rules our request messages import) into
# proto/.deps, taken from Maven Central's build.buf:protovalidate jar of the same release as the
# @bufbuild/protovalidate runtime in package.json. The buf Schema Registry is not needed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(node -p "require('./package.json').dependencies['@bufbuild/protovalidate']")
target=.deps/buf/validate/validate.proto
stamp=.deps/version
if [[ -f $target && -f $stamp && $(cat "$stamp") == "$version" ]]; then exit 0; fi
jar="${HOME}/.m2/repository/build/buf/protovalidate/${version}/protovalidate-${version}.jar"
if [[ ! -f $jar ]]; then
  mvn -q dependency:get -Dartifact="build.buf:protovalidate:${version}" -Dtransitive=false >&2
fi
mkdir -p .deps
unzip -o -q "$jar" buf/validate/validate.proto -d .deps
echo "$version" > "$stamp"
