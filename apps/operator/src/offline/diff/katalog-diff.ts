/**
 * The computation of `ork diff` (docs/reference/runtime.md §21.1): each CR of a snapshot is run once
 * through the offline engine — the same `CrdPipeline` as `ork render` and the runtime — seeded
 * with the cluster's objects, and what that run writes is turned into a diff against the snapshot:
 * children added (created or applied where none is live), changed (the fields one apply changes,
 * field-diff.ts), pruned (deleted), the CR's own spec/metadata changes (mutation rules, the
 * finalizer) and its status fields.
 */
import { OrkestraLabel } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { refOf } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { OfflineEngine, hookRoots } from '@orkestra/reconciler/offline';
import type { OfflineResults, OfflineRun, ProviderResultInput } from '@orkestra/reconciler/offline';
import { createTemplateEngine } from '@orkestra/template';
import { createSeededRandom } from '../../process/seeded-random.js';
import { diffManagedFields, diffValues, hiddenSecretValues } from './field-diff.js';
import type { FieldChange } from './field-diff.js';
import { crKindsOf } from './snapshot.js';
import type { Snapshot } from './snapshot.js';
import { isMap } from '../../is-map.js';
import { versionViews } from '../../conversion/version-view.js';
import type { VersionView } from '../../conversion/version-view.js';

/** ChildChange is what the new Katalog does to one child. */
export type ChildChange = 'added' | 'changed' | 'pruned';

/** ChildDiff is one child the new Katalog would change. */
export interface ChildDiff {
  readonly change: ChildChange;
  readonly ref: ObjectRef;
  /** changed: the fields one apply changes. */
  readonly fields: readonly FieldChange[];
  /** added: the object as it would be sent (Secret values hidden). */
  readonly object?: KubeObject;
}

/** CrDiff is the diff of one CR. */
export interface CrDiff {
  readonly ref: ObjectRef;
  readonly entry: string;
  readonly children: readonly ChildDiff[];
  /** The CR's own spec, labels, annotations and finalizers (mutation rules, the finalizer). */
  readonly cr: readonly FieldChange[];
  readonly status: readonly FieldChange[];
  /** Ready after the run, as the status would say. */
  readonly ready: { readonly status: string; readonly reason: string; readonly message: string };
  /** What the run could not compute (results it had to assume). */
  readonly notes: readonly string[];
}

/** KatalogDiff is the diff of every CR of a snapshot. */
export interface KatalogDiff {
  readonly crs: readonly CrDiff[];
  /** Each CRD's storage and served versions, in the Katalog and live, and a pending storage migration. */
  readonly versions: readonly VersionView[];
  readonly notes: readonly string[];
  /** Whether anything would change. */
  readonly changed: boolean;
}

/** DiffKatalogOptions configures diffKatalog. */
export interface DiffKatalogOptions {
  /** The time of the run (conditions, `now`). */
  readonly now: Date;
}

type Json = Record<string, unknown>;
/** Status fields whose change is only the time of this run. */
const STATUS_TIME_FIELDS: ReadonlySet<string> = new Set([
  'lastTransitionTime',
  'lastUpdateTime',
  'lastReconcileTime',
  'lastSuccessTime',
  'since',
]);

/** CR metadata fields the API server (or the memory cluster) sets. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'];

function key(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

function compareRefs(a: ObjectRef, b: ObjectRef): number {
  return key(a).localeCompare(key(b));
}

/**
 * diffKatalog runs every CR of the snapshot of the Katalog's kinds once offline and returns what
 * would change, CRs and children in identity order.
 */
export async function diffKatalog(
  katalog: Katalog,
  snapshot: Snapshot,
  options: DiffKatalogOptions,
): Promise<KatalogDiff> {
  const kinds = crKindsOf(katalog);
  const isCr = (o: KubeObject): boolean =>
    kinds.some((k) => k.apiVersion === o.apiVersion && k.kind === o.kind);
  const crs = snapshot.objects.filter(isCr).sort((a, b) => compareRefs(refOf(a), refOf(b)));
  const others = snapshot.objects.filter((o) => !isCr(o));
  const out: CrDiff[] = [];
  const notes = [...snapshot.notes];
  for (const cr of crs) {
    if (cr.metadata['deletionTimestamp'] != null) {
      // The deletion path runs whatever the Katalog says; there is nothing a new Katalog changes.
      const { kind, metadata } = cr;
      notes.push(
        `${kind} ${metadata.namespace == null ? '' : `${metadata.namespace}/`}${metadata.name ?? ''} is being deleted; not compared`,
      );
      continue;
    }
    out.push(await diffOne(katalog, cr, crs, others, options.now));
  }
  const versions = versionViews(katalog, snapshot.crds ?? { crds: [], missing: 'not read' });
  const changed =
    out.some((d) => d.children.length > 0 || d.status.length > 0 || d.cr.length > 0) ||
    versions.some((v) => v.changed);
  return { crs: out, versions, notes, changed };
}

