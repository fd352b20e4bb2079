/**
 * Readiness lag (docs/reference/runtime.md §7): how long after a Deployment's own `Available` condition the CR that
 * owns it reports `Ready=True`, as `kubectl wait --for=condition=Ready` would see it. A control
 * plane with workloads (kube-scheduler, kwok, workload controllers) runs, per round, N CRs with
 * one 2-replica Deployment each, in a fresh namespace and with a fresh runtime scoped to it. One
 * watch per kind timestamps the first event where the Deployment is Available with every replica
 * available, and the first where the CR is Ready=True; lag = the difference, per CR.
 *
 * Each lag is decomposed (readiness-lag-stats.ts): the runtime's child informer seeing the event,
 * the wait until the reconcile that wrote Ready starts, that reconcile, and the watch echo of the
 * status write. Per round: p50/p99/min/max of each, and the 1-minute load average before and
 * after; over rounds: median and range of p50 and p99. `--out` writes the JSON.
 *
 * Usage: pnpm --filter @orkestra/bench readiness-lag [--crs 50] [--rounds 3] [--out file]
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { CustomObjectsApi, Watch } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import { createNamespace, installCrd, startControlPlane } from '@orkestra/testenv';
import { loadKatalog } from '@orkestra/types';
import type { Logger } from '@orkestra/types';
import { decompose, quantiles, summarizeParts } from './readiness-lag-stats.js';
import type { CrTimes, LagParts } from './readiness-lag-stats.js';
import { spread } from './stats.js';
import { callerPath } from './caller-path.js';

const { values } = parseArgs({
  options: {
    crs: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string' },
  },
});
const count = Number(values.crs);
const rounds = Number(values.rounds);
const api = { group: 'lag.bench.orkestra.dev', version: 'v1', kind: 'App', plural: 'apps' } as const;
const katalogText = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: readiness-lag}
spec:
  crds:
    app:
      apiTypes: {group: ${api.group}, version: v1, kind: App, plural: apps}
      operatorBox:
        onReconcile:
          deployments:
            - {name: "{{ metadata.name }}-web", image: nginx:1.27, replicas: 2}
`;

type Obj = {
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: { replicas?: number };
  status?: Record<string, unknown>;
};
type Condition = { type: string; status: string; lastTransitionTime?: string };
const conditionOf = (o: Obj, type: string): Condition | undefined =>
  ((o.status?.['conditions'] as Condition[] | undefined) ?? []).find((c) => c.type === type);
const isTrue = (o: Obj, type: string): boolean => conditionOf(o, type)?.status === 'True';
/** availableNow: Available=True with every wanted replica available (the point `kubectl wait` on the Deployment returns). */
const availableNow = (o: Obj): boolean =>
  isTrue(o, 'Available') && o.status?.['availableReplicas'] === (o.spec?.replicas ?? 1);
const wallNow = (): number => performance.timeOrigin + performance.now();

interface Mutable {
  availableSeen?: number;
  availableTransition?: number;
  availableSeenWall?: number;
  runtimeSeen?: number;
  reconciles: { endAt: number; durationMs: number }[];
  readySeen?: number;
  readySeenWall?: number;
}

/**
 * recordingLogger keeps, per CR name, the end time and duration of every reconcile that wrote
 * something (the controller's `reconciled` line); warnings and errors go to stderr.
 */
function recordingLogger(times: Map<string, Mutable>, bindings: Record<string, unknown> = {}): Logger {
  const loud =
    (level: string) =>
    (fields: object, message?: string): void => {
      process.stderr.write(`${JSON.stringify({ level, ...bindings, ...fields, msg: message })}\n`);
    };
  return {
    debug: () => undefined,
    info: (fields, message) => {
      const name = bindings['name'];
      if (message !== 'reconciled' || typeof name !== 'string') return;
      const durationMs = (fields as { durationMs?: unknown }).durationMs;
      if (typeof durationMs !== 'number') return;
      times.get(name)?.reconciles.push({ endAt: performance.now(), durationMs });
    },
    warn: loud('warn'),
    error: loud('error'),
    child: (more) => recordingLogger(times, { ...bindings, ...more }),
  };
}

interface RoundResult {
  readonly round: number;
  readonly measured: number;
  readonly missing: readonly string[];
  /**
   * Ready=True delivered on the bench's CR watch before Available on its Deployment watch: two
   * connections, so a few ms either way happen (the runtime's own watch can be faster).
   */
  readonly negative: number;
  /** Ready=True seen before the runtime's child cache had the Available Deployment: must be 0. */
  readonly readyBeforeRuntime: number;
  readonly parts: ReturnType<typeof summarizeParts>;
  /** Queue wait of every reconcile of the round (ms), from the runtime observer. */
  readonly queueWaitMs: ReturnType<typeof quantiles>;
  /** Duration of every reconcile of the round (ms). */
  readonly reconcileMs: ReturnType<typeof quantiles>;
  readonly reconciles: number;
  readonly maxQueueDepth: number;
  readonly loadAvg1m: { readonly before: number; readonly after: number };
  readonly wallSeconds: number;
}

