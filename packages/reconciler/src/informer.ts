import { systemClock } from './clock.js';
import type { Clock, TimerHandle } from './clock.js';
import { ObjectCache } from './cache.js';
import type { CacheChange, WatchEventType } from './cache.js';
import type { KubeObject } from './kube-object.js';
import { KubeApiError, createKubeApiError, kubeErrorCodeOf } from '@orkestra/registry';
import type { ListWatchClient, RawWatchEvent, WatchHandle } from './list-watch-client.js';

/** ResourceRef names the resource an Informer watches. `group` is `''` for the core group. */
export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  /** The resource (plural) name, e.g. `configmaps`. */
  readonly plural: string;
  /** The kind, written on list items that arrive without one. */
  readonly kind: string;
  /** Whether the resource is namespaced. */
  readonly namespaced: boolean;
}

/** RelistReason is why an informer listed again (`orkestra_informer_relists_total{reason}`). */
export const RelistReason = {
  Gone: 'gone',
  Watchdog: 'watchdog',
  Error: 'error',
} as const;
export type RelistReason = (typeof RelistReason)[keyof typeof RelistReason];

/** InformerLogger receives the informer's warnings (RBAC errors, failed lists and watches). */
export interface InformerLogger {
  warn(fields: Readonly<Record<string, unknown>>, message: string): void;
}

/** InformerOptions configures an Informer. */
export interface InformerOptions {
  /** Transport for list and watch requests (a KubeListWatchClient in production). */
  readonly client: ListWatchClient;
  /** What to watch. */
  readonly resource: ResourceRef;
  /** For a namespaced resource: watch only this namespace. Default: all namespaces. */
  readonly namespace?: string;
  /** A label selector (`a=b,c in (d)`) applied to list and watch. Default: none. */
  readonly labelSelector?: string;
  /** A field selector (`metadata.name=x`) applied to list and watch. Default: none. */
  readonly fieldSelector?: string;
  /** List page size. Default 500. */
  readonly pageSize?: number;
  /** A watch silent (no event, no bookmark) for this long is aborted and a relist is done. Default 300 000 ms. */
  readonly watchIdleTimeoutMs?: number;
  /** Bounds of the watch `timeoutSeconds`, drawn uniformly from [min, max). Default [300, 600). */
  readonly watchTimeoutSeconds?: { readonly min: number; readonly max: number };
  /** First delay after a failure; doubles per failure. Default 1000 ms. */
  readonly initialBackoffMs?: number;
  /** Backoff cap before jitter. Default 30 000 ms. */
  readonly maxBackoffMs?: number;
  /** Relative jitter applied to every backoff delay. Default 0.2 (±20 %). */
  readonly backoffJitter?: number;
  /** The cache to fill. Default: a new ObjectCache. */
  readonly cache?: ObjectCache;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
  /** Randomness in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** Where warnings go. Default: nowhere. */
  readonly logger?: InformerLogger;
  /** Called before each relist after the first list (`orkestra_informer_relists_total`). Default: none. */
  readonly onRelist?: (reason: RelistReason) => void;
  /** Called when a watch is re-opened after ending or failing (`orkestra_informer_watch_restarts_total`). Default: none. */
  readonly onWatchRestart?: () => void;
  /** Called with the clock time of every watch event or bookmark. Default: none. */
  readonly onEvent?: (atMs: number) => void;
}

/** InformerStats are an informer's counters (`orkestra_informer_*`, `orkestra_cache_objects`). */
export interface InformerStats {
  readonly synced: boolean;
  readonly objects: number;
  /** Relists after the first list, by reason. */
  readonly relists: Readonly<Record<RelistReason, number>>;
  /** Watches re-opened after ending normally or failing. */
  readonly watchRestarts: number;
  /** List pages requested. */
  readonly listRequests: number;
  /** Watches opened. */
  readonly watchRequests: number;
  /** Clock time of the last watch event or bookmark. */
  readonly lastEventAt: number | undefined;
  /** The last resource version seen (list, event or bookmark). */
  readonly resourceVersion: string | undefined;
  /** Whether the last failure was a 403 (the entry is not ready until a list or watch succeeds). */
  readonly forbidden: boolean;
}

type WatchEnd =
  | { readonly kind: 'closed'; readonly events: number; readonly durationMs: number }
  | { readonly kind: 'gone'; readonly events: number }
  | { readonly kind: 'watchdog' }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'stopped' };