async function diffOne(
  katalog: Katalog,
  cr: KubeObject,
  crs: readonly KubeObject[],
  others: readonly KubeObject[],
  now: Date,
): Promise<CrDiff> {
  const ref = refOf(cr);
  const uid = cr.metadata.uid ?? '';
  const inventory = new Set(inventoryKeys(cr));
  const children = others.filter(
    (o) =>
      (uid !== '' && o.metadata.labels?.[OrkestraLabel.OwnerUid] === uid) || inventory.has(key(refOf(o))),
  );
  const clock = { now: () => now.getTime(), setTimeout: () => ({}), clearTimeout: () => undefined };
  const engine = new OfflineEngine({
    katalog,
    clock,
    engine: createTemplateEngine({ random: createSeededRandom(uid || key(ref)), clock }),
    crossReads: 'cluster',
  });
  // Every CR of the Katalog's kinds is there for cross reads; the children are this CR's only.
  for (const object of [...crs, ...children]) engine.cluster.restore(object);
  engine.results = resultsFromStatus(cr);
  const before = engine.cluster.get(ref) ?? cr;
  const run = await engine.reconcile(ref);
  const live = new Map(children.map((c) => [key(refOf(c)), c]));
  return {
    ref,
    entry: run.entry,
    children: childDiffs(run, ref, live, engine),
    cr: diffValues(crFields(before), crFields(run.cr ?? before), ''),
    status: diffValues(before['status'] ?? {}, run.cr?.['status'] ?? {}, 'status', STATUS_TIME_FIELDS),
    ready: readyOf(run),
    notes: run.notes,
  };
}

/** childDiffs turns a run's writes to children into added, changed and pruned children. */
function childDiffs(
  run: OfflineRun,
  crRef: ObjectRef,
  live: ReadonlyMap<string, KubeObject>,
  engine: OfflineEngine,
): ChildDiff[] {
  const diffs = new Map<string, ChildDiff>();
  const crKey = key(crRef);
  for (const write of run.writes) {
    const id = key(write.ref);
    if (id === crKey) continue;
    const existing = live.get(id);
    if ((write.verb === 'apply' || write.verb === 'create') && write.body != null) {
      if (existing == null) {
        diffs.set(id, {
          change: 'added',
          ref: write.ref,
          fields: [],
          object: hiddenSecretValues(write.body),
        });
        continue;
      }
      const fields = diffManagedFields(existing, write.body);
      if (fields.length > 0) diffs.set(id, { change: 'changed', ref: write.ref, fields });
      else diffs.delete(id);
    } else if (write.verb === 'patch' && existing != null) {
      const after = engine.cluster.get(write.ref);
      if (after == null) continue;
      const fields = diffManagedFields(existing, withoutServerMetadata(after));
      if (fields.length > 0) diffs.set(id, { change: 'changed', ref: write.ref, fields });
    } else if (write.verb === 'delete' && existing != null) {
      diffs.set(id, { change: 'pruned', ref: write.ref, fields: [] });
    }
  }
  return [...diffs.values()].sort((a, b) => compareRefs(a.ref, b.ref));
}

function withoutServerMetadata(object: KubeObject): KubeObject {
  const metadata = Object.fromEntries(
    Object.entries(object.metadata).filter(([k]) => !SERVER_METADATA.includes(k)),
  ) as KubeObject['metadata'];
  const { status: _s, ...rest } = object;
  return { ...rest, metadata };
}

/** crFields is the part of a CR a run may write besides status. */
function crFields(cr: KubeObject): Json {
  const m = cr.metadata;
  return {
    metadata: {
      ...(m.labels == null ? {} : { labels: m.labels }),
      ...(m.annotations == null ? {} : { annotations: m.annotations }),
      ...(m['finalizers'] == null ? {} : { finalizers: m['finalizers'] }),
    },
    ...(cr['spec'] === undefined ? {} : { spec: cr['spec'] }),
  };
}

function inventoryKeys(cr: KubeObject): string[] {
  const inventory = isMap(cr['status']) ? cr['status']['inventory'] : undefined;
  if (!Array.isArray(inventory)) return [];
  return inventory.filter(isMap).map((item) =>
    key({
      apiVersion: String(item['apiVersion']),
      kind: String(item['kind']),
      name: String(item['name']),
      ...(typeof item['namespace'] === 'string' ? { namespace: item['namespace'] } : {}),
    }),
  );
}

/**
 * resultsFromStatus answers provider calls as the CR's status last recorded them
 * (`status.providers.<provider>.<declaration>`: ready, message and outputs), so an unchanged
 * provider declaration keeps its recorded outputs instead of reading as pending.
 */
function resultsFromStatus(cr: KubeObject): OfflineResults {
  // The provider hook's root is also its status field (docs/reference/katalog.md §13.1).
  const root = hookRoots.find((r) => r.results === 'by-provider')?.key;
  const recorded = root != null && isMap(cr['status']) ? cr['status'][root] : undefined;
  if (root == null || !isMap(recorded)) return {};
  const providers: Record<string, Record<string, ProviderResultInput>> = {};
  for (const [provider, block] of Object.entries(recorded)) {
    if (!isMap(block)) continue;
    const declarations: Record<string, ProviderResultInput> = {};
    for (const [name, value] of Object.entries(block)) {
      if (!isMap(value)) continue;
      const { ready, message, ...outputs } = value;
      declarations[name] = {
        ready: ready === true,
        ...(typeof message === 'string' && message !== '' ? { message } : {}),
        outputs,
      };
    }
    providers[provider] = declarations;
  }
  return { [root]: providers };
}

function readyOf(run: OfflineRun): CrDiff['ready'] {
  const conditions = isMap(run.cr?.['status']) ? (run.cr['status'] as Json)['conditions'] : undefined;
  const ready = Array.isArray(conditions)
    ? (conditions as unknown[]).filter(isMap).find((c) => c['type'] === 'Ready')
    : undefined;
  if (ready != null)
    return {
      status: String(ready['status']),
      reason: String(ready['reason'] ?? ''),
      message: String(ready['message'] ?? ''),
    };
  return {
    status: run.error == null ? 'Unknown' : 'False',
    reason: run.error?.code ?? '',
    message: run.error?.message ?? '',
  };
}
