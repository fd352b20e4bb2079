/**
 * The watch triggers of a Katalog (docs/reference/runtime.md §4.1, katalog.md §3.2): one list+watch
 * per distinct `watch` item of the entries, whose changes re-queue CRs — the CR named by
 * `keyFrom`, else the owner CR by ownerReference, else every CR of the entry. A watch item's
 * `enqueueGate` is decided for the watched object before anything is re-queued.
 */
import type { KubeObject } from '@orkestra/registry';
import { MANAGED_BY, OrkestraLabel } from '@orkestra/types';
import type { EvaluateConditionsOptions, WatchItem } from '@orkestra/types';
import { computeSentinels, evaluateGate } from './gates.js';
import type { GateVerdict } from './gates.js';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import { InformerGroup } from './informer-group.js';
import type { InformerGroupOptions } from './informer-group.js';

/** WatchingEntry is one CRD entry with its `watch` items. */
export interface WatchingEntry {
  readonly name: string;
  readonly namespaced: boolean;
  readonly items: readonly WatchItem[];
}

/** WatchRoute is what a change of a watched object re-queues for one entry. */
export type WatchRoute =
  | { readonly kind: 'none' }
  /** These CR keys (`namespace/name`, or `name` for a cluster-scoped entry). */
  | { readonly kind: 'keys'; readonly keys: readonly string[] }
  /** The CRs with these UIDs (ownerReferences), when they are CRs of the entry. */
  | { readonly kind: 'owners'; readonly uids: readonly string[] }
  /** Every CR of the entry (a shared object with no owner among them). */
  | { readonly kind: 'all' };

const EVENT_OF: Readonly<Record<CacheChange['type'], WatchItem['on'][number]>> = {
  [CacheChangeType.Add]: 'create',
  [CacheChangeType.Update]: 'update',
  [CacheChangeType.Delete]: 'delete',
};

/** crKey qualifies a CR name with a namespace for a namespaced entry (undefined when there is none). */
function crKey(entry: WatchingEntry, name: string, namespace: string | undefined): string | undefined {
  if (!entry.namespaced) return name;
  return namespace == null || namespace === '' ? undefined : `${namespace}/${name}`;
}

/**
 * routeWatchChange decides which CRs of `entry` a change of a watched object re-queues: none when
 * the change type is not in `on`, the name differs, or the object is a child of this entry (its
 * changes reach the owner through the child caches); `keyFrom.name` → that CR (a namespaced
 * entry's CR is taken in `keyFrom.namespace`, else the object's namespace); `keyFrom.label` → the
 * CR the label names (`namespace/name`, or `name` in the object's namespace); otherwise the CRs
 * the object's ownerReferences point to, and every CR of the entry when it has no owner among them.
 */
export function routeWatchChange(
  change: CacheChange,
  item: WatchItem,
  entry: WatchingEntry,
  isCrUid: (uid: string) => boolean,
): WatchRoute {
  if (!item.on.includes(EVENT_OF[change.type])) return { kind: 'none' };
  const object: KubeObject = change.object;
  const { name, namespace } = object.metadata;
  if (item.name != null && name !== item.name) return { kind: 'none' };
  if (item.namespace != null && namespace != null && namespace !== '' && namespace !== item.namespace)
    return { kind: 'none' };
  const labels = object.metadata.labels ?? {};
  // An `enrich` watch (docs/reference/katalog.md §3.5): the CR the owner-uid label names, or nothing.
  if ('enrich' in item && item.enrich === true) {
    const owner = labels[OrkestraLabel.OwnerUid];
    return owner != null && isCrUid(owner) ? { kind: 'owners', uids: [owner] } : { kind: 'none' };
  }
  if (labels[OrkestraLabel.ManagedBy] === MANAGED_BY && labels[OrkestraLabel.Crd] === entry.name)
    return { kind: 'none' };
  const keyFrom = item.keyFrom;
  if (keyFrom?.name != null) {
    const key = crKey(entry, keyFrom.name, keyFrom.namespace ?? namespace);
    return key == null ? { kind: 'none' } : { kind: 'keys', keys: [key] };
  }
  if (keyFrom?.label != null) {
    const value = labels[keyFrom.label];
    if (value == null || value === '') return { kind: 'none' };
    const slash = value.indexOf('/');
    const key =
      slash >= 0 ? (entry.namespaced ? value : value.slice(slash + 1)) : crKey(entry, value, namespace);
    return key == null ? { kind: 'none' } : { kind: 'keys', keys: [key] };
  }
  const owners = (object.metadata.ownerReferences ?? [])
    .map((ref) => ref.uid)
    .filter((uid): uid is string => typeof uid === 'string' && isCrUid(uid));
  return owners.length > 0 ? { kind: 'owners', uids: owners } : { kind: 'all' };
}

