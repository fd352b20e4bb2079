import { ConflictError, NotFoundError } from '@orkestra/registry';
import { refOf } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';

/**
 * Storage version migration (docs/reference/katalog.md §3.4, ADR 0056, ADR 0085), as
 * kube-storage-version-migrator does it: every object of the kind is written back unchanged at the
 * storage version (an empty merge patch with the object's resourceVersion: the `patch` the
 * operator already holds on its CRs), which makes the API server store it at that version; then the CRD's
 * `status.storedVersions` is trimmed to the storage version. An object already stored at the
 * storage version is not written by the API server (same bytes), so a migration interrupted by a
 * restart is resumed by running it again from the start.
 *
 * The leader starts it when its workers start, so the first wave of status writes after a restart
 * changes objects between the migration's list and its write (409 Conflict). A conflicting object
 * is read again and written with the fresh resourceVersion (ADR 0085): no object is left out on the
 * strength of someone else's write, and `storedVersions` is trimmed only once every listed object was
 * written by the migration or is gone.
 */

/** MigrateStorageOptions configures migrateStorageVersion. */
export interface MigrateStorageOptions {
  /** `<plural>.<group>`. */
  readonly crdName: string;
  /** Pause between two writes, ms (pacing; also the pause before a retry after a conflict). Default 0. */
  readonly pauseMs?: number;
  /** Writes of one object that may conflict before the migration gives up (storedVersions untrimmed). Default 10. */
  readonly conflictAttempts?: number;
  /** Injected sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Stops the migration between two writes (shutdown, lost leadership); storedVersions is left untrimmed. */
  readonly signal?: AbortSignal;
}

/** MigrateStorageResult counts what a migration did. */
export interface MigrateStorageResult {
  /** False when `status.storedVersions` already named the storage version alone. */
  readonly needed: boolean;
  /** Objects the migration wrote (after a fresh read when the first write conflicted). */
  readonly rewritten: number;
  /** Conflicting writes, each followed by a fresh read and another write. */
  readonly conflicts: number;
  /** Objects deleted between the list and their write. */
  readonly deleted: number;
  readonly storedVersions: readonly string[];
}

/** MigrationError is a storage migration that stopped before trimming storedVersions. */
export class MigrationError extends Error {
  readonly code: 'MigrationConflict' | 'MigrationStopped';
  constructor(code: 'MigrationConflict' | 'MigrationStopped', message: string) {
    super(message);
    this.name = 'MigrationError';
    this.code = code;
  }
}

interface CrdShape {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean }[] };
  status?: { storedVersions?: string[] };
}

type MigrationClient = Pick<KubeClient, 'get' | 'list' | 'mergePatch' | 'patchStatus'>;

/** migrateStorageVersion rewrites the stored objects of one CRD and trims its storedVersions. */
export async function migrateStorageVersion(
  client: MigrationClient,
  options: MigrateStorageOptions,
): Promise<MigrateStorageResult> {
  const ref = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: options.crdName,
  };
  const crd = (await client.get(ref)) as unknown as CrdShape;
  const storage = crd.spec?.versions?.find((v) => v.storage === true)?.name;
  const stored = crd.status?.storedVersions ?? [];
  if (storage == null || (stored.length === 1 && stored[0] === storage))
    return { needed: false, rewritten: 0, conflicts: 0, deleted: 0, storedVersions: stored };
  const apiVersion = `${crd.spec?.group ?? ''}/${storage}`;
  const kind = crd.spec?.names?.kind ?? '';
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pauseMs = options.pauseMs ?? 0;
  const attempts = Math.max(1, options.conflictAttempts ?? 10);
  const counts = { rewritten: 0, conflicts: 0, deleted: 0 };
  const list = await client.list({ apiVersion, kind });
  for (const item of list.items) {
    if (options.signal?.aborted === true)
      throw new MigrationError('MigrationStopped', `${options.crdName}: storage migration stopped`);
    await rewriteOne(client, item, { attempts, pauseMs, sleep, counts, crdName: options.crdName });
    if (pauseMs > 0) await sleep(pauseMs);
  }
  await client.patchStatus(ref, { storedVersions: [storage] });
  return { needed: true, ...counts, storedVersions: [storage] };
}

/** rewriteOne writes one object back; a conflict reads it again and writes with the fresh resourceVersion. */
async function rewriteOne(
  client: MigrationClient,
  item: KubeObject,
  o: {
    readonly attempts: number;
    readonly pauseMs: number;
    readonly sleep: (ms: number) => Promise<void>;
    readonly counts: { rewritten: number; conflicts: number; deleted: number };
    readonly crdName: string;
  },
): Promise<void> {
  const ref = refOf(item);
  let resourceVersion = item.metadata.resourceVersion ?? '';
  for (let attempt = 1; ; attempt++) {
    try {
      await client.mergePatch(ref, {}, { resourceVersion });
      o.counts.rewritten++;
      return;
    } catch (error) {
      if (error instanceof NotFoundError) {
        o.counts.deleted++;
        return;
      }
      if (!(error instanceof ConflictError)) throw error;
      o.counts.conflicts++;
      if (attempt >= o.attempts)
        throw new MigrationError(
          'MigrationConflict',
          `${o.crdName}: ${ref.namespace == null ? '' : `${ref.namespace}/`}${ref.name} conflicted ${attempt} times; storedVersions left as they are (the next start resumes)`,
        );
    }
    if (o.pauseMs > 0) await o.sleep(o.pauseMs * attempt);
    // The fresh read is a list narrowed to the object's name: the operator's role may list and
    // patch its CRs, not get them (generate-rbac.ts), and a list of one object costs the same.
    const fresh = await client.list(
      { apiVersion: item.apiVersion, kind: item.kind },
      {
        ...(ref.namespace == null ? {} : { namespace: ref.namespace }),
        fieldSelector: `metadata.name=${ref.name}`,
      },
    );
    const current = fresh.items[0];
    if (current == null) {
      o.counts.deleted++;
      return;
    }
    resourceVersion = current.metadata.resourceVersion ?? '';
  }
}

/**
 * migrateKatalogStorage migrates every CRD of the Katalog that converts, one after another (the
 * leader runs it at start; a restart midway runs it again and only the objects not yet rewritten
 * are written). Failures are reported per CRD and do not stop the others; a stop ends it quietly.
 */
export async function migrateKatalogStorage(
  client: MigrationClient,
  crdNames: readonly string[],
  report: (crdName: string, outcome: MigrateStorageResult | { error: string }) => void,
  pauseMs = 20,
  signal?: AbortSignal,
): Promise<void> {
  const stopped = (): boolean => signal?.aborted === true;
  for (const crdName of crdNames) {
    if (stopped()) return;
    try {
      report(
        crdName,
        await migrateStorageVersion(client, { crdName, pauseMs, ...(signal == null ? {} : { signal }) }),
      );
    } catch (error) {
      // Stopped, or failed because shutdown closed what it needed (the webhook that converts its list).
      if (stopped() || (error instanceof MigrationError && error.code === 'MigrationStopped')) return;
      report(crdName, { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
