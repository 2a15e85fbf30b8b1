#!/usr/bin/env bash
# Makes Debian's wrk (HTTP load generator, C, epoll) available for the benchmarks. Idempotent.
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-wrk: wrk is missing and apt-get is not available; install wrk by hand" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "ensure-wrk: installing Debian's wrk (apt-get install -y wrk)" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
command -v wrk >/dev/null
