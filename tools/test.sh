#!/usr/bin/env bash
# `npm test`: the full suite on a fresh machine. Installs what is missing, brings up the stack,
# generates code, checks types and lint, then runs every unit, integration and end-to-end test.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

ensure_dependencies
ensure_stack
step "Chromium for the browser tests (Debian's package)"
bash tools/ensure-chromium.sh
generate_code
step "Dependencies: no installed version with a listed advisory (tools/deps/advisories.json)"
node --test "tools/deps/*.test.mjs"
node tools/deps/check-advisories.mjs
step "Type checks, lint (ESLint, buf lint) and contract checks (buf breaking against main)"
npx turbo run typecheck lint --output-logs=errors-only
npm run breaking --silent -w @inkwell/proto
step "Tests (vitest, against the real stack)"
npx vitest run "$@"
