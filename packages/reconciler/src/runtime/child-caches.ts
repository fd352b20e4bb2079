/**
 * The child informers of a Katalog (docs/reference/runtime.md §3.1): one list+watch per child kind, selected by
 * the managed-by label and the CRD entries that use the kind, behind the registry's ObjectReader.
 */
import type { GroupVersionKind, KubeObject, ObjectReader, ObjectRef } from '@orkestra/registry';
import { MANAGED_BY, OrkestraLabel } from '@orkestra/types';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import { readinessTransition } from '../readiness/transition.js';
import { Priority } from '../work-queue.js';
import { InformerGroup } from './informer-group.js';
import type { InformerGroupOptions } from './informer-group.js';

/** ChildKindSpec is one child kind to watch and the CRD entries that use it. */
export interface ChildKindSpec {
  readonly apiVersion: string;
  readonly kind: string;
  readonly crds: readonly string[];
}

/** ChildCachesOptions configures ChildCaches. */
export interface ChildCachesOptions extends InformerGroupOptions {
  readonly kinds: readonly ChildKindSpec[];
  /** Sharded operators (ADR 0045): a label selector added to every child informer's, e.g. `orkestra.konductor.io/shard=<id>`. */
  readonly shardSelector?: string | undefined;
}

/** ChildRoute is where a child change sends its owner's key (docs/reference/runtime.md §4). */
export interface ChildRoute {
  /** The CRD entry (the child's crd label). */
  readonly crd: string;
  /** The owner CR's UID (the child's owner-UID label). */
  readonly ownerUid: string;
  /** Whether the change is the echo of the runtime's own write (adds and updates only). */
  readonly isOwnWrite: (() => boolean) | undefined;
  /** `high` when the change moved the child's readiness state (ADR 0014), else `normal`. */
  readonly priority: Priority;
}

/**
 * routeChildChange maps a child change to its owner: crd label → entry, owner-UID label → CR,
 * and the lane — `high` for a readiness transition (`readiness/transition.ts`), so the owner's
 * Ready follows ahead of other CRs' progress events (runtime.md §5.3). Undefined for an unlabeled child.
 */
export function routeChildChange(
  change: CacheChange,
  isOwnVersion: (object: KubeObject) => boolean,
): ChildRoute | undefined {
  const labels = change.object.metadata.labels ?? {};
  const crd = labels[OrkestraLabel.Crd];
  const ownerUid = labels[OrkestraLabel.OwnerUid];
  if (crd == null || ownerUid == null) return undefined;
  return {
    crd,
    ownerUid,
    // docs/reference/runtime.md §4: an add or update that echoes the runtime's own write does not re-run the owner.
    isOwnWrite: change.type === CacheChangeType.Delete ? undefined : () => isOwnVersion(change.object),
    priority: readinessTransition(change) ? Priority.High : Priority.Normal,
  };
}

/** gvkKey is `apiVersion/Kind`, the key of a child kind. */
function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.apiVersion}/${gvk.kind}`;
}

/**
 * ChildCaches runs one Informer per child kind and serves them as the registry's ObjectReader:
 * `get` by kind, namespace and name; `listOwned` by the owner-UID index. Writes are put into the
 * caches with `upsertFromWrite`, so the watch echo of the runtime's own write is ignored.
 */
export class ChildCaches extends InformerGroup implements ObjectReader {
  readonly #kinds: readonly ChildKindSpec[];
  readonly #shardSelector: string | undefined;
  readonly #listeners = new Set<(change: CacheChange) => void>();
  #started = false;

  constructor(options: ChildCachesOptions) {
    super(options);
    this.#kinds = options.kinds;
    this.#shardSelector = options.shardSelector;
  }

  /** subscribe registers a listener for every change of every child cache. */
  subscribe(listener: (change: CacheChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** start discovers each kind's resource and starts its informer, selected by the managed-by and crd labels. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const spec of this.#kinds) {
      const crds = [...new Set(spec.crds)].sort();
      const informer = await this.open(gvkKey(spec), spec, () => ({
        labelSelector: `${OrkestraLabel.ManagedBy}=${MANAGED_BY},${OrkestraLabel.Crd} in (${crds.join(',')})${this.#shardSelector == null ? '' : `,${this.#shardSelector}`}`,
      }));
      informer.subscribe((change) => {
        for (const listener of this.#listeners) listener(change);
      });
      informer.start();
    }
  }

  /** watches tells whether a kind is watched (its cache can answer). */
  watches(gvk: GroupVersionKind): boolean {
    return this.byKey.has(gvkKey(gvk));
  }

  get(ref: ObjectRef): KubeObject | undefined {
    return this.byKey.get(gvkKey(ref))?.cache.getByName(ref.namespace, ref.name);
  }

  /** covers: the kind's informer has listed once, so a miss is most likely an absent child (ADR 0097). */
  covers(ref: ObjectRef): boolean {
    return this.byKey.get(gvkKey(ref))?.hasSynced() ?? false;
  }

  listOwned(ownerUid: string, kind: GroupVersionKind): readonly KubeObject[] {
    return this.byKey.get(gvkKey(kind))?.cache.listByOwnerUid(ownerUid) ?? [];
  }

  /** listAllOwned returns every cached child of any kind whose owner-UID label is `ownerUid`. */
  listAllOwned(ownerUid: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const informer of this.byKey.values()) out.push(...informer.cache.listByOwnerUid(ownerUid));
    return out;
  }

  /** isOwnVersion tells whether this version of the object came from one of the runtime's writes. */
  isOwnVersion(object: KubeObject): boolean {
    return this.byKey.get(gvkKey(object))?.cache.isOwnVersion(object.metadata.resourceVersion) ?? false;
  }

  /** upsertFromWrite puts a write's result into its kind's cache (read after write). */
  upsertFromWrite(object: KubeObject): void {
    this.byKey.get(gvkKey(object))?.cache.upsertFromWrite(object);
  }
}
