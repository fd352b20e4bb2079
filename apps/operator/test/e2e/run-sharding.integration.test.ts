/**
 * Two `ork run --sharding` processes (docs/reference/runtime.md §25, ADR 0045) with the RBAC of
 * `ork generate rbac --sharding` and short lease timings (lease 4 s, renew deadline 3 s, retry
 * 1 s): both reconcile their share of 10 CRs; after kill -9 of the replica that does not lead, its
 * CRs are moved to the survivor once its shard Lease expires — within the lease duration plus a
 * retry period plus 2 s — and converge there. Nothing is ever forbidden.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createKubeClient } from '@orkestra/registry';
import { OrkestraLabel, loadKatalog } from '@orkestra/types';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installCrds } from '../../src/process/install-crds.js';
import { greetingKatalogText } from '../katalog-text.js';
import {
  buildOrk,
  forbiddenLines,
  serviceAccountKubeConfig,
  spawnOrk,
  tempDir,
  uniqueSuffix,
  waitFor,
} from './ork-process.js';
import type { OrkProcess } from './ork-process.js';

const env = useControlPlane();
const suffix = uniqueSuffix();
const group = `shard${suffix}.test.orkestra.io`;
const katalogName = `shard-${suffix}`;
const text = greetingKatalogText(katalogName, group);
const N = 10;
const LEASE_MS = 4_000;
const RETRY_MS = 1_000;
const dir = tempDir();
const katalogFile = join(dir, 'katalog.yaml');
const processes: OrkProcess[] = [];
let kubeconfig = '';

beforeAll(async () => {
  buildOrk();
  writeFileSync(katalogFile, text);
  const loaded = loadKatalog({ text });
  if (!loaded.ok) throw new Error('the Katalog does not load');
  await installCrds(createKubeClient({ kubeConfig: env.kubeConfig }), loaded.katalog);
  kubeconfig = (
    await serviceAccountKubeConfig(env.kubeConfig, katalogFile, env.namespace, dir, ['--sharding'])
  ).file;
}, 600_000);

afterAll(() => {
  for (const proc of processes) if (proc.child.exitCode == null) proc.child.kill('SIGKILL');
});

function start(): OrkProcess {
  const proc = spawnOrk([
    'run',
    katalogFile,
    '--sharding',
    '--kubeconfig',
    kubeconfig,
    '--namespace',
    env.namespace,
    '--lease-duration',
    `${LEASE_MS / 1000}s`,
    '--renew-deadline',
    '3s',
    '--retry-period',
    `${RETRY_MS / 1000}s`,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
  ]);
  processes.push(proc);
  return proc;
}

interface Cr {
  metadata: { name: string; labels?: Record<string, string> };
}
const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
const api = { group, version: 'v1', plural: 'apps' };

/** CR name → shard, once every CR and its child carry the same shard, one of `live`. */
async function converged(live: readonly string[]): Promise<Map<string, string> | undefined> {
  const crs = (
    (await custom().listNamespacedCustomObject({ ...api, namespace: env.namespace })) as { items: Cr[] }
  ).items;
  if (crs.length !== N) return undefined;
  const maps = await env.kubeConfig
    .makeApiClient(CoreV1Api)
    .listNamespacedConfigMap({ namespace: env.namespace });
  const childShard = new Map(
    maps.items.map((cm) => [cm.metadata?.name, cm.metadata?.labels?.[OrkestraLabel.Shard]]),
  );
  const result = new Map<string, string>();
  for (const cr of crs) {
    const shard = cr.metadata.labels?.[OrkestraLabel.Shard];
    if (shard == null || !live.includes(shard)) return undefined;
    if (childShard.get(`${cr.metadata.name}-config`) !== shard) return undefined;
    result.set(cr.metadata.name, shard);
  }
  return result;
}

const shardOf = async (proc: OrkProcess): Promise<string> =>
  String((await proc.waitForLog('its shard lease', (l) => l.msg === 'shard lease held'))['shard']);

it('moves a killed replica’s CRs to the survivor once its shard Lease expires', async () => {
  const a = start();
  await a.waitForLog('a to lead', (l) => l.msg === 'became leader');
  const b = start();
  const [shardA, shardB] = [await shardOf(a), await shardOf(b)];
  await a.waitForLog(
    'the sharder to see both shards',
    (l) => l.msg === 'shards changed' && Array.isArray(l['live']) && l['live'].length === 2,
  );

  for (let i = 0; i < N; i++)
    await custom().createNamespacedCustomObject({
      ...api,
      namespace: env.namespace,
      body: {
        apiVersion: `${group}/v1`,
        kind: 'App',
        metadata: { name: `app-${i}` },
        spec: { greeting: 'hi' },
      },
    });
  const before = await waitFor('10 CRs on both shards', () => converged([shardA, shardB]), 60_000);
  const onB = [...before].filter(([, s]) => s === shardB).map(([n]) => n);
  expect(onB.length).toBeGreaterThan(0);

  const killedAt = Date.now();
  b.child.kill('SIGKILL');
  expect(await b.exited).toBe('SIGKILL');
  await waitFor('the killed shard’s CRs on the survivor', () => converged([shardA]), 60_000);
  const movedMs = Date.now() - killedAt;
  console.log(
    `sharding: ${onB.length} CRs of a kill -9'd replica moved and converged after ${movedMs} ms (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms)`,
  );
  expect(movedMs).toBeLessThanOrEqual(LEASE_MS + RETRY_MS + 2_000);
  // Not before the Lease could have expired: the survivor never took a live shard's CRs.
  expect(movedMs).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS);
  for (const proc of [a, b]) expect(forbiddenLines(proc.logs)).toEqual([]);
  a.child.kill('SIGTERM');
  expect(await a.exited).toBe(0);
}, 240_000);