const GONE = 410;
const FORBIDDEN = 403;
const TOO_MANY_REQUESTS = 429;
/** A watch closed normally sooner than this without any event is treated like a failure, so a misbehaving server cannot cause a hot loop. */
const MIN_HEALTHY_WATCH_MS = 1000;
const FORBIDDEN_LOG_INTERVAL_MS = 60_000;

/**
 * Informer keeps an ObjectCache equal to the cluster's objects of one resource with its own
 * list/watch loop (docs/reference/runtime.md §3.2): a paginated list whose differences from the previous cache
 * are delivered as add, update and delete changes, then a watch from the list's resource version
 * with bookmarks. A watch that ends normally is re-opened at once; 410 Gone relists; other
 * failures back off (1 s doubling to 30 s, ±20 % jitter, reset only by a watch event or
 * bookmark); a watch silent for `watchIdleTimeoutMs` is aborted and relisted. It never stays
 * stopped until `stop`.
 *
 * @example
 * const informer = new Informer({
 *   client: new KubeListWatchClient({ kubeConfig }),
 *   resource: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
 *   labelSelector: 'app.kubernetes.io/managed-by=orkestra',
 * });
 * informer.subscribe((change) => queue.add(change.key));
 * informer.start();
 * await informer.waitForSync();
 */
export class Informer {
  /** cache holds the informer's objects; read it synchronously at any time. */
  readonly cache: ObjectCache;
  readonly #client: ListWatchClient;
  readonly #resource: ResourceRef;
  readonly #path: string;
  readonly #labelSelector: string | undefined;
  readonly #fieldSelector: string | undefined;
  readonly #pageSize: number;
  readonly #idleTimeoutMs: number;
  readonly #watchTimeout: { readonly min: number; readonly max: number };
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #jitter: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: InformerLogger | undefined;
  readonly #onRelist: ((reason: RelistReason) => void) | undefined;
  readonly #onWatchRestart: (() => void) | undefined;
  readonly #onEvent: ((atMs: number) => void) | undefined;

  readonly #listeners = new Set<(change: CacheChange) => void>();
  readonly #syncWaiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  #running = false;
  #stopped = false;
  /** Suspended (its resource was removed, docs/reference/runtime.md §2.9): the loop waits for `resume`. */
  #suspended = false;
  #resumeWaiter: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #synced = false;
  #resourceVersion: string | undefined;
  #backoffMs: number;
  #listAbort: AbortController | undefined;
  #stopCurrentWatch: (() => void) | undefined;
  #cancelSleep: (() => void) | undefined;
  #forbidden = false;
  #lastForbiddenLogAt: number | undefined;
  #relists: Record<RelistReason, number> = { gone: 0, watchdog: 0, error: 0 };
  #watchRestarts = 0;
  #listRequests = 0;
  #watchRequests = 0;
  #lastEventAt: number | undefined;

  constructor(options: InformerOptions) {
    this.#client = options.client;
    this.#resource = options.resource;
    this.#path = resourcePath(options.resource, options.namespace);
    this.#labelSelector = options.labelSelector === '' ? undefined : options.labelSelector;
    this.#fieldSelector = options.fieldSelector === '' ? undefined : options.fieldSelector;
    this.#pageSize = options.pageSize ?? 500;
    this.#idleTimeoutMs = options.watchIdleTimeoutMs ?? 300_000;
    this.#watchTimeout = options.watchTimeoutSeconds ?? { min: 300, max: 600 };
    this.#initialBackoffMs = options.initialBackoffMs ?? 1000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.#jitter = options.backoffJitter ?? 0.2;
    this.cache = options.cache ?? new ObjectCache();
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger;
    this.#onRelist = options.onRelist;
    this.#onWatchRestart = options.onWatchRestart;
    this.#onEvent = options.onEvent;
    this.#backoffMs = this.#initialBackoffMs;
  }

  /** resource is what the informer watches. */
  get resource(): ResourceRef {
    return this.#resource;
  }

  /** path is the API path listed and watched, e.g. `/apis/apps/v1/namespaces/shop/deployments`. */
  get path(): string {
    return this.#path;
  }

