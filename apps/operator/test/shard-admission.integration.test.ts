/**
 * The shard-assignment webhook (docs/reference/runtime.md §25.2, ADR 0110) on the local control
 * plane, with 2 sharded replicas in this process, each serving it on loopback (`--install-crds`
 * applies its MutatingWebhookConfiguration):
 *
 * - a CR created while both shards are live carries its shard label in the CREATE response itself
 *   — the ring's choice among the live shards, the sharder's own key — no sharder writes a label
 *   patch for it, and that shard reconciles it (its child carries the label);
 * - a CR created by `generateName` is admitted unlabelled (the ring key needs the name) and the
 *   sharder labels it;
 * - with the webhook down (its configuration pointing at a closed port), a CREATE still succeeds
 *   (failurePolicy Ignore) and the sharder labels the CR;
 * - a replica whose endpoint cannot listen starts all the same (the webhook fails open).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { V1MutatingWebhookConfiguration } from '@kubernetes/client-node';
import { OrkestraLabel } from '@orkestra/types';
import { startControlPlane } from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShardAssignment } from '../src/sharding/assign.js';
import { objectKey } from '../src/sharding/ring.js';
import type { Operator } from '../src/process/operator.js';
import { greetingKatalogText } from './katalog-text.js';
import { startShardedReplica, waitForValue } from './sharded-replica.js';

const NAMESPACE = 'shard-admission';
const group = `sa${randomBytes(3).toString('hex')}.test.orkestra.io`;
const katalogName = `sadm${randomBytes(2).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-shard-admission-'));
const file = join(dir, 'katalog.yaml');
writeFileSync(file, greetingKatalogText(katalogName, group));
const SHARD_WEBHOOK = `${katalogName}.orkestra-shard`;

let cp: ControlPlane;
const replicas: Operator[] = [];
const custom = () => cp.kubeConfig.makeApiClient(CustomObjectsApi);
const core = () => cp.kubeConfig.makeApiClient(CoreV1Api);
const admission = () => cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);

interface Cr {
  metadata: { name: string; labels?: Record<string, string> };
}

/** The label patches every replica's sharder (leader and claimers) has written so far. */
const sharderPatches = (): number => replicas.reduce((n, r) => n + (r.sharderStats()?.patches ?? 0), 0);

async function create(metadata: Record<string, unknown>): Promise<Cr> {
  return (await custom().createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: NAMESPACE,
    plural: 'apps',
    body: { apiVersion: `${group}/v1`, kind: 'App', metadata, spec: { greeting: 'hi' } },
  })) as Cr;
}

async function shardOf(name: string): Promise<string | undefined> {
  const cr = (await custom().getNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: NAMESPACE,
    plural: 'apps',
    name,
  })) as Cr;
  return cr.metadata.labels?.[OrkestraLabel.Shard];
}

/** The child's shard label once the CR's reconcile wrote it. */
async function childShard(name: string): Promise<string | undefined> {
  const cm = await core()
    .readNamespacedConfigMap({ namespace: NAMESPACE, name: `${name}-config` })
    .catch(() => undefined);
  return cm?.metadata?.labels?.[OrkestraLabel.Shard];
}

beforeAll(async () => {
  cp = await startControlPlane({ controllerManager: false });
  await core().createNamespace({ body: { metadata: { name: NAMESPACE } } });
  for (const name of ['a', 'b'])
    replicas.push(
      await startShardedReplica({
        katalogFile: file,
        cwd: dir,
        kubeConfig: cp.kubeConfig,
        namespace: NAMESPACE,
        name,
        // Every replica serves the webhook on its own loopback port; the configuration points at the
        // last one that applied it (any replica answers alike: they see the same Leases).
        args: [
          '--webhook-bind-address',
          '127.0.0.1:0',
          '--webhook-service',
          'loopback',
          '--log-level',
          'info',
        ],
        options: {
          logDestination: { write: (line: string) => appendFileSync(join(dir, `${name}.log`), line) },
        },
      }),
    );
}, 180_000);

afterAll(async () => {
  for (const replica of replicas) await replica.shutdown('test done').catch(() => undefined);
  await cp?.stop();
});

