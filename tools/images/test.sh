#!/usr/bin/env bash
# `npm run test:images` (opt-in, not part of `npm test`): runs the images `npm run images` built the
# way the Kubernetes base runs them (deploy/test/images), against the test stack. Starts the
# Docker engine when it is installed and not running; fails, saying so, when an image is missing.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib.sh"

ensure_dependencies
ensure_docker_engine
ensure_stack
generate_code
step "Running the process images (deploy/test/images)"
(cd deploy && npx vitest run --config vitest.images.config.ts "$@")
step "The whole system as containers: smoke run and its two faults (tools/stack/test/container-system.smoke.ts)"
(cd tools/stack && npx vitest run --config vitest.containers.config.ts)
