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
 * is written again with the resourceVersion of a fresh LIST (ADR 0085): no object is left out on
 * the strength of someone else's write, and `storedVersions` is trimmed only once every listed
 * object was written by the migration or is gone. Writes go out a few at a time, paced as a rate
 * (ADR 0113).
 */

/** MigrateStorageOptions configures migrateStorageVersion. */
export interface MigrateStorageOptions {
  /** `<plural>.<group>`. */
  readonly crdName: string;
  /**
   * Pacing: writes started per second at most, across all writes in flight (a rate, not a pause
   * after each; ADR 0113). Default MIGRATION_PACING.ratePerSecond; 0 or Infinity unpaced.
   */
  readonly ratePerSecond?: number;
  /** Writes in flight at most. Default MIGRATION_PACING.concurrency. */
  readonly concurrency?: number;
  /** Pause before the `n`th pass over conflicting objects, ms × n (ADR 0085). Default 20. */
  readonly retryPauseMs?: number;
  /** Writes of one object that may conflict before the migration gives up (storedVersions untrimmed). Default 10. */
  readonly conflictAttempts?: number;
  /** Injected sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Injected clock (ms), for the pacing. */
  readonly now?: () => number;
  /** Stops the migration between two writes (shutdown, lost leadership); storedVersions is left untrimmed. */
  readonly signal?: AbortSignal;
}

/**
 * MIGRATION_PACING is the operator's pacing of a storage migration (ADR 0113): at most 100 writes
 * started per second, 4 in flight. Each write is one PATCH the API server converts (the conversion
 * webhook); 100/s is a fraction of what the default API server priority level admits per client.
 */
export const MIGRATION_PACING = { ratePerSecond: 100, concurrency: 4 } as const;

/** MigrationTimings is where a migration's time went (ms), for the log. */
export interface MigrationTimings {
  /** LISTs of the kind: the first, and one per pass over conflicting objects. */
  readonly lists: number;
  readonly listMs: number;
  /** Round trip of one write (PATCH), median and 99th percentile (nearest rank). */
  readonly writeP50Ms: number;
  readonly writeP99Ms: number;
  /** From the CRD read to the trim. */
  readonly wallMs: number;
}

/** MigrateStorageResult counts what a migration did. */
export interface MigrateStorageResult {
  /** False when `status.storedVersions` already named the storage version alone. */
  readonly needed: boolean;
  /** Objects the migration wrote (in a later pass when the first write conflicted). */
  readonly rewritten: number;
  /** Conflicting writes, each followed by another write with a fresh resourceVersion. */
  readonly conflicts: number;
  /** Objects deleted between the list and their write. */
  readonly deleted: number;
  readonly storedVersions: readonly string[];
  /** Present when the migration was needed. */
  readonly timings?: MigrationTimings;
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

/**
 * pacer spaces the starts of writes `1000 / ratePerSecond` ms apart, whichever worker starts
 * them: a rate, so a slow write does not add a pause to the next one.
 */
function pacer(
  ratePerSecond: number,
  now: () => number,
  sleep: (ms: number) => Promise<void>,
): () => Promise<void> {
  if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) return async () => undefined;
  const interval = 1000 / ratePerSecond;
  let next = now();
  return async () => {
    const at = Math.max(next, now());
    next = at + interval;
    const wait = at - now();
    if (wait > 0) await sleep(wait);
  };
}

const keyOf = (item: KubeObject): string => `${item.metadata.namespace ?? ''}/${item.metadata.name ?? ''}`;

const nearestRank = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0);

/**
 * migrateStorageVersion rewrites the stored objects of one CRD and trims its storedVersions.
 * Objects are written from the LIST of the kind (no read per object), `concurrency` at a time,
 * paced at `ratePerSecond`. A write that conflicts (someone wrote the object since the list) is
 * written again in the next pass, from a fresh LIST of the kind, after `retryPauseMs` × the pass:
 * every listed object is written by the migration itself, or is gone (ADR 0085).
 */
