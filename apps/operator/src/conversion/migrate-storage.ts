import { ConflictError, NotFoundError } from '@orkestra/registry';
import { refOf } from '@orkestra/registry';
import type { KubeClient } from '@orkestra/registry';

/**
 * Storage version migration (docs/reference/katalog.md §3.4, ADR 0056), as
 * kube-storage-version-migrator does it: every object of the kind is written back unchanged at the
 * storage version (an empty merge patch with the object's resourceVersion: the `patch` the
 * operator already holds on its CRs), which makes the API server store it at that version; then the CRD's
 * `status.storedVersions` is trimmed to the storage version. An object already stored at the
 * storage version is not written by the API server (same bytes), so a migration interrupted by a
 * restart is resumed by running it again from the start.
 */

/** MigrateStorageOptions configures migrateStorageVersion. */
export interface MigrateStorageOptions {
  /** `<plural>.<group>`. */
  readonly crdName: string;
  /** Pause between two writes, ms (pacing). Default 0. */
  readonly pauseMs?: number;
  /** Injected sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** MigrateStorageResult counts what a migration did. */
export interface MigrateStorageResult {
  /** False when `status.storedVersions` already named the storage version alone. */
  readonly needed: boolean;
  readonly rewritten: number;
  /** Objects deleted or changed by someone else meanwhile (their own write stored them anew). */
  readonly skipped: number;
  readonly storedVersions: readonly string[];
}

interface CrdShape {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean }[] };
  status?: { storedVersions?: string[] };
}

/** migrateStorageVersion rewrites the stored objects of one CRD and trims its storedVersions. */
export async function migrateStorageVersion(
  client: Pick<KubeClient, 'get' | 'list' | 'mergePatch' | 'patchStatus'>,
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
    return { needed: false, rewritten: 0, skipped: 0, storedVersions: stored };
  const apiVersion = `${crd.spec?.group ?? ''}/${storage}`;
  const kind = crd.spec?.names?.kind ?? '';
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let rewritten = 0;
  let skipped = 0;
  const list = await client.list({ apiVersion, kind });
  for (const item of list.items) {
    try {
      await client.mergePatch(refOf(item), {}, { resourceVersion: item.metadata.resourceVersion ?? '' });
      rewritten++;
    } catch (error) {
      if (error instanceof ConflictError || error instanceof NotFoundError) skipped++;
      else throw error;
    }
    if ((options.pauseMs ?? 0) > 0) await sleep(options.pauseMs ?? 0);
  }
  await client.patchStatus(ref, { storedVersions: [storage] });
  return { needed: true, rewritten, skipped, storedVersions: [storage] };
}

/**
 * migrateKatalogStorage migrates every CRD of the Katalog that converts, one after another (the
 * leader runs it at start; a restart midway runs it again and only the objects not yet rewritten
 * are written). Failures are reported per CRD and do not stop the others.
 */
export async function migrateKatalogStorage(
  client: Pick<KubeClient, 'get' | 'list' | 'mergePatch' | 'patchStatus'>,
  crdNames: readonly string[],
  report: (crdName: string, outcome: MigrateStorageResult | { error: string }) => void,
  pauseMs = 20,
): Promise<void> {
  for (const crdName of crdNames) {
    try {
      report(crdName, await migrateStorageVersion(client, { crdName, pauseMs }));
    } catch (error) {
      report(crdName, { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