/**
 * admitWatchChange decides a watch item's `enqueueGate` (docs/reference/katalog.md §3.2) for a
 * change of a watched object, with the same evaluator as the entry's enqueue gate (§20.3): the
 * context is the watched object (`apiVersion`, `kind`, `metadata`, `spec`, `status` and its other
 * top-level fields, such as a ConfigMap's `data`) and the sentinels comparing it with its previous
 * version. A delete, and an item without a gate, always pass.
 */
export function admitWatchChange(
  change: CacheChange,
  item: WatchItem,
  conditions: EvaluateConditionsOptions,
): GateVerdict {
  if (item.enqueueGate == null || change.type === CacheChangeType.Delete) return { passed: true };
  return evaluateGate(
    item.enqueueGate,
    change.object,
    computeSentinels(change.old, change.object),
    conditions,
  );
}

/** WatchTriggersOptions configures WatchTriggers. */
export interface WatchTriggersOptions extends InformerGroupOptions {
  readonly entries: readonly WatchingEntry[];
  /** Whether a UID is a CR of the named entry. */
  readonly isCrUid: (entry: string, uid: string) => boolean;
  /** Receives every route that re-queues something. */
  readonly onRoute: (entry: string, route: Exclude<WatchRoute, { kind: 'none' }>) => void;
  /** How the entries' watch gates evaluate conditions (the templates, the clock). */
  readonly conditions: EvaluateConditionsOptions;
  /** Told of each change a watch item's `enqueueGate` held (the metric, a debug log). */
  readonly onGated?: ((entry: string, verdict: Extract<GateVerdict, { passed: false }>) => void) | undefined;
}

interface Subscriber {
  readonly entry: WatchingEntry;
  readonly item: WatchItem;
}

/** itemKey identifies the list+watch a watch item needs: kind, namespace and name. */
function itemKey(item: WatchItem): string {
  return [
    item.apiVersion,
    item.kind,
    item.namespace ?? '',
    item.name ?? '',
    fieldSelectorOf(item) ?? '',
  ].join('\u0000');
}

/** fieldSelectorOf is an enrich watch's own field selector (`events`: `type=Warning`), else none. */
const fieldSelectorOf = (item: WatchItem): string | undefined =>
  'fieldSelector' in item && typeof item.fieldSelector === 'string' ? item.fieldSelector : undefined;

/**
 * WatchTriggers runs one Informer per distinct `(apiVersion, kind, namespace, name)` of the
 * entries' watch items — a `name` becomes the field selector `metadata.name=<name>` — and routes
 * each change through routeWatchChange to `onRoute`.
 *
 * @example
 * const triggers = new WatchTriggers({ entries, listWatch, client, isCrUid, onRoute });
 * await triggers.start();
 * await triggers.waitForSync();
 */
export class WatchTriggers extends InformerGroup {
  readonly #isCrUid: WatchTriggersOptions['isCrUid'];
  readonly #onRoute: WatchTriggersOptions['onRoute'];
  readonly #conditions: EvaluateConditionsOptions;
  readonly #onGated: WatchTriggersOptions['onGated'];
  readonly #subscribers = new Map<string, Subscriber[]>();
  #started = false;

  constructor(options: WatchTriggersOptions) {
    super(options);
    this.#isCrUid = options.isCrUid;
    this.#onRoute = options.onRoute;
    this.#conditions = options.conditions;
    this.#onGated = options.onGated;
    for (const entry of options.entries)
      for (const item of entry.items) {
        const key = itemKey(item);
        const list = this.#subscribers.get(key) ?? [];
        list.push({ entry, item });
        this.#subscribers.set(key, list);
      }
  }

  /**
   * objects returns the cached objects of the un-narrowed item of a kind (every namespace the
   * operator watches; empty when no entry watches it so) — what `enrich` reads (docs/reference/katalog.md §3.5).
   */
  objects(
    apiVersion: string,
    kind: string,
    namespace: string,
    fieldSelector?: string,
  ): readonly KubeObject[] {
    const item = { apiVersion, kind, on: [], ...(fieldSelector == null ? {} : { fieldSelector }) };
    const informer = this.byKey.get(itemKey(item));
    return (informer?.cache.list() ?? []).filter((o) => (o.metadata.namespace ?? '') === namespace);
  }

  /** start discovers each kind's resource and starts its informer (a named item by field selector). */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const [key, subscribers] of this.#subscribers) {
      const item = subscribers[0]?.item;
      if (item == null) continue;
      const informer = await this.open(key, item, () => ({
        namespace: item.namespace,
        fieldSelector: item.name == null ? fieldSelectorOf(item) : `metadata.name=${item.name}`,
      }));
      informer.subscribe((change) => {
        for (const { entry, item: watched } of subscribers) {
          const route = routeWatchChange(change, watched, entry, (uid) => this.#isCrUid(entry.name, uid));
          if (route.kind === 'none') continue;
          const verdict = admitWatchChange(change, watched, this.#conditions);
          if (verdict.passed) this.#onRoute(entry.name, route);
          else this.#onGated?.(entry.name, verdict);
        }
      });
      informer.start();
    }
  }
}
