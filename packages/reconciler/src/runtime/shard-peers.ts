/**
 * The cross-shard view of a sharded operator (docs/reference/runtime.md §25.5, ADR 0058): a shard's
 * primary caches hold only its own CRs, so what spans CRs — cross reads of another entry, the Live
 * API's and object path's CR answers, the rollout gate on the leader — reads a projected cache of
 * every CR of the kinds it needs, kept by one extra watch per such kind. The projection drops what
 * no reader uses (`managedFields`, the last-applied annotation; and `spec` for kinds only the
 * rollout gate reads), so a CR costs a fraction of its full object.
 */
import type { ObjectCache, CacheChange } from '../cache.js';
import { LAST_APPLIED_ANNOTATION } from '../cache.js';
import { Informer } from '../informer.js';
import type { ResourceRef } from '../informer.js';
import type {
  ListWatchClient,
  ListResponse,
  RawWatchEvent,
  WatchHandle,
  WatchHandlers,
} from '../list-watch-client.js';

/** PeerProjection is what a peer cache keeps of each CR: the whole object minus bookkeeping, or metadata and status. */
export type PeerProjection = 'object' | 'status';

/** PeerKind is one CR kind of the cross-shard view. */
export interface PeerKind {
  /** The Katalog entry. */
  readonly entry: string;
  readonly resource: ResourceRef;
  readonly projection: PeerProjection;
}

/** ShardPeersOptions configures ShardPeers. */
export interface ShardPeersOptions {
  /** The runtime's list/watch client (whole objects; projected here). */
  readonly listWatch: ListWatchClient;
  /** Kinds watched from `start` (cross-read targets, entries with `crossAccess`). */
  readonly kinds: readonly PeerKind[];
  /** Kinds watched only after `watchAll` (the rollout gate on the leader). */
  readonly onDemand?: readonly PeerKind[];
  /** Watch only this namespace's CRs. Default all. */
  readonly namespace?: string | undefined;
  readonly watchIdleTimeoutMs?: number;
  readonly logger?: { warn(fields: Readonly<Record<string, unknown>>, message: string): void };
  /** Every change of a peer cache (cross readers re-queue on it). */
  readonly onChange?: (entry: string, change: CacheChange) => void;
}

/**
 * ShardPeers keeps the cross-shard caches of a sharded runtime.
 *
 * @example
 * const peers = new ShardPeers({ listWatch, kinds: [{ entry: 'db', resource, projection: 'object' }] });
 * peers.start();
 * peers.cache('db')?.getByName('shop', 'main');
 */
export class ShardPeers {
  readonly #options: ShardPeersOptions;
  readonly #informers = new Map<string, Informer>();
  readonly #onDemand: Map<string, PeerKind>;
  readonly #initial: Set<string>;
  #started = false;

  constructor(options: ShardPeersOptions) {
    this.#options = options;
    this.#onDemand = new Map((options.onDemand ?? []).map((kind) => [kind.entry, kind]));
    for (const kind of options.kinds) this.#make(kind);
    this.#initial = new Set(options.kinds.map((kind) => kind.entry));
  }

  /** entries are the entries watched now. */
  entries(): string[] {
    return [...this.#informers.keys()];
  }

  /** cache is an entry's cross-shard cache; undefined when the entry has none. */
  cache(entry: string): ObjectCache | undefined {
    return this.#informers.get(entry)?.cache;
  }

  informers(): Informer[] {
    return [...this.#informers.values()];
  }

  start(): void {
    this.#started = true;
    for (const informer of this.#informers.values()) informer.start();
  }

  /** watchAll adds the on-demand kinds (the leader's rollout gate); started when the view is. */
  watchAll(): void {
    for (const kind of this.#onDemand.values()) {
      if (this.#informers.has(kind.entry)) continue;
      const informer = this.#make(kind);
      if (this.#started) informer.start();
    }
  }

  /** hasSynced: every watched kind has listed (`initialOnly`: the kinds watched from the start). */
  hasSynced(initialOnly = false): boolean {
    return [...this.#informers].every(
      ([entry, informer]) => (initialOnly && !this.#initial.has(entry)) || informer.hasSynced(),
    );
  }

  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.#informers.values()].map((informer) => informer.waitForSync(signal)));
  }

  async stop(): Promise<void> {
    this.#started = false;
    await Promise.all([...this.#informers.values()].map((informer) => informer.stop()));
  }

  #make(kind: PeerKind): Informer {
    const informer = new Informer({
      client: projectingClient(this.#options.listWatch, kind.projection),
      resource: kind.resource,
      ...(kind.resource.namespaced && this.#options.namespace != null
        ? { namespace: this.#options.namespace }
        : {}),
      ...(this.#options.watchIdleTimeoutMs == null
        ? {}
        : { watchIdleTimeoutMs: this.#options.watchIdleTimeoutMs }),
      ...(this.#options.logger == null ? {} : { logger: this.#options.logger }),
    });
    const onChange = this.#options.onChange;
    if (onChange != null) informer.subscribe((change) => onChange(kind.entry, change));
    this.#informers.set(kind.entry, informer);
    return informer;
  }
}

/** projectingClient projects every listed and watched object before the cache keeps it. */
export function projectingClient(client: ListWatchClient, projection: PeerProjection): ListWatchClient {
  return {
    list: async (path, query, signal): Promise<ListResponse> => {
      const page = await client.list(path, query, signal);
      return page.items == null
        ? page
        : { ...page, items: page.items.map((item) => project(item, projection)) };
    },
    watch: (path, query, handlers: WatchHandlers): WatchHandle =>
      client.watch(path, query, {
        onEvent: (event: RawWatchEvent) =>
          handlers.onEvent(
            event.type === 'BOOKMARK' || event.type === 'ERROR'
              ? event
              : { type: event.type, object: project(event.object, projection) },
          ),
        onClose: handlers.onClose,
      }),
  };
}

/** project keeps what cross reads, the Live API and the rollout gate read of a CR. */
export function project(object: unknown, projection: PeerProjection): unknown {
  if (object == null || typeof object !== 'object') return object;
  const source = object as Record<string, unknown>;
  const metadata = { ...((source['metadata'] ?? {}) as Record<string, unknown>) };
  delete metadata['managedFields'];
  const annotations = metadata['annotations'] as Record<string, string> | undefined;
  if (annotations?.[LAST_APPLIED_ANNOTATION] != null) {
    const { [LAST_APPLIED_ANNOTATION]: _dropped, ...rest } = annotations;
    metadata['annotations'] = rest;
  }
  const out: Record<string, unknown> = { ...source, metadata };
  if (projection === 'status') {
    delete out['spec'];
    const status = source['status'] as Record<string, unknown> | undefined;
    if (status != null)
      out['status'] = {
        ...(status['katalogRevision'] == null ? {} : { katalogRevision: status['katalogRevision'] }),
        ...(status['conditions'] == null ? {} : { conditions: status['conditions'] }),
        ...(status['phase'] == null ? {} : { phase: status['phase'] }),
      };
  }
  return out;
}
