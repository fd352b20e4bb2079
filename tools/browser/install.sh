#!/usr/bin/env bash
# Installs headless Chromium from Debian's packages for the Control Center browser tests and prints
# the path of its executable on stdout (progress goes to stderr). Nothing else is downloaded.
#
#   bash tools/browser/install.sh            # install when missing, print the executable
#
# As root: `apt-get update` then `apt-get install -y chromium` (the system's package manager keeps
# it). Otherwise: `apt-get download` chromium and its dependency closure and unpack them with
# `dpkg-deb -x` into ~/.cache/orkestra/chromium-<version> (keyed by the candidate version), where
# the executable is usr/lib/chromium/chromium with LD_LIBRARY_PATH set by the wrapper written there.
# ORKESTRA_CHROMIUM, when set to an executable, is used as it is; ORKESTRA_CHROMIUM_UNPACK=1 forces
# the unpacked copy (also as root).
set -euo pipefail

log() { echo "tools/browser/install.sh: $*" >&2; }

if [[ -n "${ORKESTRA_CHROMIUM:-}" && -x "${ORKESTRA_CHROMIUM}" ]]; then
  echo "${ORKESTRA_CHROMIUM}"
  exit 0
fi

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/orkestra"

candidate() {
  apt-cache policy chromium 2>/dev/null | awk '/Candidate:/ { print $2; exit }'
}

version="$(candidate)"
if [[ -z "$version" || "$version" == "(none)" ]]; then
  if [[ "$(id -u)" == 0 ]]; then
    log "apt-get update"
    apt-get update -qq >&2
  else
    log "apt-cache knows no chromium package; run apt-get update as root once"
    exit 1
  fi
  version="$(candidate)"
fi
if [[ -z "$version" || "$version" == "(none)" ]]; then
  log "no chromium package in the configured Debian archive"
  exit 1
fi

installed="$(dpkg-query -W -f='${Version}' chromium 2>/dev/null || true)"
# ORKESTRA_CHROMIUM_UNPACK=1 takes the unpack path even as root or with a system Chromium.
unpack="${ORKESTRA_CHROMIUM_UNPACK:-}"
if [[ -z "$unpack" && "$installed" == "$version" && -x /usr/bin/chromium ]]; then
  echo /usr/bin/chromium
  exit 0
fi

if [[ -z "$unpack" && "$(id -u)" == 0 ]]; then
  if [[ "$installed" != "$version" ]]; then
    log "apt-get install -y chromium ($version)"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2; then
      apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
    fi
  fi
    echo /usr/bin/chromium
  exit 0
fi

dir="$cache_root/chromium-$version"
if [[ -x "$dir/chromium" ]]; then
  echo "$dir/chromium"
  exit 0
fi
mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/chromium-download.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
log "downloading chromium $version and its dependencies into $dir"
# The dependency closure, minus what is installed already.
mapfile -t packages < <(
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances chromium 2>/dev/null | awk '/^[a-z0-9]/ { print $1 }' | sort -u
)
wanted=(chromium chromium-common)
for package in "${packages[@]}"; do
  [[ "$package" == chromium || "$package" == chromium-common ]] && continue
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    wanted+=("$package")
  fi
done
(cd "$tmp" && apt-get download "${wanted[@]}" >&2)
mkdir -p "$cache_root" "$tmp/root"
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
libs="$(find "$tmp/root" -name '*.so*' -printf '%h\n' | sort -u | sed "s|^$tmp/root|$dir/root|" | paste -sd:)"
cat >"$tmp/chromium" <<WRAPPER
#!/usr/bin/env bash
export LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$dir/root/usr/lib/chromium/chromium" "\$@"
WRAPPER
chmod +x "$tmp/chromium"
rm -f "$tmp"/*.deb
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "$dir/chromium"