describe('shard-assignment webhook', () => {
  it(
    'labels a new CR in its CREATE response with the ring’s choice, without a sharder patch, and that shard reconciles it',
    { timeout: 240_000 },
    async () => {
      const shards = replicas.map((r) => r.shard ?? '').sort();
      const leader = await waitForValue('a leader', async () => replicas.find((r) => r.isLeader()));
      await waitForValue('the sharder to see both shards', async () =>
        (leader.sharderStats()?.live.length ?? 0) === 2 ? true : undefined,
      );
      // The other replica's Lease watch sees the same Lease events: give it a moment to.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const config = await admission().readMutatingWebhookConfiguration({ name: SHARD_WEBHOOK });
      expect(config.webhooks?.[0]).toMatchObject({
        failurePolicy: 'Ignore',
        timeoutSeconds: 2,
        sideEffects: 'None',
        reinvocationPolicy: 'Never',
      });
      expect(config.webhooks?.[0]?.clientConfig.caBundle ?? '').not.toBe('');

      const ring = new ShardAssignment(shards);
      const before = sharderPatches();
      const chosen = new Map<string, string>();
      for (let i = 0; i < 6; i++) {
        const name = `app-${i}`;
        const created = await create({ name });
        const label = created.metadata.labels?.[OrkestraLabel.Shard];
        // The CREATE response itself: the label was set at admission, before the object was stored.
        expect(label, name).toBe(ring.ownerOf(objectKey({ group, kind: 'App', namespace: NAMESPACE, name })));
        chosen.set(name, label ?? '');
      }
      // Both shards get some (the ring's choice for these 6 names over 2 shards).
      expect(new Set(chosen.values()).size).toBe(2);
      for (const [name, shard] of chosen)
        expect(await waitForValue(`${name} reconciled by its shard`, () => childShard(name))).toBe(shard);
      // No sharder wrote a label for any of them (3 ticks of quiet after the reconciles).
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(sharderPatches()).toBe(before);
      for (const [name, shard] of chosen) expect(await shardOf(name)).toBe(shard);

      // generateName: no name at admission, so no ring key: admitted unlabelled, the sharder labels it.
      const generated = await create({ generateName: 'gen-' });
      expect(generated.metadata.labels?.[OrkestraLabel.Shard]).toBeUndefined();
      const shard = await waitForValue('the sharder to label the generated CR', () =>
        shardOf(generated.metadata.name),
      );
      expect(shards).toContain(shard);
      expect(sharderPatches()).toBeGreaterThan(before);
    },
  );

  it(
    'admits a CR with the webhook down (failurePolicy Ignore) and the sharder still labels it',
    { timeout: 240_000 },
    async () => {
      const config = await admission().readMutatingWebhookConfiguration({ name: SHARD_WEBHOOK });
      // Down: every webhook of the configuration now points at a closed loopback port.
      await admission().replaceMutatingWebhookConfiguration({
        name: SHARD_WEBHOOK,
        body: {
          ...config,
          webhooks: (config.webhooks ?? []).map((w) => ({
            ...w,
            clientConfig: { ...w.clientConfig, url: 'https://127.0.0.1:1/shard/down' },
          })),
        } as V1MutatingWebhookConfiguration,
      });
      const before = sharderPatches();
      const created = await create({ name: 'while-down' });
      expect(created.metadata.labels?.[OrkestraLabel.Shard]).toBeUndefined();
      const shard = await waitForValue('the sharder to label it', () => shardOf('while-down'));
      expect(replicas.map((r) => r.shard)).toContain(shard);
      expect(await waitForValue('its shard to reconcile it', () => childShard('while-down'))).toBe(shard);
      expect(sharderPatches()).toBeGreaterThan(before);
    },
  );

  it(
    'starts a replica whose endpoint cannot listen (its port taken): a warning, not a failed start',
    { timeout: 120_000 },
    async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const port = (taken.address() as AddressInfo).port;
      const lines: string[] = [];
      try {
        const replica = await startShardedReplica({
          katalogFile: file,
          cwd: dir,
          kubeConfig: cp.kubeConfig,
          namespace: NAMESPACE,
          name: 'c',
          args: ['--webhook-bind-address', `127.0.0.1:${port}`, '--webhook-service', 'loopback'],
          options: { logDestination: { write: (line: string) => lines.push(line) } },
        });
        expect(replica.shard).toBeDefined();
        expect(lines.join('')).toContain('cannot serve the shard-assignment webhook');
        await replica.shutdown('test done');
      } finally {
        taken.close();
      }
    },
  );
});
