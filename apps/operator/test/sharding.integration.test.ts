/**
 * Active-active sharding (docs/reference/runtime.md §25, ADR 0045) on the local control plane,
 * with the operators in this process:
 *
 * - 2 replicas and 20 CRs: the leader's sharder labels every CR with one live shard within about
 *   a second; each CR's child carries the same label; each CR's child is written by exactly one
 *   replica — the API server's audit log names the writer by its User-Agent (`…; shard <id>`) —
 *   and each CR's writing reconciles come from its shard's replica only (the replicas' logs);
 * - the non-leader stops (SIGTERM path: workers stop, then its shard Lease is released): its CRs
 *   move to the survivor, whose reconcile relabels their children, and an edit converges;
 * - a third replica starts: the CRs the ring gives it are drained by the survivor first — the
 *   survivor's `handed over` comes before the newcomer's first reconcile of each moved CR.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { OrkestraLabel } from '@orkestra/types';
import { startControlPlane } from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { greetingKatalogText } from './katalog-text.js';
import { startShardedReplica, waitForValue } from './sharded-replica.js';
import type { Operator } from '../src/process/operator.js';

const N = 20;
const NAMESPACE = 'sharding-apps';
const group = `sh${randomBytes(3).toString('hex')}.test.orkestra.io`;
const katalogName = `shard${randomBytes(2).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-sharding-'));
const file = join(dir, 'katalog.yaml');
const auditLog = join(dir, 'audit.log');
let cp: ControlPlane;
/** What the test reads of the control plane (the useControlPlane fixture's shape). */
const env = {
  get kubeConfig() {
    return cp.kubeConfig;
  },
  namespace: NAMESPACE,
};

interface AuditEvent {
  readonly auditID: string;
  readonly verb: string;
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly namespace?: string; readonly name?: string };
}
/** The User-Agents of every write (create, update, patch, delete) of each ConfigMap, from the audit log. */
function configMapWriters(): Map<string, Set<string>> {
  const writers = new Map<string, Set<string>>();
  const seen = new Set<string>();
  for (const line of readFileSync(auditLog, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as AuditEvent;
    if (seen.has(event.auditID)) continue;
    seen.add(event.auditID);
    const ref = event.objectRef;
    if (ref?.resource !== 'configmaps' || ref.namespace !== NAMESPACE || ref.name == null) continue;
    if (!['create', 'update', 'patch', 'delete'].includes(event.verb)) continue;
    const set = writers.get(ref.name) ?? new Set<string>();
    set.add(event.userAgent ?? '');
    writers.set(ref.name, set);
  }
  return writers;
}
writeFileSync(file, greetingKatalogText(katalogName, group, ['workers: 4']));

interface LogLine {
  readonly msg: string;
  readonly time: number;
  readonly name?: string;
  readonly writes?: number;
}
interface Replica {
  readonly operator: Operator;
  readonly shard: string;
  readonly logs: LogLine[];
}
const replicas: Replica[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitFor = waitForValue;

async function startReplica(name: string): Promise<Replica> {
  const logs: LogLine[] = [];
  const operator = await startShardedReplica({
    katalogFile: file,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name,
    args: ['--log-level', 'info'],
    options: {
      logDestination: {
        write: (line: string) => {
          appendFileSync(join(dir, `${name}.log`), line); // kept for a failed run's post-mortem
          for (const text of line.split('\n')) {
            if (text.trim() === '') continue;
            const parsed = JSON.parse(text) as LogLine & { time: number | string };
            logs.push({
              ...parsed,
              time: typeof parsed.time === 'number' ? parsed.time : Date.parse(parsed.time),
            });
          }
        },
      },
    },
  });
  const replica = { operator, shard: operator.shard ?? '', logs };
  replicas.push(replica);
  return replica;
}

const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
interface Cr {
  metadata: { name: string; labels?: Record<string, string>; creationTimestamp?: string };
}
async function crs(): Promise<Cr[]> {
  return (
    (await custom().listNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural: 'apps',
    })) as { items: Cr[] }
  ).items;
}
/** Every CR's shard, once every CR and its child carry the same live shard and the child's data. */
async function converged(live: readonly string[], greeting: (name: string) => string) {
  const list = await crs();
  if (list.length !== N) return undefined;
  const maps = new Map(
    (await core().listNamespacedConfigMap({ namespace: env.namespace })).items.map((cm) => [
      cm.metadata?.name ?? '',
      cm,
    ]),
  );
  const shards = new Map<string, string>();
  for (const cr of list) {
    const shard = cr.metadata.labels?.[OrkestraLabel.Shard];
    if (shard == null || !live.includes(shard) || cr.metadata.labels?.[OrkestraLabel.Drain] != null)
      return undefined;
    const cm = maps.get(`${cr.metadata.name}-config`);
    if (cm?.metadata?.labels?.[OrkestraLabel.Shard] !== shard) return undefined;
    if (cm.data?.['GREETING'] !== greeting(cr.metadata.name)) return undefined;
    shards.set(cr.metadata.name, shard);
  }
  return shards;
}
/** Names of the CRs a replica reconciled with writes, from its own log lines. */
const wrote = (replica: Replica, since = 0): Set<string> =>
  new Set(
    replica.logs
      .filter((l) => l.msg === 'reconciled' && l.time >= since && l.name != null)
      .map((l) => l.name ?? ''),
  );

