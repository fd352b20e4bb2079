#!/usr/bin/env bash
# Builds the test servers used by @orkestra/testenv from package registries only:
#   etcd, kube-apiserver + kube-controller-manager, FerretDB (Go module proxy, wrapper modules)
#   and moto (a Python virtual environment from PyPI).
# Results are cached under ${XDG_CACHE_HOME:-$HOME/.cache}/orkestra/testenv/<tool>-<version>/
# and are not rebuilt while their .stamp matches. Nothing is written inside the repository.
#
# Usage: tools/testenv/build.sh [all|etcd|kube|ferretdb|moto|verdaccio|kubectl|helm|crane|tools|workloads|kube-scheduler|kwok|prometheus|postgres|redis|kafka|mailpit|protocols]...
#   protocols = postgres + prometheus + redis (Debian packages) + kafka (Maven Central, the JDK) +
#   mailpit (Go module proxy), for the external protocol and notification tests.
#   workloads = kube-scheduler + kwok, for control planes started with `workloads: true`.
set -euo pipefail

# The pinned versions live in one place, packages/testenv/versions.json, which @orkestra/testenv
# also reads to find the cached binaries. Each can be overridden by an ORKESTRA_*_VERSION variable
# (the TypeScript side honours the same variables).
VERSIONS_FILE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/packages/testenv/versions.json"
# A flat JSON object of strings, one key per line: sed is parser enough and needs no node.
json_version() {
  local v; v=$(sed -n "s/^[[:space:]]*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$VERSIONS_FILE")
  [[ -n "$v" ]] || { echo "[testenv-build] error: no \"$1\" in $VERSIONS_FILE" >&2; exit 2; }
  printf '%s' "$v"
}
K8S_VERSION="${ORKESTRA_K8S_VERSION:-$(json_version kubernetes)}"
ETCD_VERSION="${ORKESTRA_ETCD_VERSION:-$(json_version etcd)}"
FERRETDB_VERSION="${ORKESTRA_FERRETDB_VERSION:-$(json_version ferretdb)}"
MOTO_VERSION="${ORKESTRA_MOTO_VERSION:-$(json_version moto)}"
VERDACCIO_VERSION="${ORKESTRA_VERDACCIO_VERSION:-$(json_version verdaccio)}"
# kwok (fake nodes that run pods without a container runtime), for `workloads` control planes.
KWOK_VERSION="${ORKESTRA_KWOK_VERSION:-$(json_version kwok)}"

CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/orkestra/testenv"
mkdir -p "$CACHE_ROOT"
# One build at a time per cache: parallel test runs (worktrees, CI beside a developer) would
# otherwise build the same tool twice and race on its directory. The second waits, then finds
# the stamps current.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_ROOT/.build.lock"
  flock 9
fi

