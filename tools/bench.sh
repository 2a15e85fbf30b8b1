#!/usr/bin/env bash
# `npm run bench`: installs what is missing, brings up the stack, generates code, then runs the
# benchmark suites (tools/bench): seeds inkwell_bench when it lacks a suite's data, starts the
# system on it and measures each scenario through the gateway with real tokens.
# Options after `--` go to the runner: npm run bench -- --help
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

run_on_stack "Benchmarks" tools/bench/src/main.ts "$@"