beforeAll(async () => {
  const policy = join(dir, 'audit-policy.yaml');
  writeFileSync(
    policy,
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n',
  );
  writeFileSync(auditLog, '');
  cp = await startControlPlane({
    controllerManager: false,
    apiserverArgs: [
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${auditLog}`,
      '--audit-log-format=json',
      '--audit-log-mode=blocking',
    ],
  });
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await startReplica('a');
  await startReplica('b');
}, 180_000);

afterAll(async () => {
  for (const replica of replicas) await replica.operator.shutdown('test done').catch(() => undefined);
  await cp?.stop();
});

describe('active-active sharding', () => {
  it(
    'gives each CR to exactly one replica, moves a stopped replica’s CRs, and drains before a hand-off',
    { timeout: 600_000 },
    async () => {
      const [a, b] = replicas as [Replica, Replica];
      const leader = await waitFor('a leader', async () => replicas.find((r) => r.operator.isLeader()));
      await waitFor('the sharder to see both shards', async () =>
        (leader.operator.sharderStats()?.live.length ?? 0) === 2 ? true : undefined,
      );

      // ADR 0103: the non-leader's claimer labels its own share of new CRs; the leader its own.
      // Each claimer counts both shards live before the first CR is created.
      await waitFor('both claimers started', async () =>
        replicas.every((r) => r.operator.sharderStats()?.live.length === 2) ? true : undefined,
      );
      // ---- 20 CRs: each assigned within about a second, to one live shard
      const assignMs: number[] = [];
      const createMs: number[] = [];
      for (let i = 0; i < N; i++) {
        const name = `app-${i}`;
        const creating = Date.now();
        await custom().createNamespacedCustomObject({
          group,
          version: 'v1',
          namespace: env.namespace,
          plural: 'apps',
          body: { apiVersion: `${group}/v1`, kind: 'App', metadata: { name }, spec: { greeting: 'hi' } },
        });
        // From the create's answer: the first create after the CRD is served can itself take seconds.
        const created = Date.now();
        createMs.push(created - creating);
        await waitFor(`${name} to be assigned`, async () => {
          const cr = (await custom().getNamespacedCustomObject({
            group,
            version: 'v1',
            namespace: env.namespace,
            plural: 'apps',
            name,
          })) as Cr;
          return cr.metadata.labels?.[OrkestraLabel.Shard];
        });
        assignMs.push(Date.now() - created);
      }
      const first = await waitFor('20 CRs converged on 2 shards', () =>
        converged([a.shard, b.shard], () => 'hi'),
      );
      // One label patch per new CR, by the replica the ring chose (no leader racing a claimer).
      const labelPatches = replicas.map((r) => r.operator.sharderStats());
      console.log(`sharding: label patches for ${N} new CRs, per replica ${JSON.stringify(labelPatches)}`);
      expect(labelPatches.reduce((n, s) => n + (s?.patches ?? 0), 0)).toBe(N);
      const onA = [...first].filter(([, s]) => s === a.shard).map(([n]) => n);
      const onB = [...first].filter(([, s]) => s === b.shard).map(([n]) => n);
      expect(onA.length + onB.length).toBe(N);
      expect(onA.length).toBeGreaterThan(0);
      expect(onB.length).toBeGreaterThan(0);
      // The audit log: each child written by one User-Agent, its CR's shard's.
      const writers = configMapWriters();
      for (const [name, shard] of first) {
        const agents = [...(writers.get(`${name}-config`) ?? [])];
        expect(agents, `writers of ${name}-config`).toHaveLength(1);
        expect(agents[0], `writer of ${name}-config`).toContain(`; shard ${shard})`);
      }
      // Exactly one writer per CR: its own shard's replica.
      const wroteA = wrote(a);
      const wroteB = wrote(b);
      for (const name of onA) expect(wroteB.has(name), `${name} written by b`).toBe(false);
      for (const name of onB) expect(wroteA.has(name), `${name} written by a`).toBe(false);
      for (const name of onA) expect(wroteA.has(name), `${name} written by a`).toBe(true);
      for (const name of onB) expect(wroteB.has(name), `${name} written by b`).toBe(true);

      // Idle cost: once assigned, the sharder writes nothing (3 ticks of quiet).
      const patchesBefore = leader.operator.sharderStats()?.patches;
      await sleep(3_000);
      expect(leader.operator.sharderStats()?.patches).toBe(patchesBefore);

      // ---- the non-leader stops: its CRs move to the survivor and converge on an edit
      const survivor = leader;
      const stopped = leader === a ? b : a;
      const stoppedAt = Date.now();
      expect(await stopped.operator.shutdown('scale down')).toBe(0);
      const movedAfterStopMs = await waitFor('the stopped shard’s CRs to move', async () =>
        (await converged([survivor.shard], () => 'hi')) == null ? undefined : Date.now() - stoppedAt,
      );
      for (let i = 0; i < N; i++)
        await custom().patchNamespacedCustomObject(
          {
            group,
            version: 'v1',
            namespace: env.namespace,
            plural: 'apps',
            name: `app-${i}`,
            body: { spec: { greeting: 'moved' } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      await waitFor('the edit to converge on the survivor', () => converged([survivor.shard], () => 'moved'));
      expect([...wrote(stopped, stoppedAt + 1)]).toEqual([]);

      // ---- a new replica: the survivor drains what the ring gives the newcomer, then hands over
      const c = await startReplica('c');
      const scaledAt = Date.now();
      const after = await waitFor('CRs to spread over the survivor and the newcomer', async () => {
        const shards = await converged([survivor.shard, c.shard], () => 'moved');
        return shards != null && [...shards.values()].includes(c.shard) ? shards : undefined;
      });
      const handOffMs = Date.now() - scaledAt;
      const toC = [...after].filter(([, s]) => s === c.shard).map(([n]) => n);
      for (const name of toC) {
        const handedOver = survivor.logs.find(
          (l) => l.msg === 'handed over to another shard' && l.name === name && l.time >= scaledAt,
        );
        expect(handedOver, `${name} handed over by the survivor`).toBeDefined();
        const firstOnC = c.logs.find((l) => l.name === name && l.msg.startsWith('reconciled'));
        expect(firstOnC, `${name} reconciled by the newcomer`).toBeDefined();
        expect(firstOnC?.time ?? 0).toBeGreaterThanOrEqual(handedOver?.time ?? Infinity);
        const lastOnSurvivor = survivor.logs
          .filter((l) => l.name === name && l.msg.startsWith('reconciled'))
          .at(-1);
        expect(lastOnSurvivor?.time ?? 0).toBeLessThanOrEqual(handedOver?.time ?? 0);
      }
      console.log(
        `sharding (2 replicas, ${N} CRs): assignment after create median ${median(assignMs)} ms (max ${Math.max(...assignMs)}; creates took max ${Math.max(...createMs)} ms); ` +
          `split ${onA.length}/${onB.length}; CRs moved and converged ${movedAfterStopMs} ms after a graceful stop; ` +
          `scale-up hand-off of ${toC.length} CRs converged in ${handOffMs} ms; sharder ${JSON.stringify(survivor.operator.sharderStats())}`,
      );
    },
  );
});

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
