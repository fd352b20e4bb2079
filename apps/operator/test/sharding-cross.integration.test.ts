/**
 * What spans CRs across shards (docs/reference/runtime.md §25.5, ADR 0058) on the local control
 * plane, with 2 sharded operators in this process:
 *
 * - cross reads: every `app` CR reads a `db` CR by name, and with 2 shards most reads cross a
 *   shard boundary; each app's child carries its db's `spec.size`, and an edit of every db re-queues
 *   the apps that read it on whichever shard owns them;
 * - the Live API and the object path of each replica answer for every db, whichever shard owns it,
 *   naming the owner (`shard`);
 * - the Control Center lists every db on each replica, with its owner; a CR another shard owns is
 *   a 404 naming that shard.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { OrkestraLabel } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { startShardedReplica, waitForValue } from './sharded-replica.js';
import type { Operator } from '../src/process/operator.js';

const N = 12;
const env = useControlPlane();
const group = `shx${randomBytes(3).toString('hex')}.test.orkestra.io`;
const katalogName = `shardx${randomBytes(2).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-sharding-cross-'));
const file = join(dir, 'katalog.yaml');
writeFileSync(
  file,
  `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${katalogName}}
spec:
  crds:
    db:
      apiTypes: {group: ${group}, version: v1, kind: Db, plural: dbs}
      crossAccess: true
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      workers: 4
      operatorBox:
        cross:
          - {crd: db, selector: {name: "{{ spec.db }}"}, as: db}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-conn"
              data: {SIZE: "{{ cross.db.spec.size }}", FOUND: "{{ cross.db.found }}"}
`,
);

interface Replica {
  readonly operator: Operator;
  readonly shard: string;
  readonly token: string;
}
const replicas: Replica[] = [];
const waitFor = waitForValue;

async function startReplica(name: string): Promise<Replica> {
  const token = randomBytes(16).toString('hex');
  const operator = await startShardedReplica({
    katalogFile: file,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    name,
    args: [
      ...['--metrics-bind-address', '127.0.0.1:0'],
      ...['--cross-bind-address', '127.0.0.1:0', '--cross-auth', 'none', '--control-center'],
    ],
    options: { controlCenterToken: token },
  });
  const replica = { operator, shard: operator.shard ?? '', token };
  replicas.push(replica);
  return replica;
}

const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
interface Cr {
  metadata: { name: string; labels?: Record<string, string> };
}
async function list(plural: string): Promise<Cr[]> {
  return (
    (await custom().listNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural,
    })) as {
      items: Cr[];
    }
  ).items;
}
const shardOf = (cr: Cr): string | undefined => cr.metadata.labels?.[OrkestraLabel.Shard];

/** The db of app i is db-(i+1 mod N): with 2 shards about half the reads cross a shard. */
const dbOf = (i: number): string => `db-${(i + 1) % N}`;
const size = (i: number, round: number): string => `${round * 100 + i}`;

/** Every app's child shows its db's size, or undefined. */
async function converged(round: number): Promise<true | undefined> {
  const maps = new Map(
    (await core().listNamespacedConfigMap({ namespace: env.namespace })).items.map((cm) => [
      cm.metadata?.name ?? '',
      cm.data ?? {},
    ]),
  );
  for (let i = 0; i < N; i++) {
    const data = maps.get(`app-${i}-conn`);
    if (data?.['FOUND'] !== 'true' || data['SIZE'] !== size((i + 1) % N, round)) return undefined;
  }
  return true;
}

beforeAll(async () => {
  await startReplica('a');
  await startReplica('b');
}, 180_000);

afterAll(async () => {
  for (const replica of replicas) await replica.operator.shutdown('test done').catch(() => undefined);
});

