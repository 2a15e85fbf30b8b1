#!/usr/bin/env bash
# `npm run images`: builds every process's image with deploy/docker/Dockerfile on the base images
# built on this machine (tools/images/base-image.sh; no registry image is pulled), starting the
# Docker engine when it is installed and not running. One image per Deployment of
# deploy/k8s/base, named as its manifest names it (`inkwell/<process>`), tagged $IMAGE_TAG (default
# `dev`, the tag of the dev overlay). Prints each image's size and writes its CycloneDX SBOM (the
# production dependencies the image holds) to .images/sbom/<process>.cdx.json.
#
#   npm run images                     every process
#   npm run images -- users gateway    only these
#
# The build context is the working tree as git sees it (tracked and untracked files, without
# what .gitignore lists) plus proto/.deps (the protovalidate rules; `generate` fetches them from
# Maven Central once, and the image has no Maven). Production images are built the same way on
# the pinned upstream NODE_IMAGE (deploy/README.md, "Images").
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib.sh"

IMAGE_TAG=${IMAGE_TAG:-dev}
NODE_IMAGE=inkwell-local/node:22
OUT_DIR="$REPO_ROOT/.images"
CONTEXT=""

# Every process that runs in a deployment: `<process> <workspace>` per Deployment of deploy/k8s/base.
deployed_processes() {
  local manifest name
  for manifest in deploy/k8s/base/*/deployment.yaml; do
    name=$(sed -nE 's|^ *image: inkwell/([a-z-]+)$|\1|p' "$manifest" | head -n 1)
    [ -n "$name" ] || continue
    if [ -f "$name/src/main.ts" ]; then echo "$name $name"; else echo "$name services/$name"; fi
  done
}

# The build context as a tar file of this run: what a fresh clone of this working tree would hold.
write_context() {
  step "Packing the build context (git's view of the working tree + proto/.deps)"
  bash proto/scripts/protovalidate-proto.sh
  CONTEXT=$(mktemp "$OUT_DIR/context.XXXXXX.tar")
  trap 'rm -f "$CONTEXT"' EXIT
  { git ls-files --cached --others --exclude-standard -z | while IFS= read -r -d '' file; do
      [ -e "$file" ] && printf '%s\0' "$file"
    done
    find proto/.deps -type f -print0
  } | tar --null --files-from=- --create --file="$CONTEXT"
}

# Builds `inkwell/<process>:<tag>` and, from its build stage, the SBOM of what the image holds.
build_image() {
  local name=$1 workspace=$2 image="inkwell/$1:$IMAGE_TAG"
  local log="$OUT_DIR/build-$name.log"
  step "Building $image (WORKSPACE=$workspace, log in .images/build-$name.log)"
  local args=(-f deploy/docker/Dockerfile --build-arg "WORKSPACE=$workspace" --build-arg "NODE_IMAGE=$NODE_IMAGE")
  if ! docker build "${args[@]}" --target build -t "inkwell-build/$name:$IMAGE_TAG" - <"$CONTEXT" >"$log" 2>&1 \
    || ! docker build "${args[@]}" -t "$image" - <"$CONTEXT" >>"$log" 2>&1; then
    tail -n 30 "$log" >&2
    return 1
  fi
  # From the build stage's pruned lock file: the workspace's production dependencies, the
  # node_modules the image got (the dev-only ones are gone from the tree, hence the lock file).
  # (The root manifest has no version, which a CycloneDX component needs: 0.0.0 like the workspaces.)
  docker run --rm --network none --workdir /repo "inkwell-build/$name:$IMAGE_TAG" sh -c \
    'npm pkg set version=0.0.0 && npm sbom --sbom-format cyclonedx --package-lock-only --omit dev --workspace "$0"' "$workspace" \
    >"$OUT_DIR/sbom/$name.cdx.json" 2>>"$log" \
    || { echo "npm sbom failed for $name (see .images/build-$name.log)" >&2; return 1; }
}

ensure_docker_engine
bash tools/images/base-image.sh
# The stores of the container system and of the testcontainers stack (deploy/docker/stores).
if [ $# -eq 0 ]; then
  step "Building the store images (deploy/docker/stores/build.sh)"
  bash deploy/docker/stores/build.sh
fi
mkdir -p "$OUT_DIR/sbom"
write_context

selected=" $* "
built=()
while read -r name workspace; do
  if [ $# -gt 0 ] && [[ $selected != *" $name "* ]]; then continue; fi
  build_image "$name" "$workspace"
  built+=("$name")
done < <(deployed_processes)

step "Images"
for name in "${built[@]}"; do
  size=$(docker image inspect -f '{{.Size}}' "inkwell/$name:$IMAGE_TAG")
  printf '%-28s %4d MB   SBOM .images/sbom/%s.cdx.json\n' "inkwell/$name:$IMAGE_TAG" $((size / 1000000)) "$name"
done
