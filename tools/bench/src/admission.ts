/**
 * Admission and conversion costs (docs/reference/katalog.md §3.4, §12; runtime.md §26), on one
 * local control plane with the operator as `ork dev` runs it (runtime child, `--install-crds`, the
 * admission and conversion webhooks on loopback), in `--rounds` rounds:
 *
 * - CREATE latency of `--crs` CRs of each of three kinds, one of each in turn (the order rotating
 *   by one place each round): no rule, a `deny` rule that is a ValidatingAdmissionPolicy (CEL), and
 *   a `deny` rule with a templated message, which CEL cannot express, judged by the operator's
 *   admission webhook (ADR 0089). Each round's operator watches a namespace of its own, so the CRs
 *   of earlier rounds are not reconciled again;
 * - GET latency of each CR of a converting kind at its other version (the API server calls the
 *   conversion webhook) against at its storage version (no call), interleaved; and a LIST of them
 *   all at each version, LIST_PAIRS times in turn (the conversion cost per object);
 * - storage migration: the operator restarted with the other version as storage, the wall time
 *   from its start until `status.storedVersions` names that version alone (every object rewritten,
 *   at the operator's pace). The next round starts from that storage version.
 *
 * Latencies are client-side round trips over one keep-alive connection (ms, nearest-rank p50/p99).
 * Not a test: figures vary with the machine's load, which is recorded (1-minute load average
 * before and after each phase). `--out` is rewritten after every phase (`complete: false` until
 * the end); docs/performance.md's section comes from it (`admission-doc`).
 *
 * Usage: pnpm --filter @orkestra/bench admission [--crs 1000] [--rounds 3] [--out file]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { MIGRATION_PACING } from '@orkestra/operator';
import { createNamespace, readVersions, startControlPlane } from '@orkestra/testenv';
import { latencyOf, summarizeRounds } from './admission-summary.js';
import type { AdmissionDocument, AdmissionRound } from './admission-summary.js';
import { cpuShare, readCpuCounters } from './cpu-share.js';
import { keepAliveKubeConfig } from './keep-alive.js';
import { startOrkestra } from './orkestra-runner.js';
import type { OrkestraSystem } from './orkestra-runner.js';
import { sleep } from './sleep.js';
import { rotatedOrder } from './round-summary.js';
import { round } from './stats.js';
import { callerPath } from './caller-path.js';

const { values } = parseArgs({
  options: {
    crs: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string' },
  },
});
const count = Number(values.crs);
if (!Number.isInteger(count) || count < 1)
  throw new Error(`--crs ${values.crs ?? ''}: expected a positive integer`);
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds ${values.rounds ?? ''}: expected a positive integer`);
const outPath = values.out == null ? undefined : callerPath(values.out);

const GROUP = 'adm.bench.orkestra.io';
const ITEMS_NAMESPACE = 'admission-bench-items';
const WORKERS = 4;
/** LISTs of every converting CR at each version, in turn, per round. */
const LIST_PAIRS = 10;
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));

type Version = 'v1' | 'v2';
const other = (v: Version): Version => (v === 'v1' ? 'v2' : 'v1');

