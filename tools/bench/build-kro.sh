#!/usr/bin/env bash
# Builds kro (github.com/kubernetes-sigs/kro), the peer that `pnpm bench` runs side by side with
# Orkestra, from the Go module proxy only, the same way tools/testenv/build.sh builds
# kube-apiserver: a throwaway wrapper module outside the repository that requires kro, then
# `go build` of its controller main package. The binary is cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/orkestra/bench/kro-<version>/kro with a .stamp and is not
# rebuilt while the stamp matches. kro's CRDs are copied beside it (crds/*.yaml) so the bench can
# install them without Go.
#
# Usage: tools/bench/build-kro.sh            (version: ORKESTRA_KRO_VERSION, default v0.9.4)
# Prints the binary's path on stdout; progress goes to stderr.
set -euo pipefail

KRO_VERSION="${ORKESTRA_KRO_VERSION:-v0.9.4}"
KRO_MODULE="github.com/kubernetes-sigs/kro"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/orkestra/bench"
OUT="$CACHE_ROOT/kro-$KRO_VERSION"

log() { printf '[bench-build-kro %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
stamp_of() { sha256sum | cut -c1-16; }

if ! command -v go >/dev/null 2>&1; then
  log "error: Go is not installed, so kro cannot be built (the bench reports the peer as unavailable)."
  exit 3
fi
export GOTOOLCHAIN=local GOFLAGS="-mod=mod -modcacherw" CGO_ENABLED=0

# Resolve the module first (cheap when cached): its go.mod says whether replaces are needed and
# which Go it requires, and its Dir holds the CRDs.
info=$(cd /tmp && go mod download -json "$KRO_MODULE@$KRO_VERSION") || {
  log "error: could not download $KRO_MODULE@$KRO_VERSION from the Go module proxy"
  exit 4
}
gomod=$(printf '%s\n' "$info" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
src=$(printf '%s\n' "$info" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')
[[ -f "$gomod" && -d "$src" ]] || { log "error: go mod download gave no GoMod/Dir for $KRO_MODULE@$KRO_VERSION"; exit 4; }

# Replace directives only act in the main module: copy kro's own (v0.9.4 has none), both the
# single-line and the block form, skipping relative (./…) targets which cannot resolve here.
replaces=$(awk '
  /^replace[[:space:]]*\(/ { block = 1; next }
  block && /^\)/ { block = 0; next }
  block { print "\t" $0; next }
  /^replace[[:space:]]/ { sub(/^replace[[:space:]]+/, ""); print "\t" $0 }
' "$gomod" | grep -v '=>[[:space:]]*\.' || true)
goline=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$gomod")
mod=$(printf 'module local/bench/kro\n\ngo %s\n\nrequire %s %s\n' "${goline:-1.26.0}" "$KRO_MODULE" "$KRO_VERSION")
if [[ -n "$replaces" ]]; then mod=$(printf '%s\n\nreplace (\n%s\n)\n' "$mod" "$replaces"); fi
main_pkg="$KRO_MODULE/cmd/controller"
flags="-trimpath -ldflags=-s -w"
stamp=$(printf '%s|%s|%s' "$mod" "$main_pkg" "$flags" | stamp_of)

copy_crds() {
  mkdir -p "$OUT/crds"
  local dir
  for dir in helm/crds config/crd/bases config/crd; do
    if [[ -d "$src/$dir" ]] && ls "$src/$dir"/*.yaml >/dev/null 2>&1; then
      cp "$src/$dir"/*.yaml "$OUT/crds/"
      chmod u+w "$OUT/crds"/*.yaml
      return
    fi
  done
  log "error: no CRD directory (helm/crds, config/crd) in $src"
  exit 4
}

if [[ -x "$OUT/kro" && "$(cat "$OUT/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  log "kro $KRO_VERSION cached at $OUT"
  [[ -d "$OUT/crds" ]] || copy_crds
  printf '%s\n' "$OUT/kro"
  exit 0
fi

need=${goline:-0}
have=$(go env GOVERSION | sed 's/^go//')
if [[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]]; then
  log "error: kro $KRO_VERSION needs Go >= $need but the installed Go is $have (GOTOOLCHAIN=local)"
  exit 3
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$mod" > "$work/go.mod"
log "building kro $KRO_VERSION ($main_pkg; several minutes cold on 2 cores)"
t0=$SECONDS
( while sleep 60; do log "still building kro ($(( SECONDS - t0 ))s)…"; done ) &
hb=$!
rc=0
mkdir -p "$OUT"
(cd "$work" && go build -trimpath -ldflags "-s -w" -o "$OUT/kro" "$main_pkg") || rc=$?
kill "$hb" 2>/dev/null || true
wait "$hb" 2>/dev/null || true
[[ $rc -eq 0 ]] || { log "error: go build of kro failed (exit $rc)"; exit 5; }
copy_crds
printf '%s' "$stamp" > "$OUT/.stamp"
log "kro built in $(( SECONDS - t0 ))s"
printf '%s\n' "$OUT/kro"
