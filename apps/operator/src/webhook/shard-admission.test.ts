import { OrkestraLabel, loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { ShardAssignment } from '../sharding/assign.js';
import { objectKey } from '../sharding/ring.js';
import type { JsonPatchOp } from './json-patch.js';
import { applyJsonPatch } from './json-patch.test-support.js';
import { createShardAdmissionHandler } from './shard-admission.js';

// The shard-assignment webhook (docs/reference/runtime.md §25.2, ADR 0110): a new CR gets the
// label the sharder would give it (the same ring, the same key), in its CREATE; anything it cannot
// decide is admitted unchanged, for the sharder.

const katalog = loadKatalogOrThrow({
  file: 'katalog.yaml',
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    website:
      apiTypes: { group: shop.example.com, version: v1, kind: Website, plural: websites }
    region:
      apiTypes: { group: shop.example.com, version: v1, kind: Region, plural: regions }
      namespaced: false
`,
});
const PATH = '/shard/websites.shop.example.com';
const SHARDS = ['shard-a', 'shard-b', 'shard-c'];

interface Answer {
  readonly response: {
    readonly uid: string;
    readonly allowed: boolean;
    readonly patchType?: string;
    readonly patch?: string;
  };
}

function review(
  object: Record<string, unknown>,
  request: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', operation: 'CREATE', namespace: 'web', object, ...request },
  };
}

function website(name: string, labels?: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'shop.example.com/v1',
    kind: 'Website',
    metadata: { name, namespace: 'web', ...(labels == null ? {} : { labels }) },
    spec: {},
  };
}

function opsOf(answer: Answer): JsonPatchOp[] | undefined {
  const patch = answer.response.patch;
  return patch == null
    ? undefined
    : (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as JsonPatchOp[]);
}

async function ask(
  object: Record<string, unknown>,
  options: {
    live?: readonly string[] | undefined;
    path?: string;
    namespace?: string;
    request?: Record<string, unknown>;
  } = {},
): Promise<Answer> {
  const live = 'live' in options ? options.live : SHARDS;
  const handler = createShardAdmissionHandler(katalog, {
    live: () => live,
    ...(options.namespace == null ? {} : { namespace: options.namespace }),
  });
  return (await handler(options.path ?? PATH, review(object, options.request))) as unknown as Answer;
}

describe('shard-assignment webhook', () => {
  it('labels a new CR with the shard the sharder would choose, as a JSONPatch', async () => {
    const ring = new ShardAssignment(SHARDS);
    const chosen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const name = `site-${i}`;
      const object = website(name);
      const answer = await ask(object);
      expect(answer.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
      const expected = ring.ownerOf(
        objectKey({ group: 'shop.example.com', kind: 'Website', namespace: 'web', name }),
      );
      // Applied as the API server would: the stored object carries the label.
      const stored = applyJsonPatch(object, opsOf(answer) ?? []) as {
        metadata: { labels: Record<string, string> };
      };
      expect(stored.metadata.labels).toEqual({ [OrkestraLabel.Shard]: expected });
      chosen.add(expected ?? '');
    }
    // The ring spreads them: every live shard gets some (30 keys over 3 shards).
    expect([...chosen].sort()).toEqual(SHARDS);
  });

  it('adds the label beside the labels the CR has, and drops a drain label asked at creation', async () => {
    const object = website('site-1', { app: 'web', [OrkestraLabel.Drain]: 'true' });
    const stored = applyJsonPatch(object, opsOf(await ask(object)) ?? []) as {
      metadata: { labels: Record<string, string> };
    };
    expect(Object.keys(stored.metadata.labels).sort()).toEqual(['app', OrkestraLabel.Shard]);
  });

  it('uses the cluster-scoped key (no namespace) for a cluster-scoped kind', async () => {
    const object = { apiVersion: 'shop.example.com/v1', kind: 'Region', metadata: { name: 'eu' } };
    const answer = await ask(object, { path: '/shard/regions.shop.example.com', request: { namespace: '' } });
    const expected = new ShardAssignment(SHARDS).ownerOf(
      objectKey({ group: 'shop.example.com', kind: 'Region', name: 'eu' }),
    );
    expect(opsOf(answer)).toEqual([
      { op: 'add', path: '/metadata/labels', value: { [OrkestraLabel.Shard]: expected } },
    ]);
  });

  it('admits unchanged when it sees no live shard (before its Lease watch listed, or none alive)', async () => {
    for (const live of [undefined, []]) {
      const answer = await ask(website('site-1'), { live });
      expect(answer.response).toEqual({ uid: 'u-1', allowed: true });
    }
  });

  it('admits unchanged a CR whose shard label is already set', async () => {
    const answer = await ask(website('site-1', { [OrkestraLabel.Shard]: 'shard-z' }));
    expect(answer.response).toEqual({ uid: 'u-1', allowed: true });
  });

  it('admits unchanged a CR created by generateName (the ring key needs the name)', async () => {
    const object = website('');
    (object['metadata'] as Record<string, unknown>)['generateName'] = 'site-';
    expect((await ask(object)).response).toEqual({ uid: 'u-1', allowed: true });
  });

  it('admits unchanged an UPDATE, and a CR outside the one namespace the shards watch', async () => {
    expect((await ask(website('site-1'), { request: { operation: 'UPDATE' } })).response).toEqual({
      uid: 'u-1',
      allowed: true,
    });
    expect((await ask(website('site-1'), { namespace: 'other' })).response).toEqual({
      uid: 'u-1',
      allowed: true,
    });
    expect((await ask(website('site-1'), { namespace: 'web' })).response.patchType).toBe('JSONPatch');
  });

  it('follows the live shards as they change', async () => {
    let live = ['shard-a'];
    const handler = createShardAdmissionHandler(katalog, { live: () => live });
    const shardOf = async (): Promise<string | undefined> => {
      const answer = (await handler(PATH, review(website('site-7')))) as unknown as Answer;
      const value =
        opsOf(answer)?.[0]?.op === 'add' ? (opsOf(answer)?.[0] as { value: unknown }).value : undefined;
      return (value as Record<string, string> | undefined)?.[OrkestraLabel.Shard];
    };
    expect(await shardOf()).toBe('shard-a');
    live = ['shard-b'];
    expect(await shardOf()).toBe('shard-b');
  });

  it('serves only the /shard/ paths of enabled entries', async () => {
    const handler = createShardAdmissionHandler(katalog, { live: () => SHARDS });
    expect(await handler('/mutate/websites.shop.example.com', review(website('a')))).toBeUndefined();
    expect(await handler('/shard/others.shop.example.com', review(website('a')))).toBeUndefined();
  });
});