/** The converting kind, stored at `storage`; the admission kinds only while they are measured. */
function katalogText(storage: Version, withAdmission: boolean): string {
  const admission = `    plain:
      apiTypes: { group: ${GROUP}, version: v1, kind: Plain, plural: plains }
    guarded:
      apiTypes: { group: ${GROUP}, version: v1, kind: Guarded, plural: guardeds }
      validation:
        rules:
          - { field: spec.size, lte: 100, message: size is at most 100 }
    hooked:
      apiTypes: { group: ${GROUP}, version: v1, kind: Hooked, plural: hookeds }
      validation:
        rules:
          - { field: spec.size, lte: 100, message: "size {{ .spec.size }} is over 100" }
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

const load = (): number => round(loadavg()[0] ?? null, 2) ?? NaN;

async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** sourceCommit names the code measured: HEAD, with `+changes` when the work tree differs. */
function sourceCommit(): string {
  try {
    const head = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['-C', repoRoot, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty === '' ? head : `${head}+changes`;
  } catch {
    return 'unknown';
  }
}

const errorText = (error: unknown): string =>
  `${String((error as { code?: unknown }).code ?? '')} ${String((error as { body?: unknown }).body ?? (error instanceof Error ? error.message : error))}`;

const command = `pnpm --filter @orkestra/bench admission --crs ${count} --rounds ${rounds}`;
const started = Date.now();
const cpuAtStart = readCpuCounters();
const loadAtStart = load();
const commit = sourceCommit();
const logs = mkdtempSync(join(tmpdir(), 'orkestra-admission-bench-'));
const done: AdmissionRound[] = [];

/** write rewrites the results file with what is measured so far. */
function write(complete: boolean, error?: string): AdmissionDocument {
  const doc: AdmissionDocument = {
    benchmark: 'admission',
    complete,
    settings: {
      command,
      crs: count,
      rounds,
      workers: WORKERS,
      listPairs: LIST_PAIRS,
      migrationPacing: { ...MIGRATION_PACING },
    },
    environment: {
      date: new Date(started).toISOString(),
      durationS: Math.round((Date.now() - started) / 1000),
      commit,
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      kubernetes: readVersions().kubernetes,
      loadAverage1m: { start: loadAtStart, end: load() },
      cpuShare: cpuShare(cpuAtStart, readCpuCounters()),
      logs,
    },
    rounds: done,
    summary: summarizeRounds(done, count),
    ...(error == null ? {} : { error }),
  };
  if (outPath != null) writeFileSync(outPath, `${JSON.stringify(doc, null, 2)}\n`);
  return doc;
}

const progress = (text: string): void => {
  process.stderr.write(`[admission ${new Date().toISOString()}] ${text}\n`);
};

const cp = await startControlPlane({ controllerManager: false });
let operator: OrkestraSystem | undefined;
try {
  const kubeConfig = keepAliveKubeConfig(cp.kubeConfig);
  await createNamespace(cp.kubeConfig, ITEMS_NAMESPACE);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const ext = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const run = (storage: Version, withAdmission: boolean, namespace: string, log: string) =>
    startOrkestra({
      kubeConfig: cp.kubeConfig,
      kubeconfigPath: cp.kubeconfigPath,
      namespace,
      workers: WORKERS,
      resync: '10m',
      logPath: join(logs, log),
      katalogText: katalogText(storage, withAdmission),
      args: ['--install-crds', '--webhook-bind-address', '127.0.0.1:0', '--webhook-service', 'loopback'],
    });
  const create = (namespace: string, kind: string, plural: string, name: string, spec: object) =>
    custom.createNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace,
      plural,
      body: { apiVersion: `${GROUP}/v1`, kind, metadata: { name }, spec },
    });
  const get = (version: string, name: string) =>
    custom.getNamespacedCustomObject({
      group: GROUP,
      version,
      namespace: ITEMS_NAMESPACE,
      plural: 'items',
      name,
    });
  const list = (version: string) =>
    custom.listNamespacedCustomObject({ group: GROUP, version, namespace: ITEMS_NAMESPACE, plural: 'items' });
  /** refusedWith waits until a CREATE breaking a kind's rule is refused with the rule's message. */
  const refusedWith = async (namespace: string, kind: string, plural: string, message: string) => {
    for (let attempt = 0; ; attempt++) {
      const refused = await create(namespace, kind, plural, `probe-${attempt}`, { size: 1000 }).then(
        () => false,
        (error: unknown) => errorText(error).includes(message),
      );
      if (refused) return;
      if (attempt > 300) throw new Error(`the ${kind} rule was not in force after 60 s`);
      await sleep(200);
    }
  };
  const itemSpec = (i: number): object => ({
    size: i,
    image: `app:${i}`,
    ports: [
      { name: 'http', port: 80 },
      { name: 'metrics', port: 9090 },
    ],
  });

  let storage: Version = 'v1';
  const kinds = [
    { key: 'plain', kind: 'Plain', plural: 'plains' },
    { key: 'guarded', kind: 'Guarded', plural: 'guardeds' },
    { key: 'hooked', kind: 'Hooked', plural: 'hookeds' },
  ] as const;
  for (let r = 1; r <= rounds; r++) {
    const namespace = `admission-bench-${r}`;
    await createNamespace(cp.kubeConfig, namespace);
    operator = await run(storage, true, namespace, `operator-round-${r}.log`);
    await refusedWith(namespace, 'Guarded', 'guardeds', 'size is at most 100');
    await refusedWith(namespace, 'Hooked', 'hookeds', 'size 1000 is over 100');
    if (r === 1) {
      progress(`creating ${count} items (untimed)`);
      for (let i = 0; i < count; i++) await create(ITEMS_NAMESPACE, 'Item', 'items', `i-${i}`, itemSpec(i));
    }

    // ---- Admission: one CR of each kind in turn, the order rotated by the round.
    progress(`round ${r}: admission`);
    const order = rotatedOrder(kinds, r - 1);
    const samples: Record<string, number[]> = { plain: [], guarded: [], hooked: [] };
    const admissionBefore = load();
    for (let i = 0; i < count; i++) {
      for (const k of order) {
        samples[k.key]!.push(
          await timed(() => create(namespace, k.kind, k.plural, `${k.key}-${i}`, { size: 5 })),
        );
      }
    }
    const admission = {
      order: order.map((k) => k.key),
      noRuleMs: latencyOf(samples['plain']!),
      policyMs: latencyOf(samples['guarded']!),
      webhookMs: latencyOf(samples['hooked']!),
      loadAvg1m: { before: admissionBefore, after: load() },
    };
    done.push({ round: r, admission });
    write(false);

    // ---- Conversion: GET at the other version (webhook) against at the storage version.
    progress(`round ${r}: conversion (storage ${storage})`);
    const converted = other(storage);
    for (let attempt = 0; ; attempt++) {
      if (
        await get(converted, 'i-0').then(
          () => true,
          () => false,
        )
      )
        break;
      if (attempt > 300) throw new Error('the conversion webhook did not answer within 60 s');
      await sleep(200);
    }
    const conversionBefore = load();
    const atStorage: number[] = [];
    const atConverted: number[] = [];
    for (let i = 0; i < count; i++) {
      // Alternate which goes first, so neither always follows the other.
      if (i % 2 === 0) {
        atStorage.push(await timed(() => get(storage, `i-${i}`)));
        atConverted.push(await timed(() => get(converted, `i-${i}`)));
      } else {
        atConverted.push(await timed(() => get(converted, `i-${i}`)));
        atStorage.push(await timed(() => get(storage, `i-${i}`)));
      }
    }
    const listStorageMs: number[] = [];
    const listConvertedMs: number[] = [];
    for (let i = 0; i < LIST_PAIRS; i++) {
      listStorageMs.push(round(await timed(() => list(storage)), 1) ?? NaN);
      listConvertedMs.push(round(await timed(() => list(converted)), 1) ?? NaN);
    }
    done[done.length - 1] = {
      ...done[done.length - 1]!,
      conversion: {
        storageVersion: storage,
        convertedVersion: converted,
        storageVersionMs: latencyOf(atStorage),
        convertedMs: latencyOf(atConverted),
        listStorageMs,
        listConvertedMs,
        loadAvg1m: { before: conversionBefore, after: load() },
      },
    };
    write(false);
    await operator.stop();
    operator = undefined;

    // ---- Storage migration: the operator restarted with the other version as storage.
    progress(`round ${r}: storage migration ${storage} → ${converted}`);
    const migrationBefore = load();
    const migrationStart = performance.now();
    operator = await run(converted, false, ITEMS_NAMESPACE, `operator-round-${r}-migration.log`);
    const operatorStartMs = performance.now() - migrationStart;
    for (;;) {
      const crd = await ext.readCustomResourceDefinition({ name: `items.${GROUP}` });
      const stored = crd.status?.storedVersions ?? [];
      if (stored.length === 1 && stored[0] === converted) break;
      if (performance.now() - migrationStart > 30 * 60_000)
        throw new Error('storage migration not done in 30 min');
      await sleep(100);
    }
    const wallMs = Math.round(performance.now() - migrationStart);
    done[done.length - 1] = {
      ...done[done.length - 1]!,
      migration: {
        from: storage,
        to: converted,
        objects: count,
        operatorStartMs: Math.round(operatorStartMs),
        wallMs,
        objectsPerSecond: round(count / (wallMs / 1000), 1),
        rewriteObjectsPerSecond: round(count / ((wallMs - operatorStartMs) / 1000), 1),
        loadAvg1m: { before: migrationBefore, after: load() },
      },
    };
    write(false);
    await operator.stop();
    operator = undefined;
    storage = converted;
  }
  const doc = write(true);
  process.stdout.write(`${JSON.stringify(doc.summary, null, 2)}\n`);
} catch (error) {
  write(false, error instanceof Error ? error.message : String(error));
  throw error;
} finally {
  await operator?.stop();
  await cp.stop();
}