  /** subscribe registers a listener for every cache change the informer makes; returns the unsubscribe function. */
  subscribe(listener: (change: CacheChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** start begins the list/watch loop; calling it again, or after `stop`, does nothing. */
  start(): void {
    if (this.#running || this.#stopped) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** stop ends the loop, aborting any list, watch or wait in progress; resolves when the loop has exited. */
  async stop(): Promise<void> {
    if (this.#stopped) return this.#loop;
    this.#stopped = true;
    this.#resumeWaiter?.();
    this.#resumeWaiter = undefined;
    this.#listAbort?.abort();
    this.#stopCurrentWatch?.();
    this.#cancelSleep?.();
    for (const waiter of this.#syncWaiters.splice(0))
      waiter.reject(new Error('informer stopped before its first list completed'));
    await this.#loop;
  }

  /**
   * suspend stops listing and watching until `resume` (the resource is gone, e.g. its CRD was
   * deleted): the list, watch or wait in progress is aborted and the cache emptied, each object
   * reported as deleted. The informer keeps its listeners and its synced state.
   */
  suspend(): void {
    if (this.#suspended || this.#stopped) return;
    this.#suspended = true;
    this.#listAbort?.abort();
    this.#stopCurrentWatch?.();
    this.#cancelSleep?.();
  }

  /** resume lists again at once and watches, after `suspend` (the resource is back). */
  resume(): void {
    if (!this.#suspended) return;
    this.#suspended = false;
    this.#resourceVersion = undefined;
    this.#backoffMs = this.#initialBackoffMs;
    const waiter = this.#resumeWaiter;
    this.#resumeWaiter = undefined;
    waiter?.();
  }

  /** suspended tells whether the informer waits for `resume`. */
  get suspended(): boolean {
    return this.#suspended;
  }

  /** hasSynced tells whether the first complete list has been applied. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** waitForSync resolves once the first list has completed; rejects if the informer is stopped first or the signal aborts. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (this.#stopped) return Promise.reject(new Error('informer stopped before its first list completed'));
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      this.#syncWaiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.#syncWaiters.indexOf(waiter);
          if (i >= 0) this.#syncWaiters.splice(i, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** stats returns the informer's counters. */
  stats(): InformerStats {
    return {
      synced: this.#synced,
      objects: this.cache.size,
      relists: { ...this.#relists },
      watchRestarts: this.#watchRestarts,
      listRequests: this.#listRequests,
      watchRequests: this.#watchRequests,
      lastEventAt: this.#lastEventAt,
      resourceVersion: this.#resourceVersion,
      forbidden: this.#forbidden,
    };
  }

  async #run(): Promise<void> {
    let relistReason: RelistReason | undefined;
    let needList = true;
    // Consecutive watches that got 410 before any event: a second one in a row backs off, so a
    // server that keeps answering 410 cannot drive a list/watch hot loop.
    let goneWithoutEvents = 0;
    while (!this.#stopped) {
      if (this.#suspended) {
        this.#emit(this.cache.replace([]));
        await new Promise<void>((resolve) => {
          this.#resumeWaiter = resolve;
        });
        needList = true;
        relistReason = undefined;
        goneWithoutEvents = 0;
        continue;
      }
      if (needList) {
        if (relistReason != null) {
          this.#relists[relistReason]++;
          this.#onRelist?.(relistReason);
        }
        try {
          await this.#listAll();
          needList = false;
        } catch (error) {
          if (this.#stopped) break;
          if (this.#suspended) continue;
          this.#noteFailure('list', error);
          relistReason = RelistReason.Error;
          await this.#sleep(this.#delayAfter(error));
          continue;
        }
      }
      if (this.#suspended) continue;
      const end = await this.#watch();
      if (this.#suspended) continue;
      switch (end.kind) {
        case 'stopped':
          break;
        case 'closed':
          this.#watchRestarts++;
          this.#onWatchRestart?.();
          if (end.events > 0) goneWithoutEvents = 0;
          if (end.events === 0 && end.durationMs < MIN_HEALTHY_WATCH_MS)
            await this.#sleep(this.#nextBackoff());
          break;
        case 'gone':
          needList = true;
          relistReason = RelistReason.Gone;
          goneWithoutEvents = end.events === 0 ? goneWithoutEvents + 1 : 0;
          if (goneWithoutEvents > 1) await this.#sleep(this.#nextBackoff());
          break;
        case 'watchdog':
          goneWithoutEvents = 0;
          needList = true;
          relistReason = RelistReason.Watchdog;
          this.#logger?.warn(
            { resource: this.#path, idleMs: this.#idleTimeoutMs },
            'watch silent too long; relisting',
          );
          break;
        case 'error':
          this.#watchRestarts++;
          this.#onWatchRestart?.();
          this.#noteFailure('watch', end.error);
          await this.#sleep(this.#delayAfter(end.error));
          break;
      }
    }
  }

  /** Lists every page and replaces the cache; retries once from scratch when a continue token expired. */
  async #listAll(): Promise<void> {
    const abort = new AbortController();
    this.#listAbort = abort;
    try {
      let items: KubeObject[] = [];
      let resourceVersion: string | undefined;
      let continueToken: string | undefined;
      let restarted = false;
      while (!this.#stopped) {
        const query: Record<string, string> = { limit: String(this.#pageSize) };
        if (this.#labelSelector != null) query['labelSelector'] = this.#labelSelector;
        if (this.#fieldSelector != null) query['fieldSelector'] = this.#fieldSelector;
        if (continueToken != null) query['continue'] = continueToken;
        this.#listRequests++;
        let page;
        try {
          page = await this.#client.list(this.#path, query, abort.signal);
        } catch (error) {
          if (continueToken != null && !restarted && isStatus(error, GONE)) {
            restarted = true;
            items = [];
            continueToken = undefined;
            continue;
          }
          throw error;
        }
        for (const item of page.items ?? []) items.push(this.#complete(item));
        resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
        const next = page.metadata?.continue;
        continueToken = next == null || next === '' ? undefined : next;
        if (continueToken == null) break;
      }
      if (this.#stopped || this.#suspended) return;
      const changes = this.cache.replace(items, resourceVersion);
      this.#resourceVersion = resourceVersion;
      this.#forbidden = false;
      this.#emit(changes);
      if (!this.#synced) {
        this.#synced = true;
        for (const waiter of this.#syncWaiters.splice(0)) waiter.resolve();
      }
    } finally {
      this.#listAbort = undefined;
    }
  }

  /** Runs one watch until it ends and says how it ended. */
  #watch(): Promise<WatchEnd> {
    if (this.#stopped) return Promise.resolve({ kind: 'stopped' });
    return new Promise<WatchEnd>((resolve) => {
      const startedAt = this.#clock.now();
      let events = 0;
      let finished = false;
      const current: { handle?: WatchHandle } = {};
      let watchdog: TimerHandle | undefined;
      const finish = (end: WatchEnd): void => {
        if (finished) return;
        finished = true;
        if (watchdog != null) this.#clock.clearTimeout(watchdog);
        this.#stopCurrentWatch = undefined;
        current.handle?.abort();
        resolve(end);
      };
      const armWatchdog = (): void => {
        if (watchdog != null) this.#clock.clearTimeout(watchdog);
        watchdog = this.#clock.setTimeout(() => finish({ kind: 'watchdog' }), this.#idleTimeoutMs);
      };
      this.#stopCurrentWatch = () => finish({ kind: 'stopped' });
      const { min, max } = this.#watchTimeout;
      const query: Record<string, string> = {
        allowWatchBookmarks: 'true',
        timeoutSeconds: String(Math.floor(min + this.#random() * (max - min))),
      };
      if (this.#resourceVersion != null) query['resourceVersion'] = this.#resourceVersion;
      if (this.#labelSelector != null) query['labelSelector'] = this.#labelSelector;
      if (this.#fieldSelector != null) query['fieldSelector'] = this.#fieldSelector;
      armWatchdog();
      this.#watchRequests++;
      const handle = this.#client.watch(this.#path, query, {
        onEvent: (event) => {
          if (finished) return;
          events++;
          armWatchdog();
          this.#lastEventAt = this.#clock.now();
          this.#onEvent?.(this.#lastEventAt);
          this.#backoffMs = this.#initialBackoffMs;
          this.#forbidden = false;
          const end = this.#handleEvent(event);
          // An in-stream 410 counts the events before it, not the ERROR event itself.
          if (end != null) finish(end.kind === 'gone' ? { kind: 'gone', events: events - 1 } : end);
        },
        onClose: (error) => {
          if (error == null) finish({ kind: 'closed', events, durationMs: this.#clock.now() - startedAt });
          else if (isStatus(error, GONE)) finish({ kind: 'gone', events });
          else finish({ kind: 'error', error });
        },
      });
      current.handle = handle;
      if (finished) handle.abort();
    });
  }

  /** Applies one watch event; returns how the watch ends when the event ends it. */
  #handleEvent(event: RawWatchEvent): WatchEnd | undefined {
    const { type } = event;
    if (type === 'BOOKMARK') {
      const rv = resourceVersionOf(event.object);
      if (rv != null) this.#resourceVersion = rv;
      return undefined;
    }
    if (type === 'ERROR') {
      const status = (event.object ?? {}) as { code?: unknown; message?: unknown; reason?: unknown };
      const code = typeof status.code === 'number' ? status.code : 500;
      if (code === GONE) return { kind: 'gone', events: 0 };
      return {
        kind: 'error',
        error: createKubeApiError({
          reason: kubeErrorCodeOf(code, typeof status.reason === 'string' ? status.reason : undefined),
          status: code,
          verb: 'watch',
          message: `watch error: ${typeof status.message === 'string' ? status.message : `HTTP ${code}`}`,
        }),
      };
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return undefined;
    const object = this.#complete(event.object);
    const rv = object.metadata.resourceVersion;
    if (rv != null && rv !== '') this.#resourceVersion = rv;
    const change = this.cache.applyEvent(type as WatchEventType, object);
    if (change != null) this.#emit([change]);
    return undefined;
  }

  #emit(changes: readonly CacheChange[]): void {
    for (const change of changes) {
      for (const listener of [...this.#listeners]) {
        try {
          listener(change);
        } catch (error) {
          this.#logger?.warn(
            { resource: this.#path, key: change.key, err: error },
            'informer listener threw',
          );
        }
      }
    }
  }

  /** Fills in apiVersion and kind, which list items of built-in kinds arrive without. */
  #complete(item: unknown): KubeObject {
    const object = (item ?? {}) as Partial<KubeObject>;
    const apiVersion =
      typeof object.apiVersion === 'string' && object.apiVersion !== ''
        ? object.apiVersion
        : this.#resource.group === ''
          ? this.#resource.version
          : `${this.#resource.group}/${this.#resource.version}`;
    const kind = typeof object.kind === 'string' && object.kind !== '' ? object.kind : this.#resource.kind;
    return { ...object, apiVersion, kind, metadata: object.metadata ?? {} };
  }

  #noteFailure(operation: 'list' | 'watch', error: unknown): void {
    if (isStatus(error, FORBIDDEN)) {
      this.#forbidden = true;
      const now = this.#clock.now();
      if (this.#lastForbiddenLogAt == null || now - this.#lastForbiddenLogAt >= FORBIDDEN_LOG_INTERVAL_MS) {
        this.#lastForbiddenLogAt = now;
        this.#logger?.warn(
          { verb: operation, resource: this.#path, err: error },
          `RBAC: forbidden to ${operation} ${this.#path}; the entry stays not ready`,
        );
      }
      return;
    }
    this.#logger?.warn(
      { verb: operation, resource: this.#path, err: error },
      `${operation} failed; retrying with backoff`,
    );
  }

  /** The delay before retrying after `error`: a 429's Retry-After when given, else the next backoff step. */
  #delayAfter(error: unknown): number {
    if (
      error instanceof KubeApiError &&
      error.status === TOO_MANY_REQUESTS &&
      error.retryAfterSeconds != null
    ) {
      return error.retryAfterSeconds * 1000;
    }
    return this.#nextBackoff();
  }

  #nextBackoff(): number {
    const base = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, this.#maxBackoffMs);
    return Math.round(base * (1 + (this.#random() * 2 - 1) * this.#jitter));
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped || this.#suspended) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(() => {
        this.#cancelSleep = undefined;
        resolve();
      }, ms);
      this.#cancelSleep = () => {
        this.#clock.clearTimeout(timer);
        this.#cancelSleep = undefined;
        resolve();
      };
    });
  }
}

/** resourcePath builds the API path of a resource, optionally in one namespace. */
export function resourcePath(
  resource: Pick<ResourceRef, 'group' | 'version' | 'plural' | 'namespaced'>,
  namespace?: string,
): string {
  const base =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  if (resource.namespaced && namespace != null && namespace !== '') {
    return `${base}/namespaces/${encodeURIComponent(namespace)}/${resource.plural}`;
  }
  return `${base}/${resource.plural}`;
}

function isStatus(error: unknown, code: number): boolean {
  return error instanceof KubeApiError && error.status === code;
}

function resourceVersionOf(object: unknown): string | undefined {
  const rv = (object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}