describe('what spans CRs across shards', () => {
  it('reads, re-queues and answers for CRs of every shard', { timeout: 300_000 }, async () => {
    const [a, b] = replicas as [Replica, Replica];
    const leader = await waitFor('a leader', async () => replicas.find((r) => r.operator.isLeader()));
    await waitFor('the sharder to see both shards', async () =>
      (leader.operator.sharderStats()?.live.length ?? 0) === 2 ? true : undefined,
    );
    for (let i = 0; i < N; i++) {
      await custom().createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: env.namespace,
        plural: 'dbs',
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Db',
          metadata: { name: `db-${i}` },
          spec: { size: size(i, 1) },
        },
      });
      await custom().createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: env.namespace,
        plural: 'apps',
        body: {
          apiVersion: `${group}/v1`,
          kind: 'App',
          metadata: { name: `app-${i}` },
          spec: { db: dbOf(i) },
        },
      });
    }
    await waitFor('every app to read its db', () => converged(1));
    const dbs = await list('dbs');
    const apps = await list('apps');
    const dbShard = new Map(dbs.map((cr) => [cr.metadata.name, shardOf(cr)]));
    const crossing = apps.filter(
      (app) => shardOf(app) !== dbShard.get(dbOf(Number(app.metadata.name.slice('app-'.length)))),
    );
    // The property: reads that cross a shard find their target (would be `found: false` from a shard's own cache).
    expect(crossing.length, 'apps whose db is on the other shard').toBeGreaterThan(0);
    expect(new Set(dbs.map(shardOf))).toEqual(new Set([a.shard, b.shard]));

    // An edit of every db re-queues its reader on whichever shard owns the reader.
    const editedAt = Date.now();
    for (let i = 0; i < N; i++)
      await custom().patchNamespacedCustomObject(
        {
          group,
          version: 'v1',
          namespace: env.namespace,
          plural: 'dbs',
          name: `db-${i}`,
          body: { spec: { size: size(i, 2) } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await waitFor('every app to follow its db', () => converged(2), 30_000);
    const followMs = Date.now() - editedAt;

    // The Live API and the object path of each replica answer for every db, naming its owner.
    for (const replica of [a, b]) {
      const port = replica.operator.crossAddress?.port ?? 0;
      const listed = (await (await fetch(`http://127.0.0.1:${port}/katalog/db/cr`)).json()) as {
        total: number;
        items: { name: string; shard?: string }[];
      };
      expect(listed.total, `Live API list on ${replica.shard}`).toBe(N);
      for (const item of listed.items) expect(item.shard).toBe(dbShard.get(item.name));
      for (const db of dbs) {
        const name = db.metadata.name;
        const detail = (await (
          await fetch(`http://127.0.0.1:${port}/katalog/db/cr/${env.namespace}/${name}`)
        ).json()) as { found: boolean; shard?: string; spec: { size?: string } };
        expect(detail.found, `${name} from ${replica.shard}`).toBe(true);
        expect(detail.shard).toBe(dbShard.get(name));
        const object = await fetch(
          `http://127.0.0.1:${port}/katalog/crds/db/objects/${env.namespace}/${name}`,
        );
        expect(object.status, `object path ${name} from ${replica.shard}`).toBe(200);
      }
    }

    // The Control Center lists every db with its owner, and names the owner of a CR it does not reconcile.
    for (const replica of [a, b]) {
      const base = `http://127.0.0.1:${replica.operator.metricsAddress?.port ?? 0}`;
      const headers = { authorization: `Bearer ${replica.token}` };
      const page = (await (await fetch(`${base}/api/v1/entries/db/crs`, { headers })).json()) as {
        items: { name: string; shard?: string }[];
      };
      expect(page.items.map((item) => item.name).sort()).toEqual(dbs.map((db) => db.metadata.name).sort());
      for (const item of page.items) expect(item.shard).toBe(dbShard.get(item.name));
      const foreign = dbs.find((db) => shardOf(db) !== replica.shard);
      if (foreign == null) continue;
      const answer = await fetch(`${base}/api/v1/entries/db/crs/${env.namespace}/${foreign.metadata.name}`, {
        headers,
      });
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { shard?: string }).shard).toBe(shardOf(foreign));
    }
    console.log(
      `sharding cross reads (2 replicas, ${N} apps reading ${N} dbs): ${crossing.length} reads cross a shard; ` +
        `every reader followed an edit of every db in ${followMs} ms`,
    );
  });
});
