/**
 * Admission and conversion costs (docs/reference/katalog.md §3.4, §12; runtime.md §26), on one
 * local control plane with the operator as `ork dev` runs it (runtime child, `--install-crds`, the
 * conversion webhook on loopback):
 *
 * - CREATE latency of `--crs` CRs of a kind whose `deny` rule is a ValidatingAdmissionPolicy,
 *   against the same kind with no rule, the two interleaved (one of each in turn) so drift on a
 *   loaded machine falls on both;
 * - GET latency of each CR of a converting kind at its other version (the API server calls the
 *   conversion webhook) against at its storage version (no call), interleaved;
 * - storage migration: the operator restarted with the other version as storage, the wall time
 *   from its start until `status.storedVersions` names that version alone (every object rewritten,
 *   at the operator's pace).
 *
 * Latencies are client-side round trips over one keep-alive connection (ms, p50/p99). Not a test:
 * figures vary with the machine's load, which is recorded (1-minute load average before and after
 * each phase). `--out` writes the JSON.
 *
 * Usage: pnpm --filter @orkestra/bench admission [--crs 1000] [--out file]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createNamespace, startControlPlane } from '@orkestra/testenv';
import { keepAliveKubeConfig } from './keep-alive.js';
import { startOrkestra } from './orkestra-runner.js';
import type { OrkestraSystem } from './orkestra-runner.js';
import { sleep } from './sleep.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: { crs: { type: 'string', default: '1000' }, out: { type: 'string' } },
});
const count = Number(values.crs);
if (!Number.isInteger(count) || count < 1)
  throw new Error(`--crs ${values.crs ?? ''}: expected a positive integer`);

const GROUP = 'adm.bench.orkestra.io';
const NAMESPACE = 'admission-bench';

/** The converting kind, stored at `storage`; the other kinds only in the first phase. */
function katalogText(storage: 'v1' | 'v2', withAdmission: boolean): string {
  const admission = `    plain:
      apiTypes: { group: ${GROUP}, version: v1, kind: Plain, plural: plains }
    guarded:
      apiTypes: { group: ${GROUP}, version: v1, kind: Guarded, plural: guardeds }
      validation:
        rules:
          - { field: spec.size, lte: 100, message: size is at most 100 }
`;
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: admission-bench }
spec:
  crds:
${withAdmission ? admission : ''}    item:
      apiTypes: { group: ${GROUP}, version: v1, kind: Item, plural: items }
      versions:
        - { name: v1, storage: ${String(storage === 'v1')} }
        - { name: v2, storage: ${String(storage === 'v2')} }
      conversion:
        paths:
          - from: v1
            to: v2
            rules:
              - rename: { from: spec.size, to: spec.count }
              - wrap: { field: spec.image, key: name }
              - forEach: { field: spec.ports, key: name, rules: [{ rename: { from: port, to: containerPort } }] }