const started = performance.now();
const cp = await startControlPlane({ workloads: true });
const results: RoundResult[] = [];
try {
  const kubeConfig = cp.kubeConfig;
  await installCrd(kubeConfig, api);
  const loaded = loadKatalog({ text: katalogText, file: 'readiness-lag.yaml' });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('; '));
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);

  for (let round = 1; round <= rounds; round++) {
    const roundStarted = performance.now();
    const loadBefore = loadavg()[0] ?? NaN;
    const namespace = `lag-${round}`;
    await createNamespace(kubeConfig, namespace);
    const times = new Map<string, Mutable>();
    for (let i = 0; i < count; i++) times.set(`app-${i}`, { reconciles: [] });
    const queueWaits: number[] = [];
    const durations: number[] = [];
    const runtime = createKatalogRuntime({
      katalog: loaded.katalog,
      kubeConfig,
      logger: recordingLogger(times),
      options: { namespace },
      observer: {
        queueWait: (_c, seconds) => queueWaits.push(seconds * 1000),
        reconcileFinished: (_c, _o, seconds) => durations.push(seconds * 1000),
      },
    });
    await runtime.start();
    runtime.children.subscribe((change) => {
      const o = change.object as unknown as Obj;
      const t = times.get(o.metadata.name.replace(/-web$/, ''));
      if (t != null && t.runtimeSeen == null && availableNow(o)) t.runtimeSeen = performance.now();
    });

    const watch = new Watch(kubeConfig);
    const deployments = await watch.watch(
      `/apis/apps/v1/namespaces/${namespace}/deployments`,
      {},
      (_t, o: Obj) => {
        const t = times.get(o.metadata.name.replace(/-web$/, ''));
        if (t == null || t.availableSeen != null || !availableNow(o)) return;
        t.availableSeen = performance.now();
        t.availableSeenWall = wallNow();
        const since = conditionOf(o, 'Available')?.lastTransitionTime;
        if (since != null) t.availableTransition = Date.parse(since);
      },
      () => undefined,
    );
    const crs = await watch.watch(
      `/apis/${api.group}/v1/namespaces/${namespace}/${api.plural}`,
      {},
      (_t, o: Obj) => {
        const t = times.get(o.metadata.name);
        if (t == null || t.readySeen != null || !isTrue(o, 'Ready')) return;
        t.readySeen = performance.now();
        t.readySeenWall = wallNow();
      },
      () => undefined,
    );
    const entry = runtime.entries.get('app');
    let maxQueueDepth = 0;
    const sampler = setInterval(() => {
      maxQueueDepth = Math.max(maxQueueDepth, entry?.queue.stats().depth ?? 0);
    }, 50);

    for (let i = 0; i < count; i++) {
      await custom.createNamespacedCustomObject({
        group: api.group,
        version: api.version,
        namespace,
        plural: api.plural,
        body: { apiVersion: `${api.group}/v1`, kind: api.kind, metadata: { name: `app-${i}` }, spec: {} },
      });
    }
    const deadline = Date.now() + 600_000;
    const done = (): boolean => [...times.values()].every((t) => t.readySeen != null);
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    clearInterval(sampler);
    deployments.abort();
    crs.abort();
    await runtime.stop({ timeoutMs: 5000 });

    const parts: LagParts[] = [];
    const missing: string[] = [];
    for (const [name, t] of times) {
      const p = decompose(t as CrTimes);
      if (p == null) missing.push(name);
      else parts.push(p);
    }
    const result: RoundResult = {
      round,
      measured: parts.length,
      missing,
      negative: parts.filter((p) => p.lag < 0).length,
      readyBeforeRuntime: parts.filter((p) => p.childEvent != null && p.lag < p.childEvent).length,
      parts: summarizeParts(parts),
      queueWaitMs: quantiles(queueWaits),
      reconcileMs: quantiles(durations),
      reconciles: durations.length,
      maxQueueDepth,
      loadAvg1m: {
        before: Math.round(loadBefore * 100) / 100,
        after: Math.round((loadavg()[0] ?? NaN) * 100) / 100,
      },
      wallSeconds: Math.round((performance.now() - roundStarted) / 1000),
    };
    results.push(result);
    process.stderr.write(`round ${round}: ${JSON.stringify(result)}\n`);
  }

  const over = (pick: (r: RoundResult) => number | null): ReturnType<typeof spread> =>
    spread(results.map(pick));
  const summary = {
    crs: count,
    rounds,
    lagMs: {
      p50: over((r) => r.parts.lag.p50),
      p99: over((r) => r.parts.lag.p99),
      max: over((r) => r.parts.lag.max),
    },
    lagFromTransitionMs: {
      p50: over((r) => r.parts.lagFromTransition.p50),
      p99: over((r) => r.parts.lagFromTransition.p99),
    },
    /** lastTransitionTime → the bench seeing Available: not Orkestra's part (see readiness-lag-stats.ts). */
    beforeRuntimeMs: {
      p50: over((r) => r.parts.beforeRuntime.p50),
      p99: over((r) => r.parts.beforeRuntime.p99),
    },
    partsP50Ms: {
      childEvent: over((r) => r.parts.childEvent.p50),
      queued: over((r) => r.parts.queued.p50),
      reconcile: over((r) => r.parts.reconcile.p50),
      echo: over((r) => r.parts.echo.p50),
    },
    partsP99Ms: {
      childEvent: over((r) => r.parts.childEvent.p99),
      queued: over((r) => r.parts.queued.p99),
      reconcile: over((r) => r.parts.reconcile.p99),
      echo: over((r) => r.parts.echo.p99),
    },
    loadAvg1m: over((r) => (r.loadAvg1m.before + r.loadAvg1m.after) / 2),
    negative: results.reduce((n, r) => n + r.negative, 0),
    readyBeforeRuntime: results.reduce((n, r) => n + r.readyBeforeRuntime, 0),
    wallSeconds: Math.round((performance.now() - started) / 1000),
    perRound: results,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (values.out != null) writeFileSync(callerPath(values.out), `${JSON.stringify(summary, null, 2)}\n`);
} finally {
  await cp.stop();
}
