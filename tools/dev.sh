#!/usr/bin/env bash
# `npm run dev`: installs what is missing, brings up the stack, starts every service and the
# gateway with demo data, and prints where the API is. Ctrl-C stops everything.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

ensure_dependencies
ensure_stack
generate_code
step "Starting Inkwell"
exec node --conditions=@inkwell/source --import tsx tools/dev/src/main.ts
