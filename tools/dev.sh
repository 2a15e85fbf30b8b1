#!/usr/bin/env bash
# `npm run dev`: installs what is missing, brings up the stack, starts every service and the
# gateway with demo data, and prints where the API is. Ctrl-C stops everything.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

run_on_stack "Starting Inkwell" tools/dev/src/main.ts
