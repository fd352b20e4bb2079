import type { KindDefinition, KindRequest } from '@orkestra/provider-kit';
import { ProviderError } from '@orkestra/types';
import { publicConnectionString } from './connection-string.js';
import { DatabaseSpec } from './mongo-specs.js';
import type { MongoState } from './mongo-state.js';

/** MARKER_COLLECTION holds one document naming the owner of a database the provider created. */
export const MARKER_COLLECTION = 'orkestra_owner';

type Request = KindRequest<DatabaseSpec, MongoState>;

async function readMarker(request: Request): Promise<{ ownerUid?: unknown } | undefined> {
  const { spec, state, signal } = request;
  const out = await state.command(
    spec.name,
    { find: MARKER_COLLECTION, filter: { _id: 'owner' }, limit: 1 },
    signal,
    spec.name,
  );
  const batch = (out['cursor'] as { firstBatch?: { ownerUid?: unknown }[] } | undefined)?.firstBatch ?? [];
  return batch[0];
}

/**
 * databaseKind is the `database` kind. MongoDB creates databases lazily, so reconcile writes a
 * marker document (`orkestra_owner` collection) naming the owning CR; that creates the database
 * and lets delete drop only databases this owner created. Outputs: `database` and a
 * `connectionString` without credentials.
 */
export const databaseKind: KindDefinition<typeof DatabaseSpec, MongoState> = {
  schema: DatabaseSpec,
  description: 'A database, created with an ownership marker collection and dropped on delete.',
  outputs: ['database', 'connectionString'],
  async reconcile(request) {
    const { spec, state, signal, ownership } = request;
    const marker = await readMarker(request);
    if (marker == null) {
      const document = {
        _id: 'owner',
        ownerUid: ownership.ownerUid,
        crd: ownership.crd,
        katalog: ownership.katalog,
        ownerName: ownership.ownerName,
      };
      try {
        await state.command(
          spec.name,
          { insert: MARKER_COLLECTION, documents: [document] },
          signal,
          spec.name,
        );
      } catch (error) {
        if (!(error instanceof ProviderError && error.code === 'DuplicateKey')) throw error;
      }
    }
    const owner = marker?.ownerUid ?? (await readMarker(request))?.ownerUid;
    if (owner !== ownership.ownerUid) {
      throw new ProviderError(
        `database "${spec.name}" belongs to another owner (owner-uid ${String(owner)})`,
        { code: 'DatabaseOwnedByOther', retryable: false },
      );
    }
    return {
      state: 'ready',
      outputs: {
        database: spec.name,
        connectionString: publicConnectionString(state.uri, { database: spec.name }),
      },
    };
  },
  async delete(request) {
    const { spec, state, signal, ownership } = request;
    const marker = await readMarker(request);
    if (marker == null)
      return {
        state: 'deleted',
        message: `database "${spec.name}" has no ownership marker; nothing dropped`,
      };
    if (marker.ownerUid !== ownership.ownerUid) {
      return { state: 'deleted', message: `database "${spec.name}" belongs to another owner; left in place` };
    }
    await state.command(spec.name, { dropDatabase: 1 }, signal, spec.name);
    return { state: 'deleted' };
  },
};
