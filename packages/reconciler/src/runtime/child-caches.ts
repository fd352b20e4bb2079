/**
 * The child informers of a Katalog (docs/reference/runtime.md §3.1): one list+watch per child kind, selected by
 * the managed-by label and the CRD entries that use the kind, behind the registry's ObjectReader.
 */
import type { GroupVersionKind, KubeClient, KubeObject, ObjectReader, ObjectRef } from '@orkestra/registry';
import { MANAGED_BY, OrkestraLabel } from '@orkestra/types';
import type { Clock } from '../clock.js';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import { Informer } from '../informer.js';
import type { InformerLogger, InformerOptions, ResourceRef } from '../informer.js';
import type { ListWatchClient } from '../list-watch-client.js';
import { readinessTransition } from '../readiness/transition.js';
import { Priority } from '../work-queue.js';
import { resourceLabel } from './runtime-observer.js';
import type { RuntimeObserver } from './runtime-observer.js';

/** ChildKindSpec is one child kind to watch and the CRD entries that use it. */
export interface ChildKindSpec {
  readonly apiVersion: string;
  readonly kind: string;
  readonly crds: readonly string[];
}

/** ChildCachesOptions configures ChildCaches. */
export interface ChildCachesOptions {
  readonly kinds: readonly ChildKindSpec[];
  readonly listWatch: ListWatchClient;
  /** Used for discovery of plurals and scopes (built-in kinds cost no request). */
  readonly client: Pick<KubeClient, 'discover'>;
  /** For namespaced kinds: watch only this namespace. */
  readonly namespace?: string;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly logger?: InformerLogger;
  readonly watchIdleTimeoutMs?: number;
  /** Receives relists, watch restarts and events of every child informer. Default: none. */
  readonly observer?: RuntimeObserver;
}

/** ChildRoute is where a child change sends its owner's key (docs/reference/runtime.md §4). */
export interface ChildRoute {
  /** The CRD entry (the child's crd label). */
  readonly crd: string;
  /** The owner CR's UID (the child's owner-UID label). */
  readonly ownerUid: string;
  /** Whether the change is the echo of the runtime's own write (adds and updates only). */
  readonly isOwnWrite: (() => boolean) | undefined;
  /** `high` when the change moved the child's readiness state (issue 18), else `normal`. */
  readonly priority: Priority;
}

/**
 * routeChildChange maps a child change to its owner: crd label → entry, owner-UID label → CR,
 * and the lane — `high` for a readiness transition (`readiness/transition.ts`), so the owner's
 * Ready follows ahead of other CRs' progress events (§5.3). Undefined for an unlabeled child.
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
    // issue 19: an add or update that echoes the runtime's own write does not re-run the owner.
    isOwnWrite: change.type === CacheChangeType.Delete ? undefined : () => isOwnVersion(change.object),
    priority: readinessTransition(change) ? Priority.High : Priority.Normal,
  };
}

/** observedInformer wires an informer's relists, watch restarts and events to the runtime observer. */
export function observedInformer(
  observer: RuntimeObserver | undefined,
  resource: ResourceRef,
): Pick<InformerOptions, 'onRelist' | 'onWatchRestart' | 'onEvent'> {
  if (observer == null) return {};
  const label = resourceLabel(resource);
  return {
    onRelist: (reason) => observer.informerRelist(label, reason),
    onWatchRestart: () => observer.informerWatchRestart(label),
    onEvent: (atMs) => observer.informerEvent(label, atMs / 1000),
  };
}

/** splitApiVersion splits `group/version` (the core group is ''). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
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
export class ChildCaches implements ObjectReader {
  readonly #options: ChildCachesOptions;
  readonly #informers = new Map<string, Informer>();
  readonly #listeners = new Set<(change: CacheChange) => void>();
  #started = false;

  constructor(options: ChildCachesOptions) {
    this.#options = options;
  }

  /** informers lists the running informers by `apiVersion/Kind`. */
  get informers(): ReadonlyMap<string, Informer> {
    return this.#informers;
  }

  /** subscribe registers a listener for every change of every child cache. */
  subscribe(listener: (change: CacheChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** start discovers each kind's resource and starts its informer. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const spec of this.#options.kinds) {
      const info = await this.#options.client.discover(spec);
      const { group, version } = splitApiVersion(spec.apiVersion);
      const resource: ResourceRef = {
        group,
        version,
        plural: info.plural,
        kind: spec.kind,
        namespaced: info.namespaced,
      };
      const crds = [...new Set(spec.crds)].sort();
      const informer = new Informer({
        ...observedInformer(this.#options.observer, resource),
        client: this.#options.listWatch,
        resource,
        labelSelector: `${OrkestraLabel.ManagedBy}=${MANAGED_BY},${OrkestraLabel.Crd} in (${crds.join(',')})`,
        ...(info.namespaced && this.#options.namespace != null ? { namespace: this.#options.namespace } : {}),
        ...(this.#options.clock == null ? {} : { clock: this.#options.clock }),
        ...(this.#options.random == null ? {} : { random: this.#options.random }),
        ...(this.#options.logger == null ? {} : { logger: this.#options.logger }),
        ...(this.#options.watchIdleTimeoutMs == null
          ? {}
          : { watchIdleTimeoutMs: this.#options.watchIdleTimeoutMs }),
      });
      informer.subscribe((change) => {
        for (const listener of this.#listeners) listener(change);
      });
      this.#informers.set(gvkKey(spec), informer);
      informer.start();
    }
  }

  /** waitForSync resolves when every child informer has listed once. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(signal)));
  }

  /** hasSynced tells whether every child informer has listed once. */
  hasSynced(): boolean {
    return [...this.#informers.values()].every((i) => i.hasSynced());
  }

  /** stop stops every informer. */
  async stop(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }

  /** watches tells whether a kind is watched (its cache can answer). */
  watches(gvk: GroupVersionKind): boolean {
    return this.#informers.has(gvkKey(gvk));
  }

  get(ref: ObjectRef): KubeObject | undefined {
    return this.#informers.get(gvkKey(ref))?.cache.getByName(ref.namespace, ref.name);
  }

  listOwned(ownerUid: string, kind: GroupVersionKind): readonly KubeObject[] {
    return this.#informers.get(gvkKey(kind))?.cache.listByOwnerUid(ownerUid) ?? [];
  }

  /** listAllOwned returns every cached child of any kind whose owner-UID label is `ownerUid`. */
  listAllOwned(ownerUid: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const informer of this.#informers.values()) out.push(...informer.cache.listByOwnerUid(ownerUid));
    return out;
  }

  /** isOwnVersion tells whether this version of the object came from one of the runtime's writes. */
  isOwnVersion(object: KubeObject): boolean {
    return this.#informers.get(gvkKey(object))?.cache.isOwnVersion(object.metadata.resourceVersion) ?? false;
  }

  /** upsertFromWrite puts a write's result into its kind's cache (read after write). */
  upsertFromWrite(object: KubeObject): void {
    this.#informers.get(gvkKey(object))?.cache.upsertFromWrite(object);
  }
}
