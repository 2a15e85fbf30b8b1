#!/usr/bin/env bash
# buf breaking of the working tree's protos against the branch main (FILE rules, buf.yaml). The
# protos of main are built beside this tree's proto/.deps (which git does not hold), so that
# their imports of buf/validate resolve.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/protovalidate-proto.sh
buf="$(pwd)/../node_modules/.bin/buf"
against=$(mktemp -d)
trap 'rm -rf "$against"' EXIT
git -C .. archive main proto | tar -x -C "$against"
mkdir -p "$against/proto/.deps"
cp -r .deps/. "$against/proto/.deps/"
(cd "$against/proto" && "$buf" build -o "$against/main.binpb")
"$buf" build -o "$against/head.binpb"
"$buf" breaking "$against/head.binpb" --against "$against/main.binpb" --exclude-imports
