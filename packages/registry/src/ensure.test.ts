import { describe, expect, it } from 'vitest';
import { OrkestraLabel } from '@orkestra/types';
import { ensureObject } from './ensure.js';
import { ConflictError, NotFoundError, RegistryError } from './errors.js';
import type { ApplyOptions, KubeClient } from './kube-client.js';
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
    apply: async (obj: KubeObject, options?: ApplyOptions) => {
      if (options?.createOnly === true) {
        calls.push('apply createOnly');
        // What the API server answers a create-only apply against an existing object: 409, nothing written.
        if (live != null)
          throw new ConflictError({
            verb: 'apply',
            status: 409,
            reason: 'Conflict',
            message: 'the object has been modified',
          } as never);
        return { object: obj, created: true };
      }
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

  it('creates an absent child with one create-only apply, and updates its own object the cache has not seen yet', async () => {
    const absent = recordingClient(undefined);
    expect(await ensureObject(secret(OWNED), { mode: 'apply', cache: empty, client: absent.client })).toBe(
      'created',
    );
    expect(absent.calls).toEqual(['get', 'apply createOnly']);
    const own = recordingClient(secret(OWNED));
    expect(await ensureObject(secret(OWNED), { mode: 'apply', cache: empty, client: own.client })).toBe(
      'updated',
    );
    expect(own.calls).toEqual(['get', 'apply']);
  });
});

// A cache that has listed the kind (ADR 0097): a miss is created by one create-only apply; an
// object that turns out to exist is read and judged as in ADR 0032, never written over.
const synced = { ...empty, covers: () => true };

describe('ensureObject in apply mode on a miss in a synced cache', () => {
  it('creates an absent child with one create-only apply and no GET', async () => {
    const { client, calls } = recordingClient(undefined);
    expect(await ensureObject(secret(OWNED), { mode: 'apply', cache: synced, client })).toBe('created');
    expect(calls).toEqual(['apply createOnly']);
  });

  it('leaves an existing unmanaged object untouched: refused apply, GET, ChildConflict, no write', async () => {
    const { client, calls } = recordingClient(secret());
    await expect(ensureObject(secret(OWNED), { mode: 'apply', cache: synced, client })).rejects.toMatchObject(
      {
        code: 'ChildConflict',
      },
    );
    expect(calls).toEqual(['apply createOnly', 'get']);
  });

  it("refuses another CR's object (ChildOwnedByOther) after the refused apply", async () => {
    const { client, calls } = recordingClient(secret({ [OrkestraLabel.OwnerUid]: 'uid-2' }));
    await expect(ensureObject(secret(OWNED), { mode: 'apply', cache: synced, client })).rejects.toMatchObject(
      {
        code: 'ChildOwnedByOther',
      },
    );
    expect(calls).toEqual(['apply createOnly', 'get']);
  });

  it('updates its own object the cache has not seen yet: refused apply, GET, apply', async () => {
    const { client, calls } = recordingClient(secret(OWNED));
    expect(await ensureObject(secret(OWNED), { mode: 'apply', cache: synced, client })).toBe('updated');
    expect(calls).toEqual(['apply createOnly', 'get', 'apply']);
  });
});

describe('ensureObject in apply mode, an object created between the read and the apply', () => {
  it('is refused by the create-only apply (409), never applied over', async () => {
    // The GET finds nothing; by the time the apply arrives an unmanaged object of that name exists.
    const calls: string[] = [];
    let live: KubeObject | undefined;
    const client = {
      get: async () => {
        calls.push('get');
        const found = live;
        live = secret(); // someone else creates it right after the read
        if (found == null)
          throw new NotFoundError({
            verb: 'get',
            status: 404,
            reason: 'NotFound',
            message: 'not found',
          } as never);
        return found;
      },
      apply: async (obj: KubeObject, options?: ApplyOptions) => {
        calls.push(options?.createOnly === true ? 'apply createOnly' : 'apply');
        if (live != null && options?.createOnly === true)
          throw new ConflictError({
            verb: 'apply',
            status: 409,
            reason: 'Conflict',
            message: 'the object has been modified',
          } as never);
        return { object: obj, created: live == null };
      },
    } as unknown as KubeClient;
    await expect(ensureObject(secret(OWNED), { mode: 'apply', cache: empty, client })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(calls).toEqual(['get', 'apply createOnly']);
  });
});
