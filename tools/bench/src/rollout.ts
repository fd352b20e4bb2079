/**
 * `pnpm bench rollout` (docs/reference/runtime.md §24): the cost of a health-gated rollout. Per round, on a control
 * plane with workloads (kube-scheduler, kwok, workload controllers): N CRs with one Deployment
 * each are Ready on revision 1; then the runtime for revision 2 (a pod-template change) starts
 * with the previous revision kept and the real RolloutController (canary 2, waves 25/50/100)
 * over the real revision and state ConfigMaps — what the operator's reload does. Measured from
 * that start until the rollout is Complete and every CR is Ready on revision 2: wall time, and
 * the runtime's API writes (create/apply/patch/delete requests, status and Events included) per
 * rolled-out CR, plus the rollout controller's own requests. Prints medians and ranges over the
 * rounds; `--out` writes every round as JSON.
 *
 * Usage: pnpm bench rollout [--crs 200] [--rounds 3] [--out file]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import { RolloutController, createRolloutStore, prepareRollout } from '@orkestra/reconciler/rollout';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { createNamespace, installCrd, startControlPlane } from '@orkestra/testenv';
import { loadKatalog } from '@orkestra/types';
import type { Katalog, Logger } from '@orkestra/types';
import { percentile } from './stats.js';
import { callerPath } from './caller-path.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'rollout' && a !== '--'),
  options: {
    crs: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string' },
  },
});
const count = Number(values.crs);
const rounds = Number(values.rounds);
const api = { group: 'rollout.bench.orkestra.dev', version: 'v1', kind: 'App', plural: 'apps' } as const;
const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (fields, message) => process.stderr.write(`warn: ${message ?? ''} ${JSON.stringify(fields)}\n`),
  error: (fields, message) => process.stderr.write(`error: ${message ?? ''} ${JSON.stringify(fields)}\n`),
  child: () => silent,
};

function katalogOf(release: string): { katalog: Katalog; text: string } {
  const text = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: bench-rollout}
spec:
  rollout: {canary: {count: 2}, waves: [25, 50, 100], readyTimeout: 5m}
  crds:
    app:
      apiTypes: {group: ${api.group}, version: v1, kind: App, plural: apps}
      workers: 8
      operatorBox:
        onReconcile:
          deployments:
            - name: "{{ metadata.name }}-web"
              image: nginx:1.27
              replicas: 1
              podAnnotations: {release: "${release}"}
`;
  const loaded = loadKatalog({ text, file: 'bench-rollout.yaml' });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('; '));
  return { katalog: loaded.katalog, text };
}

const log = (message: string): void => {
  process.stderr.write(`[bench rollout ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isWrite = (key: string): boolean => /^(create|apply|patch|delete) /.test(key);
const writesOf = (counts: Readonly<Record<string, number>>): number =>
  Object.entries(counts).reduce((sum, [key, n]) => sum + (isWrite(key) ? n : 0), 0);

function readyOn(runtime: KatalogRuntime, revision: string): number {
  let ready = 0;
  for (const cr of runtime.entries.get('app')?.cache.list() ?? []) {
    const status = (cr['status'] ?? {}) as {
      katalogRevision?: string;
      conditions?: { type: string; status: string }[];
    };
    if (
      status.katalogRevision === revision &&
      status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
    )
      ready++;
  }
  return ready;
}

async function until(what: string, done: () => boolean, timeoutMs = 900_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}

interface Round {
  readonly round: number;
  readonly seconds: number;
  readonly writesPerCr: number;
  readonly controllerRequests: number;
  readonly steps: readonly { readonly message: string; readonly atSeconds: number }[];
}

const results: Round[] = [];
const cp = await startControlPlane({ workloads: true });
try {
  const kubeConfig = cp.kubeConfig;
  await installCrd(kubeConfig, api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  for (let round = 1; round <= rounds; round++) {
    const namespace = `rollout-${round}`;
    await createNamespace(kubeConfig, namespace);
    const { store, client: storeClient } = createRolloutStore({
      kubeConfig,
      namespace,
      katalogName: 'bench-rollout',
    });
    const v1 = katalogOf('1');
    const first = await prepareRollout({ store, ...v1, now: Date.now() });
    const runtime1 = createKatalogRuntime({
      katalog: v1.katalog,
      kubeConfig,
      revisions: { current: first.revision },
      logger: silent,
      options: { namespace },
    });
    await runtime1.start();
    for (let i = 0; i < count; i++)
      await custom.createNamespacedCustomObject({
        group: api.group,
        version: api.version,
        namespace,
        plural: api.plural,
        body: { apiVersion: `${api.group}/v1`, kind: api.kind, metadata: { name: `app-${i}` }, spec: {} },
      });
    await until(`${count} CRs Ready on revision 1`, () => readyOn(runtime1, first.revision) === count);
    await runtime1.stop({ timeoutMs: 5000 });
    log(`round ${round}: ${count} CRs Ready on ${first.revision}; rolling out`);

    const started = performance.now();
    const v2 = katalogOf('2');
    const prepared = await prepareRollout({ store, ...v2, now: Date.now() });
    const holder: { controller?: RolloutController } = {};
    const runtime2 = createKatalogRuntime({
      katalog: v2.katalog,
      kubeConfig,
      revisions: {
        current: prepared.revision,
        previous: prepared.previous,
        assign: (cr) => holder.controller?.assign(cr) ?? 'previous',
      },
      logger: silent,
      options: { namespace },
    });
    const steps: { message: string; atSeconds: number }[] = [];
    const controllerBefore = storeClient.requests.snapshot();
    const controller = new RolloutController({
      store,
      state: prepared.state,
      resourceVersion: prepared.resourceVersion,
      policy: () => v2.katalog.spec.rollout,
      crs: () => runtime2.entries.get('app')?.cache.list() ?? [],
      enqueue: (cr) =>
        runtime2.entries
          .get('app')
          ?.controller.enqueueKey(`${cr.metadata.namespace ?? ''}/${cr.metadata.name ?? ''}`),
      ready: () => runtime2.isReady(),
      events: runtime2.events,
      namespace,
      katalogName: 'bench-rollout',
      logger: silent,
      tickMs: 500,
      onState: (_state, _crs, events) => {
        for (const event of events)
          steps.push({ message: event.message, atSeconds: (performance.now() - started) / 1000 });
      },
    });
    holder.controller = controller;
    await runtime2.start();
    controller.start();
    await until(
      'the rollout to complete',
      () => controller.state.phase === 'Complete' && readyOn(runtime2, prepared.revision) === count,
    );
    const seconds = (performance.now() - started) / 1000;
    const writes = writesOf(runtime2.requestCounts());
    const controllerRequests = storeClient.requests.totalSince(controllerBefore);
    await controller.stop();
    // Untimed clean-up: the one kwok node takes 500 pods, so each round removes its CRs (the
    // runtime runs their deletion) and waits for their pods to go.
    await custom.deleteCollectionNamespacedCustomObject({
      group: api.group,
      version: api.version,
      namespace,
      plural: api.plural,
    });
    await until('the CRs to be deleted', () => (runtime2.entries.get('app')?.cache.size ?? 0) === 0);
    await runtime2.stop({ timeoutMs: 5000 });
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const deadline = Date.now() + 300_000;
    while ((await core.listNamespacedPod({ namespace })).items.length > 0 && Date.now() < deadline)
      await sleep(500);
    results.push({ round, seconds, writesPerCr: writes / count, controllerRequests, steps });
    log(`round ${round}: ${seconds.toFixed(1)} s, ${(writes / count).toFixed(2)} writes per CR`);
  }
} finally {
  await cp.stop();
}

const summary = (xs: readonly number[]) => ({
  median: percentile(xs, 50),
  min: Math.min(...xs),
  max: Math.max(...xs),
});
const report = {
  crs: count,
  rounds,
  policy: { canary: 2, waves: [25, 50, 100] },
  seconds: summary(results.map((r) => Number(r.seconds.toFixed(1)))),
  writesPerCr: summary(results.map((r) => Number(r.writesPerCr.toFixed(2)))),
  controllerRequests: summary(results.map((r) => r.controllerRequests)),
  results,
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (values.out != null) writeFileSync(callerPath(values.out), `${JSON.stringify(report, null, 2)}\n`);