`;
}

interface Latency {
  readonly p50: number | null;
  readonly p99: number | null;
  readonly n: number;
}

const latency = (samples: readonly number[]): Latency => ({
  p50: round(percentile(samples, 50) ?? null, 2),
  p99: round(percentile(samples, 99) ?? null, 2),
  n: samples.length,
});

const load = (): number => round(loadavg()[0] ?? null, 2) ?? NaN;

async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

const started = performance.now();
const cp = await startControlPlane({ controllerManager: false });
const logs = mkdtempSync(join(tmpdir(), 'orkestra-admission-bench-'));
let operator: OrkestraSystem | undefined;
try {
  const kubeConfig = keepAliveKubeConfig(cp.kubeConfig);
  await createNamespace(cp.kubeConfig, NAMESPACE);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const ext = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const run = (storage: 'v1' | 'v2', withAdmission: boolean, log: string): Promise<OrkestraSystem> =>
    startOrkestra({
      kubeConfig: cp.kubeConfig,
      kubeconfigPath: cp.kubeconfigPath,
      namespace: NAMESPACE,
      workers: 4,
      resync: '10m',
      logPath: join(logs, log),
      katalogText: katalogText(storage, withAdmission),
      args: ['--install-crds', '--webhook-bind-address', '127.0.0.1:0', '--webhook-service', 'loopback'],
    });
  const create = (kind: string, plural: string, version: string, name: string, spec: object) =>
    custom.createNamespacedCustomObject({
      group: GROUP,
      version,
      namespace: NAMESPACE,
      plural,
      body: { apiVersion: `${GROUP}/${version}`, kind, metadata: { name }, spec },
    });

  operator = await run('v1', true, 'operator-1.log');

  // ---- Admission: the policy is in force once a CR breaking it is refused.
  for (let attempt = 0; ; attempt++) {
    const refused = await create('Guarded', 'guardeds', 'v1', `probe-${attempt}`, { size: 1000 }).then(
      () => false,
      (error: unknown) =>
        (error as { code?: number }).code === 422 || (error as { code?: number }).code === 403,
    );
    if (refused) break;
    if (attempt > 300) throw new Error('the ValidatingAdmissionPolicy was not in force after 60 s');
    await sleep(200);
  }
  const admissionLoad = { before: load(), after: NaN };
  const plain: number[] = [];
  const guarded: number[] = [];
  for (let i = 0; i < count; i++) {
    plain.push(await timed(() => create('Plain', 'plains', 'v1', `p-${i}`, { size: 5 })));
    guarded.push(await timed(() => create('Guarded', 'guardeds', 'v1', `g-${i}`, { size: 5 })));
  }
  admissionLoad.after = load();

  // ---- Conversion: GET at v2 (webhook) against GET at v1 (storage), interleaved.
  const get = (version: string, name: string) =>
    custom.getNamespacedCustomObject({ group: GROUP, version, namespace: NAMESPACE, plural: 'items', name });
  const spec = (i: number): object => ({
    size: i,
    image: `app:${i}`,
    ports: [
      { name: 'http', port: 80 },
      { name: 'metrics', port: 9090 },
    ],
  });
  await create('Item', 'items', 'v1', 'i-0', spec(0));
  for (let attempt = 0; ; attempt++) {
    const ok = await get('v2', 'i-0').then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (attempt > 300) throw new Error('the conversion webhook did not answer within 60 s');
    await sleep(200);
  }
  for (let i = 1; i < count; i++) await create('Item', 'items', 'v1', `i-${i}`, spec(i));
  const conversionLoad = { before: load(), after: NaN };
  const atStorage: number[] = [];
  const converted: number[] = [];
  for (let i = 0; i < count; i++) {
    atStorage.push(await timed(() => get('v1', `i-${i}`)));
    converted.push(await timed(() => get('v2', `i-${i}`)));
  }
  conversionLoad.after = load();
  await operator.stop();
  operator = undefined;

  // ---- Storage migration: the operator restarted with v2 as the storage version.
  const migrationLoad = { before: load(), after: NaN };
  const migrationStart = performance.now();
  operator = await run('v2', false, 'operator-2.log');
  const operatorStartedMs = performance.now() - migrationStart;
  for (;;) {
    const crd = await ext.readCustomResourceDefinition({ name: `items.${GROUP}` });
    const stored = crd.status?.storedVersions ?? [];
    if (stored.length === 1 && stored[0] === 'v2') break;
    if (performance.now() - migrationStart > 30 * 60_000)
      throw new Error('storage migration not done in 30 min');
    await sleep(100);
  }
  const migrationMs = performance.now() - migrationStart;
  migrationLoad.after = load();

  const summary = {
    crs: count,
    admission: {
      method:
        'client round trip of a CREATE (keep-alive), the kind with a ValidatingAdmissionPolicy Deny rule (admitted: the rule holds) vs the same kind with no rule, interleaved',
      noRuleMs: latency(plain),
      policyMs: latency(guarded),
      addedP50Ms: round((percentile(guarded, 50) ?? NaN) - (percentile(plain, 50) ?? NaN), 2),
      loadAvg1m: admissionLoad,
    },
    conversion: {
      method:
        'client round trip of a GET at the non-storage version (the API server calls the operator conversion webhook on loopback) vs at the storage version, interleaved',
      storageVersionMs: latency(atStorage),
      convertedMs: latency(converted),
      addedP50Ms: round((percentile(converted, 50) ?? NaN) - (percentile(atStorage, 50) ?? NaN), 2),
      loadAvg1m: conversionLoad,
    },
    storageMigration: {
      method:
        'operator restarted with the other version as storage: from its start until the CRD status.storedVersions names that version alone (every object rewritten at the operator pace, 20 ms apart)',
      objects: count,
      operatorStartMs: Math.round(operatorStartedMs),
      wallMs: Math.round(migrationMs),
      objectsPerSecond: round(count / (migrationMs / 1000), 1),
      loadAvg1m: migrationLoad,
    },
    environment: { logs, wallSeconds: Math.round((performance.now() - started) / 1000) },
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (values.out != null) writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`);
} finally {
  await operator?.stop();
  await cp.stop();
}
