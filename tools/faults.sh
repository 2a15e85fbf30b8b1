#!/usr/bin/env bash
# `npm run faults`: installs what is missing, brings up the stack, generates code, then runs the
# fault, soak and fuzz runs of tools/faults (see docs/reliability.md). It starts its own
# PostgreSQL cluster, Redis, Kafka broker and OpenSearch node on other ports (the stack provides
# the cached jars and keys), so stopping or crashing them disturbs nobody.
# Options after `--` go to the runner: npm run faults -- --help
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

run_on_stack "Faults" tools/faults/src/main.ts "$@"