export async function migrateStorageVersion(
  client: MigrationClient,
  options: MigrateStorageOptions,
): Promise<MigrateStorageResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
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
  const attempts = Math.max(1, options.conflictAttempts ?? 10);
  const concurrency = Math.max(1, options.concurrency ?? MIGRATION_PACING.concurrency);
  const retryPauseMs = options.retryPauseMs ?? 20;
  const pace = pacer(options.ratePerSecond ?? MIGRATION_PACING.ratePerSecond, now, sleep);
  const counts = { rewritten: 0, conflicts: 0, deleted: 0 };
  const writeMs: number[] = [];
  const lists = { n: 0, ms: 0 };
  const listKind = async (): Promise<readonly KubeObject[]> => {
    const t = now();
    const list = await client.list({ apiVersion, kind });
    lists.n++;
    lists.ms += now() - t;
    return list.items;
  };
  const stopped = (): MigrationError =>
    new MigrationError('MigrationStopped', `${options.crdName}: storage migration stopped`);

  /** Writes `items` (each with its listed resourceVersion); returns those that conflicted. */
  const pass = async (items: readonly KubeObject[]): Promise<KubeObject[]> => {
    const conflicted: KubeObject[] = [];
    let nextIndex = 0;
    let failure: unknown;
    const worker = async (): Promise<void> => {
      while (failure === undefined) {
        const item = items[nextIndex++];
        if (item === undefined) return;
        await pace();
        if (failure !== undefined) return;
        if (options.signal?.aborted === true) {
          failure ??= stopped();
          return;
        }
        const t = now();
        try {
          await client.mergePatch(refOf(item), {}, { resourceVersion: item.metadata.resourceVersion ?? '' });
          counts.rewritten++;
        } catch (error) {
          if (error instanceof NotFoundError) counts.deleted++;
          else if (error instanceof ConflictError) {
            counts.conflicts++;
            conflicted.push(item);
          } else failure ??= error;
        } finally {
          writeMs.push(now() - t);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
    if (failure !== undefined) throw failure;
    return conflicted;
  };

  let pending = await pass(await listKind());
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt >= attempts) {
      const first = pending[0];
      const ref1 = first == null ? undefined : refOf(first);
      throw new MigrationError(
        'MigrationConflict',
        `${options.crdName}: ${ref1?.namespace == null ? '' : `${ref1.namespace}/`}${ref1?.name ?? ''}${pending.length > 1 ? ` and ${pending.length - 1} more` : ''} conflicted ${attempt} times; storedVersions left as they are (the next start resumes)`,
      );
    }
    if (options.signal?.aborted === true) throw stopped();
    if (retryPauseMs > 0) await sleep(retryPauseMs * attempt);
    // One fresh LIST of the kind for every conflicting object (the operator's role may list and
    // patch its CRs, not get them: generate-rbac.ts); an object no longer listed is gone.
    const fresh = new Map((await listKind()).map((item) => [keyOf(item), item]));
    const again: KubeObject[] = [];
    for (const item of pending) {
      const current = fresh.get(keyOf(item));
      if (current == null) counts.deleted++;
      else again.push(current);
    }
    pending = await pass(again);
  }
  await client.patchStatus(ref, { storedVersions: [storage] });
  const sorted = [...writeMs].sort((a, b) => a - b);
  const ms = (n: number): number => Math.round(n * 10) / 10;
  return {
    needed: true,
    ...counts,
    storedVersions: [storage],
    timings: {
      lists: lists.n,
      listMs: ms(lists.ms),
      writeP50Ms: ms(nearestRank(sorted, 0.5)),
      writeP99Ms: ms(nearestRank(sorted, 0.99)),
      wallMs: ms(now() - started),
    },
  };
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
  pacing: Pick<MigrateStorageOptions, 'ratePerSecond' | 'concurrency'> = MIGRATION_PACING,
  signal?: AbortSignal,
): Promise<void> {
  const stopped = (): boolean => signal?.aborted === true;
  for (const crdName of crdNames) {
    if (stopped()) return;
    try {
      report(
        crdName,
        await migrateStorageVersion(client, { crdName, ...pacing, ...(signal == null ? {} : { signal }) }),
      );
    } catch (error) {
      // Stopped, or failed because shutdown closed what it needed (the webhook that converts its list).
      if (stopped() || (error instanceof MigrationError && error.code === 'MigrationStopped')) return;
      report(crdName, { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