log() { printf '[testenv-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

need_go() {
  if ! command -v go >/dev/null 2>&1; then
    log "error: Go is not installed, so $1 cannot be built."
    log "Install Go >= 1.25, or point TEST_ASSET_$2 (or KUBEBUILDER_ASSETS) at an existing binary."
    exit 3
  fi
}

stamp_of() { sha256sum | cut -c1-16; }

# Prints progress every 60 s while a long build runs so CI logs show it is alive.
with_heartbeat() {
  local what="$1"; shift
  local start=$SECONDS
  ( while sleep 60; do log "still building $what ($(( SECONDS - start ))s)…"; done ) &
  local hb=$!
  local rc=0
  "$@" || rc=$?
  kill "$hb" 2>/dev/null || true
  wait "$hb" 2>/dev/null || true
  return $rc
}

go_env() {
  export GOTOOLCHAIN=local GOFLAGS="-mod=mod -modcacherw" CGO_ENABLED=0
}

build_etcd() {
  local out="$CACHE_ROOT/etcd-$ETCD_VERSION"
  local mod; mod=$(printf 'module local/testenv/etcd\n\ngo 1.25.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION")
  local stamp; stamp=$(printf '%s|%s' "$mod" "-trimpath -s -w" | stamp_of)
  if [[ -x "$out/etcd" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then log "etcd $ETCD_VERSION cached at $out"; return; fi
  need_go etcd ETCD
  go_env
  local work; work=$(mktemp -d); trap 'rm -rf "$work"' RETURN
  printf '%s\n' "$mod" > "$work/go.mod"
  printf 'package tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > "$work/tools.go"
  log "building etcd $ETCD_VERSION (a few minutes on 2 cores)"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd "$work" && with_heartbeat etcd go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3)
  printf '%s' "$stamp" > "$out/.stamp"
  log "etcd built in $(( SECONDS - t0 ))s"
}

build_kube() {
  local out="$CACHE_ROOT/kube-$K8S_VERSION"
  need_go kube-apiserver KUBE_APISERVER
  go_env
  local sv="v0${K8S_VERSION#v1}"
  local minor; minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  # The staging replace list comes from the exact go.mod of this Kubernetes version.
  local gomod
  if [[ -x "$out/kube-apiserver" && -x "$out/kube-controller-manager" && -f "$out/.stamp" ]]; then
    log "kube-apiserver and kube-controller-manager $K8S_VERSION cached at $out"; return
  fi
  log "resolving k8s.io/kubernetes $K8S_VERSION go.mod"
  gomod=$(cd /tmp && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
  [[ -f "$gomod" ]] || { log "error: could not download go.mod of k8s.io/kubernetes@$K8S_VERSION"; exit 4; }
  local replaces
  replaces=$(grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk -v sv="$sv" '{print "\t" $1 " => " $1 " " sv}')
  local n; n=$(printf '%s\n' "$replaces" | grep -c . || true)
  [[ "$n" -gt 10 ]] || { log "error: found only $n staging modules in $gomod"; exit 4; }
  local mod
  mod=$(printf 'module local/testenv/k8s\n\ngo 1.24.0\n\ngodebug default=go1.24\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n%s\n)\n' "$K8S_VERSION" "$replaces")
  local ldv="-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  local stamp; stamp=$(printf '%s|%s' "$mod" "$ldv" | stamp_of)
  local work; work=$(mktemp -d); trap 'rm -rf "$work"' RETURN
  printf '%s\n' "$mod" > "$work/go.mod"
  printf 'package tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"\n)\n' > "$work/tools.go"
  log "building kube-apiserver and kube-controller-manager $K8S_VERSION with $n staging replaces (15-35 minutes cold on 2 cores)"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd "$work" && with_heartbeat "kube-apiserver" go build -trimpath -tags=selinux,notest -ldflags "-s -w $ldv" -o "$out/" k8s.io/kubernetes/cmd/kube-apiserver)
  log "kube-apiserver built in $(( SECONDS - t0 ))s"
  local t1=$SECONDS
  (cd "$work" && with_heartbeat "kube-controller-manager" go build -trimpath -tags=selinux,notest -ldflags "-s -w $ldv" -o "$out/" k8s.io/kubernetes/cmd/kube-controller-manager)
  log "kube-controller-manager built in $(( SECONDS - t1 ))s"
  printf '%s' "$stamp" > "$out/.stamp"
}

build_ferretdb() {
  local out="$CACHE_ROOT/ferretdb-$FERRETDB_VERSION"
  # Trap: Go records the module holding package main as the binary's main module, so building
  # cmd/ferretdb from a wrapper still reports github.com/FerretDB/FerretDB, and FerretDB then
  # panics at start ("Invalid build/version/version.txt file content") because version.txt is
  # git-ignored and missing from the module zip. Fix: replace the module with a copy of its
  # source that has build/version/version.txt written.
  local mod; mod=$(printf 'module local/testenv/ferretdb\n\ngo 1.24.0\n\nrequire github.com/FerretDB/FerretDB %s\n\nreplace github.com/FerretDB/FerretDB => ./ferretdb-src\n' "$FERRETDB_VERSION")
  local stamp; stamp=$(printf '%s|%s' "$mod" "-trimpath|version.txt" | stamp_of)
  if [[ -x "$out/ferretdb" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then log "ferretdb $FERRETDB_VERSION cached at $out"; return; fi
  need_go ferretdb FERRETDB
  go_env
  local work; work=$(mktemp -d); trap 'rm -rf "$work"' RETURN
  local src
  src=$(cd /tmp && go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')
  [[ -d "$src" ]] || { log "error: could not download github.com/FerretDB/FerretDB@$FERRETDB_VERSION"; exit 4; }
  cp -R "$src" "$work/ferretdb-src"
  chmod -R u+w "$work/ferretdb-src"
  printf '%s\n' "$FERRETDB_VERSION" > "$work/ferretdb-src/build/version/version.txt"
  printf '%s\n' "$mod" > "$work/go.mod"
  log "building ferretdb $FERRETDB_VERSION (several minutes on 2 cores)"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd "$work" && with_heartbeat ferretdb go build -trimpath -o "$out/ferretdb" github.com/FerretDB/FerretDB/cmd/ferretdb)
  "$out/ferretdb" --version >/dev/null || { log "error: the built ferretdb does not start (see above)"; exit 5; }
  printf '%s' "$stamp" > "$out/.stamp"
  log "ferretdb built in $(( SECONDS - t0 ))s"
}

build_moto() {
  local py; py=$(command -v python3 || true)
  if [[ -z "$py" ]]; then
    log "error: python3 is not installed, so moto cannot be installed. Set TEST_ASSET_MOTO_SERVER to a moto_server executable."
    exit 3
  fi
  local pyv; pyv=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  local out="$CACHE_ROOT/moto-$MOTO_VERSION-py$pyv"
  local stamp; stamp=$(printf 'moto[server]==%s' "$MOTO_VERSION" | stamp_of)
  if [[ -x "$out/bin/moto_server" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then log "moto $MOTO_VERSION cached at $out"; return; fi
  log "installing moto[server]==$MOTO_VERSION into $out"
  rm -rf "$out"
  "$py" -m venv "$out"
  "$out/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION"
  printf '%s' "$stamp" > "$out/.stamp"
  log "moto installed"
}

# docs/releasing.md: verdaccio, the npm registry of the publishing tests, installed with npm (not pnpm: it
# is a tool, not a workspace dependency). 6.10 needs Node 22; 6.8.0 runs on Node 20 with node-fetch
# overridden to 2.7.0 (verdaccio-audit asks for node-fetch by the dist-tag "cjs", which npm
# resolves to 2.6.7 and then reports as an invalid tree).
build_verdaccio() {
  local out="$CACHE_ROOT/verdaccio-$VERDACCIO_VERSION"
  local manifest
  manifest=$(printf '{"name":"orkestra-testenv-verdaccio","private":true,"dependencies":{"verdaccio":"%s"},"overrides":{"node-fetch":"2.7.0"}}\n' "$VERDACCIO_VERSION")
  local stamp; stamp=$(printf '%s' "$manifest" | stamp_of)
  if [[ -x "$out/node_modules/.bin/verdaccio" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then log "verdaccio $VERDACCIO_VERSION cached at $out"; return; fi
  command -v npm >/dev/null 2>&1 || { log "error: npm is not installed, so verdaccio cannot be installed"; exit 3; }
  log "installing verdaccio $VERDACCIO_VERSION into $out"
  local t0=$SECONDS
  rm -rf "$out"; mkdir -p "$out"
  printf '%s' "$manifest" > "$out/package.json"
  (cd "$out" && npm install --no-fund --no-audit --omit=dev --loglevel=error >/dev/null)
  printf '%s' "$stamp" > "$out/.stamp"
  log "verdaccio installed in $(( SECONDS - t0 ))s"
}

# --- docs/testenv.md: client tools (kubectl, helm, crane) -------------------------------------------------
# Self-contained so other targets can be added beside them without touching these lines.
# kubectl is built from the same k8s.io/kubernetes module and version as kube-apiserver; helm v3 and
# crane (go-containerregistry) come from the Go module proxy. Each is cached at
# $CACHE_ROOT/<tool>-<version>/<tool> behind a .stamp of its recipe.
HELM_VERSION="${ORKESTRA_HELM_VERSION:-$(json_version helm)}"
CRANE_VERSION="${ORKESTRA_CRANE_VERSION:-$(json_version crane)}"

# Builds one main package of a Go module at a version through a throw-away wrapper module.
#   go_tool <name> <out-dir> <module> <version> <package> [ldflags]
go_tool() {
  local name="$1" out="$2" module="$3" version="$4" pkg="$5" ldx="${6:-}"
  local mod; mod=$(printf 'module local/testenv/%s\n\ngo 1.25.0\n\nrequire %s %s\n' "$name" "$module" "$version")
  local stamp; stamp=$(printf '%s|%s|%s' "$mod" "$pkg" "$ldx" | stamp_of)
  if [[ -x "$out/$name" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then log "$name $version cached at $out"; return; fi
  need_go "$name" "$(echo "$name" | tr a-z- A-Z_)"
  go_env
  local work; work=$(mktemp -d); trap 'rm -rf "$work"; trap - RETURN' RETURN
  printf '%s\n' "$mod" > "$work/go.mod"
  printf 'package tools\n\nimport _ "%s"\n' "$pkg" > "$work/tools.go"
  log "building $name $version"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd "$work" && with_heartbeat "$name" go build -trimpath -ldflags "-s -w $ldx" -o "$out/$name" "$pkg")
  printf '%s' "$stamp" > "$out/.stamp"
  log "$name built in $(( SECONDS - t0 ))s"
}

build_helm() {
  go_tool helm "$CACHE_ROOT/helm-$HELM_VERSION" helm.sh/helm/v3 "$HELM_VERSION" helm.sh/helm/v3/cmd/helm \
    "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
}

build_crane() {
  go_tool crane "$CACHE_ROOT/crane-$CRANE_VERSION" github.com/google/go-containerregistry "$CRANE_VERSION" \
    github.com/google/go-containerregistry/cmd/crane
}

build_kubectl() {
  local out="$CACHE_ROOT/kubectl-$K8S_VERSION"
  local sv="v0${K8S_VERSION#v1}"
  local minor; minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  local ldv="-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  if [[ -x "$out/kubectl" && "$(cat "$out/.stamp" 2>/dev/null)" == "$(printf '%s|%s' "$K8S_VERSION" "$ldv" | stamp_of)" ]]; then
    log "kubectl $K8S_VERSION cached at $out"; return
  fi
  need_go kubectl KUBECTL
  go_env
  local gomod
  gomod=$(cd /tmp && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
  [[ -f "$gomod" ]] || { log "error: could not download go.mod of k8s.io/kubernetes@$K8S_VERSION"; exit 4; }
  local replaces
  replaces=$(grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk -v sv="$sv" '{print "\t" $1 " => " $1 " " sv}')
  local work; work=$(mktemp -d); trap 'rm -rf "$work"; trap - RETURN' RETURN
  printf 'module local/testenv/kubectl\n\ngo 1.24.0\n\ngodebug default=go1.24\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n%s\n)\n' "$K8S_VERSION" "$replaces" > "$work/go.mod"
  printf 'package tools\n\nimport _ "k8s.io/kubernetes/cmd/kubectl"\n' > "$work/tools.go"
  log "building kubectl $K8S_VERSION"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd "$work" && with_heartbeat kubectl go build -trimpath -ldflags "-s -w $ldv" -o "$out/kubectl" k8s.io/kubernetes/cmd/kubectl)
  printf '%s|%s' "$K8S_VERSION" "$ldv" | stamp_of > "$out/.stamp"
  log "kubectl built in $(( SECONDS - t0 ))s"
}
# --- end docs/testenv.md -------------------------------------------------------------------------------------

# ---- workloads (kube-scheduler + kwok; docs/testenv.md §5) --------------------------------------
# kube-scheduler comes from the same k8s.io/kubernetes wrapper module as kube-apiserver (same
# version, same staging replaces), so after `kube` it reuses the Go build cache. kwok is
# sigs.k8s.io/kwok/cmd/kwok from the Go module proxy (its go.mod has no replace directives, so
# `go install module@version` builds exactly its pinned dependency set).
build_kube_scheduler() {
  local out="$CACHE_ROOT/kube-$K8S_VERSION"
  if [[ -x "$out/kube-scheduler" && -f "$out/.stamp-scheduler" ]]; then
    log "kube-scheduler $K8S_VERSION cached at $out"; return
  fi
  need_go kube-scheduler KUBE_SCHEDULER
  go_env
  local sv="v0${K8S_VERSION#v1}"
  local minor; minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  local gomod
  gomod=$(cd /tmp && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
  [[ -f "$gomod" ]] || { log "error: could not download go.mod of k8s.io/kubernetes@$K8S_VERSION"; exit 4; }
  local replaces
  replaces=$(grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk -v sv="$sv" '{print "\t" $1 " => " $1 " " sv}')
  local mod
  mod=$(printf 'module local/testenv/k8s\n\ngo 1.24.0\n\ngodebug default=go1.24\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n%s\n)\n' "$K8S_VERSION" "$replaces")
  local ldv="-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  local work; work=$(mktemp -d); trap 'rm -rf "$work"' RETURN
  printf '%s\n' "$mod" > "$work/go.mod"
  printf 'package tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-scheduler/app"\n' > "$work/tools.go"
  log "building kube-scheduler $K8S_VERSION (minutes after \`kube\`, which fills the Go build cache)"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd "$work" && with_heartbeat kube-scheduler go build -trimpath -tags=selinux,notest -ldflags "-s -w $ldv" -o "$out/" k8s.io/kubernetes/cmd/kube-scheduler)
  printf '%s' "$(printf '%s|%s' "$mod" "$ldv" | stamp_of)" > "$out/.stamp-scheduler"
  log "kube-scheduler built in $(( SECONDS - t0 ))s"
}

build_kwok() {
  local out="$CACHE_ROOT/kwok-$KWOK_VERSION"
  local stamp; stamp=$(printf 'sigs.k8s.io/kwok/cmd/kwok@%s|-trimpath -s -w' "$KWOK_VERSION" | stamp_of)
  if [[ -x "$out/kwok" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then log "kwok $KWOK_VERSION cached at $out"; return; fi
  need_go kwok KWOK
  go_env
  log "building kwok $KWOK_VERSION (several minutes on 2 cores)"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd /tmp && GOFLAGS=-modcacherw GOBIN="$out" with_heartbeat kwok go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION")
  printf '%s' "$stamp" > "$out/.stamp"
  log "kwok built in $(( SECONDS - t0 ))s"
}

# --- external call protocols: PostgreSQL and Prometheus from Debian's packages ------------------
# Cached at $CACHE_ROOT/prometheus-<deb version>/prometheus and $CACHE_ROOT/postgresql-<major>/bin/
# (initdb, postgres). Prometheus is one static binary: its .deb is fetched with `apt-get download`
# and unpacked with `dpkg-deb -x` (as tools/browser/install.sh does for Chromium), so no service is
# installed or started. PostgreSQL: an installed server of the pinned major is linked; otherwise,
# as root, `apt-get install -y postgresql-<major>`; otherwise its .deb and libpq are unpacked (the
# server finds its share files relative to its own directory).
PROMETHEUS_VERSION="${ORKESTRA_PROMETHEUS_VERSION:-$(json_version prometheus)}"
POSTGRESQL_VERSION="${ORKESTRA_POSTGRESQL_VERSION:-$(json_version postgresql)}"
REDIS_VERSION="${ORKESTRA_REDIS_VERSION:-$(json_version redis)}"

apt_candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'; }

# Makes apt know package $1 (version $2, or any): an `apt-get update` as root when it does not.
apt_knows() {
  local c; c=$(apt_candidate "$1")
  if [[ -z "$c" || "$c" == "(none)" ]] || { [[ -n "${2:-}" ]] && ! apt-cache madison "$1" 2>/dev/null | grep -qF " $2 "; }; then
    [[ "$(id -u)" == 0 ]] || { log "error: apt knows no $1 ${2:-}; run apt-get update as root once"; exit 3; }
    log "apt-get update"
    apt-get update -qq >&2
  fi
}

# Unpacks the .deb files of the named packages (name or name=version) into $2.
apt_unpack() {
  local into="$1"; shift
  local tmp; tmp=$(mktemp -d "$CACHE_ROOT/apt-download.XXXXXX")
  (cd "$tmp" && apt-get download -qq "$@" >&2)
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$into"; done
  rm -rf "$tmp"
}

build_prometheus() {
  local out="$CACHE_ROOT/prometheus-$PROMETHEUS_VERSION"
  if [[ -x "$out/prometheus" ]]; then log "prometheus $PROMETHEUS_VERSION cached at $out"; return; fi
  command -v apt-get >/dev/null 2>&1 || { log "error: no apt-get: set TEST_ASSET_PROMETHEUS to a prometheus executable"; exit 3; }
  apt_knows prometheus "$PROMETHEUS_VERSION"
  log "unpacking Debian's prometheus $PROMETHEUS_VERSION into $out"
  local work; work=$(mktemp -d "$CACHE_ROOT/prometheus-work.XXXXXX")
  apt_unpack "$work" "prometheus=$PROMETHEUS_VERSION"
  mkdir -p "$out"
  cp "$work/usr/bin/prometheus" "$out/prometheus"
  rm -rf "$work"
  "$out/prometheus" --version >/dev/null 2>&1 || { log "error: the unpacked prometheus does not start"; exit 5; }
  log "prometheus unpacked"
}

# Redis: the server binary is in Debian's redis-tools (redis-server only adds the service); it and
# the two libraries it needs beyond the base system are unpacked, run through a wrapper that sets
# LD_LIBRARY_PATH. No service is installed or started.
build_redis() {
  # Without the epoch (`5:`): a colon in the path would split LD_LIBRARY_PATH.
  local out="$CACHE_ROOT/redis-${REDIS_VERSION#*:}"
  if [[ -x "$out/redis-server" ]]; then log "redis $REDIS_VERSION cached at $out"; return; fi
  command -v apt-get >/dev/null 2>&1 || { log "error: no apt-get: set TEST_ASSET_REDIS_SERVER to a redis-server executable"; exit 3; }
  apt_knows redis-tools "$REDIS_VERSION"
  log "unpacking Debian's redis-tools $REDIS_VERSION into $out"
  rm -rf "$out"; mkdir -p "$out"
  apt_unpack "$out/root" "redis-tools=$REDIS_VERSION" liblzf1 libjemalloc2
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s/root/usr/bin/redis-check-rdb" "$@"\n' "$out" "$out" > "$out/redis-server.tmp"
  # redis-check-rdb is the server binary; it acts as the server when called redis-server.
  ln -sfn redis-check-rdb "$out/root/usr/bin/redis-server"
  sed -i "s#/root/usr/bin/redis-check-rdb#/root/usr/bin/redis-server#" "$out/redis-server.tmp"
  chmod +x "$out/redis-server.tmp"
  "$out/redis-server.tmp" --version >/dev/null || { log "error: the unpacked redis-server does not start"; exit 5; }
  mv "$out/redis-server.tmp" "$out/redis-server"
  log "redis unpacked"
}

build_postgres() {
  local out="$CACHE_ROOT/postgresql-$POSTGRESQL_VERSION"
  if [[ -x "$out/bin/initdb" && -x "$out/bin/postgres" ]]; then log "postgresql $POSTGRESQL_VERSION cached at $out"; return; fi
  local system="/usr/lib/postgresql/$POSTGRESQL_VERSION/bin"
  if [[ ! -x "$system/postgres" && "$(id -u)" == 0 && -z "${ORKESTRA_POSTGRESQL_UNPACK:-}" ]]; then
    apt_knows "postgresql-$POSTGRESQL_VERSION"
    log "apt-get install -y postgresql-$POSTGRESQL_VERSION"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "postgresql-$POSTGRESQL_VERSION" >&2
  fi
  mkdir -p "$out"
  if [[ -x "$system/postgres" && -z "${ORKESTRA_POSTGRESQL_UNPACK:-}" ]]; then
    ln -sfn "$system" "$out/bin"
    log "postgresql $POSTGRESQL_VERSION linked from $system"
    return
  fi
  apt_knows "postgresql-$POSTGRESQL_VERSION"
  log "unpacking Debian's postgresql-$POSTGRESQL_VERSION into $out"
  apt_unpack "$out/root" "postgresql-$POSTGRESQL_VERSION" libpq5
  mkdir -p "$out/bin"
  for tool in initdb postgres pg_ctl; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH="%s/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s/root/usr/lib/postgresql/%s/bin/%s" "$@"\n' \
      "$out" "$out" "$POSTGRESQL_VERSION" "$tool" > "$out/bin/$tool"
    chmod +x "$out/bin/$tool"
  done
  "$out/bin/postgres" --version >/dev/null || { log "error: the unpacked postgres does not start"; exit 5; }
  log "postgresql unpacked"
}

# --- Kafka: single-node KRaft from its Maven Central artifacts, run by the machine's JDK -----------
# Cached at $CACHE_ROOT/kafka-<version>/: libs/ (kafka_2.13 and its runtime dependencies, copied by
# `mvn dependency:copy-dependencies` from a throwaway pom) and `kafka-server`, a wrapper that runs
# a main class of them (`kafka-server kafka.tools.StorageTool format …`, `kafka-server kafka.Kafka
# server.properties`). Needs java (17+) and mvn.
KAFKA_VERSION="${ORKESTRA_KAFKA_VERSION:-$(json_version kafka)}"

build_kafka() {
  local out="$CACHE_ROOT/kafka-$KAFKA_VERSION"
  if [[ -x "$out/kafka-server" ]]; then log "kafka $KAFKA_VERSION cached at $out"; return; fi
  command -v java >/dev/null 2>&1 || { log "error: no java (17+): install a JDK, or set TEST_ASSET_KAFKA_SERVER"; exit 3; }
  command -v mvn >/dev/null 2>&1 || { log "error: no mvn: install Maven, or set TEST_ASSET_KAFKA_SERVER"; exit 3; }
  local t0=$SECONDS tmp; tmp=$(mktemp -d "$CACHE_ROOT/kafka-build.XXXXXX")
  cat > "$tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.orkestra.testenv</groupId>
  <artifactId>kafka-server</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
  log "copying Kafka $KAFKA_VERSION and its dependencies from Maven Central into $out"
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  with_heartbeat kafka mvn -B -q -f "$tmp/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$out.tmp/libs" >&2
  rm -rf "$tmp"
  printf '%s\n' 'log4j.rootLogger=WARN, stderr' 'log4j.appender.stderr=org.apache.log4j.ConsoleAppender' \
    'log4j.appender.stderr.Target=System.err' 'log4j.appender.stderr.layout=org.apache.log4j.PatternLayout' \
    'log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n' > "$out.tmp/log4j.properties"
  printf '#!/bin/sh\n# Runs a main class of Kafka %s: kafka-server <main class> <args>...\nexec java ${KAFKA_HEAP_OPTS:--Xmx512m} -XX:TieredStopAtLevel=1 -Dlog4j.configuration=file:%s/log4j.properties -cp "%s/libs/*" "$@"\n' \
    "$KAFKA_VERSION" "$out" "$out" > "$out.tmp/kafka-server"
  chmod +x "$out.tmp/kafka-server"
  rm -rf "$out" && mv "$out.tmp" "$out"
  # The wrapper names its final directory; check it there.
  "$out/kafka-server" kafka.tools.StorageTool random-uuid >/dev/null || { rm -rf "$out"; log "error: the Kafka classes do not start"; exit 5; }
  log "kafka $KAFKA_VERSION built in $(( SECONDS - t0 ))s"
}

# --- Mailpit: a real SMTP server for the notification tests, from the Go module proxy -------------
# Cached at $CACHE_ROOT/mailpit-<version>/mailpit. Pure Go (its SQLite is modernc.org/sqlite), so
# it builds with CGO off; its module needs Go >= 1.26 (the `go` line of its go.mod).
MAILPIT_VERSION="${ORKESTRA_MAILPIT_VERSION:-$(json_version mailpit)}"

build_mailpit() {
  local out="$CACHE_ROOT/mailpit-$MAILPIT_VERSION"
  local stamp; stamp=$(printf 'github.com/axllent/mailpit@%s|-trimpath -s -w' "$MAILPIT_VERSION" | stamp_of)
  if [[ -x "$out/mailpit" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then log "mailpit $MAILPIT_VERSION cached at $out"; return; fi
  need_go mailpit MAILPIT
  go_env
  log "building mailpit $MAILPIT_VERSION (a few minutes on 2 cores: SQLite in Go is large)"
  local t0=$SECONDS
  mkdir -p "$out"
  (cd /tmp && GOFLAGS=-modcacherw GOBIN="$out" with_heartbeat mailpit go install -trimpath -ldflags "-s -w" "github.com/axllent/mailpit@$MAILPIT_VERSION")
  "$out/mailpit" version --no-release-check >/dev/null 2>&1 || { log "error: the built mailpit does not start"; exit 5; }
  printf '%s' "$stamp" > "$out/.stamp"
  log "mailpit built in $(( SECONDS - t0 ))s"
}

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(all)
for t in "${targets[@]}"; do
  case "$t" in
    all) build_moto; build_verdaccio; build_etcd; build_ferretdb; build_kube ;;
    etcd) build_etcd ;;
    kube) build_kube ;;
    ferretdb) build_ferretdb ;;
    moto) build_moto ;;
    verdaccio) build_verdaccio ;; # docs/releasing.md
    kubectl) build_kubectl ;; # docs/testenv.md
    helm) build_helm ;; # docs/testenv.md
    crane) build_crane ;; # docs/testenv.md
    tools) build_kubectl; build_helm; build_crane ;; # docs/testenv.md: client tools
    workloads) build_kube_scheduler; build_kwok ;; # not in `all` (opt-in, costs a build)
    kube-scheduler) build_kube_scheduler ;;
    kwok) build_kwok ;;
    prometheus) build_prometheus ;;
    postgres) build_postgres ;;
    redis) build_redis ;;
    kafka) build_kafka ;;
    mailpit) build_mailpit ;;
    protocols) build_postgres; build_prometheus; build_redis; build_kafka; build_mailpit ;; # the servers of the external protocol and notification tests
    *) log "unknown target $t (all|etcd|kube|ferretdb|moto|verdaccio|kubectl|helm|crane|tools|workloads|kube-scheduler|kwok|prometheus|postgres|redis|kafka|mailpit|protocols)"; exit 2 ;;
  esac
done
