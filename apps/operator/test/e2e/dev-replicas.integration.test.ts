/**
 * `ork dev --replicas 3` as a user runs it (docs/reference/runtime.md §25.1): three sharded
 * operators in three processes (ork dev and two `ork run` children) against ork dev's own control
 * plane, each holding a shard Lease; CRs spread over the shards with their children labelled alike;
 * `kill -9` of one replica process moves its CRs to the other two once its Lease expires while ork
 * dev goes on; Ctrl-C stops the replica still running before ork dev exits 0.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OrkestraLabel } from '@orkestra/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SHARD_LEASE_LABEL } from '../../src/sharding/shard-lease.js';
import { greetingKatalogText } from '../katalog-text.js';
import { buildOrk, spawnDev, tempDir, uniqueSuffix, waitFor } from './ork-process.js';

const suffix = uniqueSuffix();
const group = `devshard${suffix}.test.orkestra.io`;
const katalogName = `dev-shard-${suffix}`;
const KATALOG = greetingKatalogText(katalogName, group);
const N = 12;
const LEASE_MS = 4_000;
const dir = tempDir();
const kubeconfig = join(dir, 'dev.kubeconfig');
const katalogFile = join(dir, 'katalog.yaml');
const replicaPids: number[] = [];

beforeAll(() => {
  buildOrk();
  writeFileSync(katalogFile, KATALOG);
  writeFileSync(
    join(dir, 'crs.yaml'),
    Array.from(
      { length: N },
      (_, i) =>
        `apiVersion: ${group}/v1\nkind: App\nmetadata: {name: app-${i}, namespace: default}\nspec: {greeting: hi}\n`,
    ).join('---\n'),
  );
}, 600_000);

afterAll(() => {
  for (const pid of replicaPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** alive says whether a process with this ID exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Listed {
  items: { metadata: { name: string; labels?: Record<string, string> } }[];
}

it('runs three sharded replicas in three processes; a killed one’s CRs move to the others; Ctrl-C stops them all', async () => {
  const { dev, kubectlOk: kubectl } = spawnDev(katalogFile, kubeconfig, join(dir, 'work'), [
    '--replicas',
    '3',
    '--lease-duration',
    `${LEASE_MS / 1000}s`,
    '--renew-deadline',
    '3s',
    '--retry-period',
    '1s',
  ]);
  try {
    await waitFor('the dev kubeconfig', () => (existsSync(kubeconfig) ? true : undefined), 180_000);
    const started = await waitFor(
      'ork dev naming its replicas',
      () =>
        /Started 3 replicas: this process \(shard (\S+)\) and pids (\d+), (\d+)\./.exec(dev.stderr()) ??
        undefined,
      120_000,
    );
    const own = started[1] ?? '';
    replicaPids.push(Number(started[2]), Number(started[3]));
    // Two processes of their own, not ork dev's.
    expect(new Set([dev.child.pid, ...replicaPids]).size).toBe(3);
    for (const pid of replicaPids) expect(alive(pid)).toBe(true);
    const shardOfReplica = async (pid: number): Promise<string> =>
      (
        await waitFor(
          `the replica with pid ${pid} holding its shard`,
          () =>
            new RegExp(`Replica \\d \\(pid ${pid}\\) holds shard (\\S+)\\.`).exec(dev.stderr()) ?? undefined,
          120_000,
        )
      )[1] ?? '';
    const victim = replicaPids[0] ?? 0;
    const survivor = replicaPids[1] ?? 0;
    const victimShard = await shardOfReplica(victim);
    const survivorShard = await shardOfReplica(survivor);
    const shards = [own, victimShard, survivorShard];
    expect(new Set(shards).size).toBe(3);
    // Each replica holds its own Lease in the operator namespace.
    await waitFor(
      'three shard Leases',
      async () => {
        const leases = JSON.parse(
          await kubectl(
            'get',
            'leases',
            '-n',
            'orkestra-system',
            '-l',
            `${SHARD_LEASE_LABEL}=${katalogName}`,
            '-o',
            'json',
          ),
        ) as { items: { spec?: { holderIdentity?: string } }[] };
        const holders = leases.items.map((l) => l.spec?.holderIdentity ?? '').sort();
        return holders.length === 3 && holders.join() === [...shards].sort().join() ? true : undefined;
      },
      60_000,
    );

    await kubectl('apply', '-f', join(dir, 'crs.yaml'));
    /** CR name → shard, once every CR and its ConfigMap carry the same shard, one of `live`. */
    const converged = async (live: readonly string[]): Promise<Map<string, string> | undefined> => {
      const crs = JSON.parse(await kubectl('get', `apps.${group}`, '-n', 'default', '-o', 'json')) as Listed;
      const maps = JSON.parse(await kubectl('get', 'configmaps', '-n', 'default', '-o', 'json')) as Listed;
      const childShard = new Map(
        maps.items.map((cm) => [cm.metadata.name, cm.metadata.labels?.[OrkestraLabel.Shard]]),
      );
      if (crs.items.length !== N) return undefined;
      const result = new Map<string, string>();
      for (const cr of crs.items) {
        const shard = cr.metadata.labels?.[OrkestraLabel.Shard];
        if (shard == null || !live.includes(shard)) return undefined;
        if (childShard.get(`${cr.metadata.name}-config`) !== shard) return undefined;
        result.set(cr.metadata.name, shard);
      }
      return result;
    };
    const before = await waitFor(`${N} CRs converged on the three shards`, () => converged(shards), 120_000);
    expect(new Set(before.values()).size).toBeGreaterThan(1);

    process.kill(victim, 'SIGKILL');
    await waitFor(
      'ork dev reporting the killed replica',
      () => (dev.stderr().includes(`(pid ${victim}) exited (SIGKILL)`) ? true : undefined),
      30_000,
    );
    const after = await waitFor(
      'the killed replica’s CRs on the other two',
      () => converged([own, survivorShard]),
      60_000,
    );
    expect([...after.values()].filter((s) => s === victimShard)).toEqual([]);
    expect(dev.child.exitCode).toBeNull();
    expect(alive(survivor)).toBe(true);
  } finally {
    dev.child.kill('SIGINT');
  }
  expect(await dev.exited).toBe(0);
  // ork dev stopped the replica still running before it exited, gracefully: its own operator and
  // the survivor each log a clean shutdown (a replica left to lose the control plane fences itself
  // and exits 1 instead).
  for (const pid of replicaPids) expect(alive(pid)).toBe(false);
  const clean = dev.logs.filter((l) => l.msg === 'shutdown complete').map((l) => l['exitCode']);
  expect(clean).toEqual([0, 0]);
}, 600_000);
