import { ForbiddenError, NotFoundError } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { storedVersionOf } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { crdVersionsOf } from '../generate/admission-versions.js';
import { isMap } from '../is-map.js';

/**
 * The versions of each CRD of a Katalog as `ork diff` and `ork rollout status` show them
 * (docs/reference/runtime.md §21.1, §24.4): the storage and served versions the Katalog declares, those of the
 * live CRD, and whether a storage migration is pending — `status.storedVersions` naming a version
 * other than the storage one (docs/reference/katalog.md §3.4).
 */

/** Versions is a CRD's storage version and served versions. */
export interface Versions {
  readonly storage: string;
  readonly served: readonly string[];
}

/** LiveVersions is a live CRD's versions and the versions its objects are stored at. */
export interface LiveVersions extends Versions {
  readonly storedVersions: readonly string[];
}

/** VersionView is one CRD's versions in the Katalog and in the cluster. */
export interface VersionView {
  /** `<plural>.<group>`. */
  readonly crd: string;
  readonly katalog: Versions;
  /** Undefined when the live CRD is unknown; `absent` says why. */
  readonly live?: LiveVersions;
  /** Why there is no live CRD: `not installed`, `not in the export`, `not readable (forbidden)`. */
  readonly absent?: string;
  /** Whether the Katalog changes the storage or served versions of the live CRD. */
  readonly changed: boolean;
  /**
   * Versions objects are stored at, other than the Katalog's storage version: the operator
   * rewrites those objects (and trims `storedVersions`) once it runs this Katalog.
   */
  readonly pendingMigration: readonly string[];
}

/** entriesOf lists a Katalog's entries with their CRD names (`<plural>.<group>`). */
function entriesOf(katalog: Katalog): [string, Katalog['spec']['crds'][string]][] {
  return Object.values(katalog.spec.crds).map((entry) => [
    `${entry.apiTypes.plural}.${entry.apiTypes.group}`,
    entry,
  ]);
}

/** liveVersionsOf reads a CRD object's storage and served versions and its `status.storedVersions`. */
function liveVersionsOf(crd: KubeObject): LiveVersions {
  const spec = isMap(crd['spec']) ? crd['spec'] : {};
  const status = isMap(crd['status']) ? crd['status'] : {};
  const versions = (Array.isArray(spec['versions']) ? spec['versions'] : []).filter(isMap);
  const stored = Array.isArray(status['storedVersions']) ? status['storedVersions'] : [];
  return {
    storage: String(versions.find((v) => v['storage'] === true)?.['name'] ?? ''),
    served: versions.filter((v) => v['served'] !== false).map((v) => String(v['name'])),
    storedVersions: stored.filter((v): v is string => typeof v === 'string'),
  };
}

const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/** LiveCrds is the live CRDs read, and why the others are missing. */
export interface LiveCrds {
  readonly crds: readonly KubeObject[];
  /** Why a CRD not in `crds` is missing (`not installed`, `not in the export`). */
  readonly missing: string;
  /** CRDs the reader may not get. */
  readonly forbidden?: readonly string[];
}

/** versionViews compares each CRD entry's versions with its live CRD among `crds` (matched by name). */
export function versionViews(katalog: Katalog, read: LiveCrds): VersionView[] {
  const { crds } = read;
  const live = new Map(
    crds
      .filter((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name != null)
      .map((o) => [o.metadata.name ?? '', liveVersionsOf(o)]),
  );
  return entriesOf(katalog).map(([crd, entry]) => {
    const declared: Versions = {
      storage: storedVersionOf(entry),
      served: crdVersionsOf(entry)
        .filter((v) => v.served)
        .map((v) => v.name),
    };
    const now = live.get(crd);
    const absent = read.forbidden?.includes(crd) === true ? 'not readable (forbidden)' : read.missing;
    return {
      crd,
      katalog: declared,
      ...(now == null ? { absent } : { live: now }),
      changed: now != null && (now.storage !== declared.storage || !same(now.served, declared.served)),
      pendingMigration: (now?.storedVersions ?? []).filter((v) => v !== declared.storage),
    };
  });
}

/** readCrds gets the live CRD of each of the Katalog's entries (get requests only). */
export async function readCrds(client: Pick<KubeClient, 'get'>, katalog: Katalog): Promise<LiveCrds> {
  const crds: KubeObject[] = [];
  const forbidden: string[] = [];
  for (const [name] of entriesOf(katalog)) {
    try {
      crds.push(
        await client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name }),
      );
    } catch (error) {
      if (error instanceof ForbiddenError) forbidden.push(name);
      else if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return { crds, missing: 'not installed', forbidden };
}

/**
 * formatVersionView is one line: `CRD <name>: storage v1 → v2; served v1 → v1, v2; stored at v1:
 * migration to v2 pending`. Unchanged versions are printed once; a missing live CRD says why.
 */
export function formatVersionView(view: VersionView): string {
  const { katalog, live } = view;
  const list = (v: readonly string[]): string => v.join(', ');
  const storage =
    live == null || live.storage === katalog.storage
      ? katalog.storage
      : `${live.storage} → ${katalog.storage}`;
  const served =
    live == null || same(live.served, katalog.served)
      ? list(katalog.served)
      : `${list(live.served)} → ${list(katalog.served)}`;
  const parts = [`storage ${storage}`, `served ${served}`];
  if (live == null) parts.push(view.absent ?? 'not installed');
  else if (view.pendingMigration.length > 0)
    parts.push(`stored at ${list(live.storedVersions)}: migration to ${katalog.storage} pending`);
  return `CRD ${view.crd}: ${parts.join('; ')}`;
}
