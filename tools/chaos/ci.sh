#!/usr/bin/env bash
# The chaos phase of .ci/run: `ci.sh <results.json>`. The silent-watch file spends most of its
# 6.5 minutes waiting out an idle window (docs/chaos.md), so it runs beside the other files, on its
# own control plane and with its own results file, instead of after them; the other files still
# run one at a time. The two results files are compared together (`chaos:report compare a b`).
set -euo pipefail
cd "$(dirname "$0")/../.."
results="$1"
idle_results="$(dirname "$results")/silent-watch-results.json"
idle_file=test/silent-watch.chaos.test.ts
bash tools/testenv/build.sh all
ORKESTRA_CHAOS_RESULTS="$idle_results" pnpm exec vitest run --config tools/chaos/vitest.config.ts "$idle_file" \
  > >(sed -u 's/^/[silent-watch] /') 2>&1 &
idle_pid=$!
status=0
ORKESTRA_CHAOS_RESULTS="$results" pnpm exec vitest run --config tools/chaos/vitest.config.ts --exclude "**/silent-watch.chaos.test.ts" || status=$?
idle_status=0
wait "$idle_pid" || idle_status=$?
echo "chaos: other files exit $status, silent-watch exit $idle_status"
[ "$status" -eq 0 ] && [ "$idle_status" -eq 0 ]
