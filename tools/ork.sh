#!/usr/bin/env bash
# `pnpm ork …` from the repository root: builds the ork CLI (nx-cached, so a no-op when nothing
# changed), then runs it with the given arguments.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
if ! (cd "$root" && pnpm exec nx run @orkestra/operator:build --output-style=static >/tmp/ork-build.$$.log 2>&1); then
  cat /tmp/ork-build.$$.log >&2; rm -f /tmp/ork-build.$$.log; exit 1
fi
rm -f /tmp/ork-build.$$.log
exec node "$root/apps/operator/bin/ork.mjs" "$@"
