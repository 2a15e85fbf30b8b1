#!/usr/bin/env bash
# Makes Debian's chromium available for the browser tests (playwright-core drives it; no
# browser download from anywhere else). Idempotent: does nothing when /usr/bin/chromium exists.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

ensure_debian_package chromium test -x /usr/bin/chromium
