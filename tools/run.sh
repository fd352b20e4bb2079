#!/usr/bin/env bash
# Bootstraps the workspace on a fresh machine and runs one root script:
#   bash tools/run.sh demo    # README command (1)
#   bash tools/run.sh test    # README command (2)
# It installs pnpm (the version pinned in package.json) when it is missing, installs the
# dependencies from the lockfile, then runs `pnpm <script>`.
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(node -p 'require("./package.json").packageManager.split("@")[1]')
if ! command -v pnpm >/dev/null 2>&1 || [[ "$(pnpm --version 2>/dev/null)" != "$want" ]]; then
  echo "[run] installing pnpm $want" >&2
  npm install --global --no-fund --no-audit "pnpm@$want" >/dev/null
fi
if [[ ! -d node_modules/.pnpm ]] || [[ pnpm-lock.yaml -nt node_modules/.modules.yaml ]]; then
  pnpm install --frozen-lockfile
fi
exec pnpm "$@"
