#!/usr/bin/env bash
# Runs every test: unit projects and the integration projects against real servers.
# Test servers (etcd, kube-apiserver, kube-controller-manager, FerretDB, moto, the protocol servers) are built into
# ~/.cache/orkestra/testenv when missing (minutes the first time; cached afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
# `tools` adds kubectl, helm and crane (install/image/kubectl tests); `workloads` adds kube-scheduler
# and kwok (files using useControlPlane({ workloads: true })); `protocols` adds PostgreSQL,
# Prometheus, Redis and Kafka (the external protocol tests, docs/reference/katalog.md §15.1.1) and
# Mailpit, the SMTP server of the notification tests (§15.4).
if ! bash tools/testenv/build.sh all tools workloads protocols; then
  # CI=true and CI=1 (any case) mean CI, as isCi() in @orkestra/testenv.
  if [[ "${CI:-}" =~ ^([Tt][Rr][Uu][Ee]|1)$ ]]; then
    echo "test servers could not be built; under CI that is a failure" >&2
    exit 1
  fi
  echo "warning: some test servers could not be built; their suites will be skipped" >&2
fi
# Headless Chromium from Debian's packages for the Control Center browser tests
# (apps/operator/test/control-center*.integration.test.ts); cached by version outside the repo.
if chromium="$(bash tools/browser/install.sh)"; then
  export ORKESTRA_CHROMIUM="$chromium"
elif [[ "${CI:-}" =~ ^([Tt][Rr][Uu][Ee]|1)$ ]]; then
  echo "Chromium could not be installed; under CI that is a failure" >&2
  exit 1
else
  echo "warning: Chromium could not be installed; the Control Center browser tests will fail" >&2
fi
# The JSON report feeds the slowest-files summary printed at the end (pass or fail), so a slow run
# names its files in the log.
report_dir="$(mktemp -d)"
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json="$report_dir/vitest.json" "$@" || status=$?
node tools/slowest-files.mjs "$report_dir/vitest.json" 20
exit "$status"
