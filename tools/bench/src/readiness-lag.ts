/**
 * Readiness lag (issue 18): how long after a Deployment's own `Available` condition the CR that
 * owns it reports `Ready=True`, as `kubectl wait --for=condition=Ready` would see it. A control
 * plane with workloads (kube-scheduler, kwok, workload controllers) runs N CRs with one
 * 2-replica Deployment each; one watch per kind timestamps the first event where the Deployment
 * is Available with every replica available, and the first where the CR is Ready=True. Prints
 * p50, p99, min and max over the N lags, and writes them as JSON when `--out` is given.
 *
 * Usage: pnpm --filter @orkestra/bench exec node --conditions=@orkestra/source --import tsx src/readiness-lag.ts [--crs 50] [--out file]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CustomObjectsApi, Watch } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import { createNamespace, installCrd, startControlPlane } from '@orkestra/testenv';
import { loadKatalog } from '@orkestra/types';

const { values } = parseArgs({
  options: { crs: { type: 'string', default: '50' }, out: { type: 'string' } },
});
const count = Number(values.crs);
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

/** percentile is the nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

const started = performance.now();
const cp = await startControlPlane({ workloads: true });
try {
  const kubeConfig = cp.kubeConfig;
  await installCrd(kubeConfig, api);
  const namespace = 'lag';
  await createNamespace(kubeConfig, namespace);
  const loaded = loadKatalog({ text: katalogText, file: 'readiness-lag.yaml' });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('; '));
  const runtime = createKatalogRuntime({ katalog: loaded.katalog, kubeConfig });
  await runtime.start();

  const availableAt = new Map<string, number>();
  const readyAt = new Map<string, number>();
  const watch = new Watch(kubeConfig);
  type Obj = { metadata: { name: string }; spec?: { replicas?: number }; status?: Record<string, unknown> };
  const conditionTrue = (o: Obj, type: string): boolean =>
    ((o.status?.['conditions'] as { type: string; status: string }[] | undefined) ?? []).some(
      (c) => c.type === type && c.status === 'True',
    );
  const deployments = await watch.watch(
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    {},
    (_t, o: Obj) => {
      const cr = o.metadata.name.replace(/-web$/, '');
      const want = o.spec?.replicas ?? 1;
      if (!availableAt.has(cr) && conditionTrue(o, 'Available') && o.status?.['availableReplicas'] === want)
        availableAt.set(cr, performance.now());
    },
    () => undefined,
  );
  const crs = await watch.watch(
    `/apis/${api.group}/v1/namespaces/${namespace}/${api.plural}`,
    {},
    (_t, o: Obj) => {
      if (!readyAt.has(o.metadata.name) && conditionTrue(o, 'Ready'))
        readyAt.set(o.metadata.name, performance.now());
    },
    () => undefined,
  );

  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
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
  while (readyAt.size < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  deployments.abort();
  crs.abort();
  await runtime.stop({ timeoutMs: 5000 });

  const lags: number[] = [];
  const missing: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `app-${i}`;
    const a = availableAt.get(name);
    const r = readyAt.get(name);
    if (a == null || r == null) missing.push(name);
    else lags.push(r - a);
  }
  lags.sort((x, y) => x - y);
  const result = {
    crs: count,
    measured: lags.length,
    missing,
    lagMs: {
      p50: Math.round(percentile(lags, 50)),
      p99: Math.round(percentile(lags, 99)),
      min: Math.round(lags[0] ?? NaN),
      max: Math.round(lags.at(-1) ?? NaN),
    },
    // A negative lag would mean Ready=True before the Deployment was Available.
    negative: lags.filter((l) => l < 0).length,
    wallSeconds: Math.round((performance.now() - started) / 1000),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (values.out != null) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await cp.stop();
}
