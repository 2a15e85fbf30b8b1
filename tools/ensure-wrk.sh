#!/usr/bin/env bash
# Makes Debian's wrk (HTTP load generator, C, epoll) available for the benchmarks. Idempotent.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

ensure_debian_package wrk command -v wrk
