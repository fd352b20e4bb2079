import { describe, expect, it } from 'vitest';
import { OrkestraLabel } from '@orkestra/types';
import { ensureObject } from './ensure.js';
import { NotFoundError, RegistryError } from './errors.js';
import type { KubeClient } from './kube-client.js';
import type { KubeObject } from './kube-object.js';

// Apply mode never adopts an object it did not create (ADR 0032, docs/reference/katalog.md §5.3).

const secret = (labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'payments-db', namespace: 'team-a', labels },
  data: { password: 'c2VjcmV0' },
});

const OWNED = { [OrkestraLabel.OwnerUid]: 'uid-1', 'app.kubernetes.io/managed-by': 'orkestra' };

function recordingClient(live: KubeObject | undefined): { client: KubeClient; calls: string[] } {
  const calls: string[] = [];
  const client = {
    get: async () => {
      calls.push('get');
      if (live == null)
        throw new NotFoundError({
          verb: 'get',
          status: 404,
          reason: 'NotFound',
          message: 'not found',
        } as never);
      return live;
    },
    apply: async (obj: KubeObject) => {
      calls.push('apply');
      return { object: obj, created: live == null };
    },
    create: async (obj: KubeObject) => {
      calls.push('create');
      return obj;
    },
  } as unknown as KubeClient;
  return { client, calls };
}

const empty = { get: () => undefined, listOwned: () => [] };

describe('ensureObject in apply mode on a cache miss', () => {
  it('leaves an existing unmanaged object untouched: ChildConflict naming it, no write', async () => {
    const { client, calls } = recordingClient(secret());
    const error = await ensureObject(secret(OWNED), { mode: 'apply', cache: empty, client }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RegistryError);
    expect(error).toMatchObject({ code: 'ChildConflict', retryable: true });
    expect((error as Error).message).toContain('Secret team-a/payments-db');
    expect((error as Error).message).toContain('not managed by Orkestra');
    expect(calls).toEqual(['get']);
  });

  it("refuses another CR's object (ChildOwnedByOther) and writes nothing", async () => {
    const { client, calls } = recordingClient(secret({ [OrkestraLabel.OwnerUid]: 'uid-2' }));
    await expect(ensureObject(secret(OWNED), { mode: 'apply', cache: empty, client })).rejects.toMatchObject({
      code: 'ChildOwnedByOther',
    });
    expect(calls).toEqual(['get']);
  });

  it('creates an absent child with one apply, and updates its own object the cache has not seen yet', async () => {
    const absent = recordingClient(undefined);
    expect(await ensureObject(secret(OWNED), { mode: 'apply', cache: empty, client: absent.client })).toBe(
      'created',
    );
    expect(absent.calls).toEqual(['get', 'apply']);
    const own = recordingClient(secret(OWNED));
    expect(await ensureObject(secret(OWNED), { mode: 'apply', cache: empty, client: own.client })).toBe(
      'updated',
    );
    expect(own.calls).toEqual(['get', 'apply']);
  });
});
