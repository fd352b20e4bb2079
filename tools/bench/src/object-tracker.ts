/**
 * ObjectTracker follows a namespace's objects of a few resource types through watches, so the
 * benchmark can tell when children exist or carry a new value without polling the API server
 * (watches are left out of every request count).
 */
import { Watch } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';

/** TrackedObject is the part of a watched object the benchmark reads. */
export interface TrackedObject {
  readonly metadata: { readonly name: string; readonly resourceVersion?: string };
  readonly data?: Readonly<Record<string, string>>;
  readonly status?: unknown;
}

/** TrackedResource names one watched collection: `key` (e.g. `configmaps`) and its API path. */
export interface TrackedResource {
  readonly key: string;
  /** API path of the collection, e.g. `/api/v1/namespaces/ns/configmaps`. */
  readonly path: string;
}

/** ObjectTrackerOptions configures an ObjectTracker. */
export interface ObjectTrackerOptions {
  readonly kubeConfig: KubeConfig;
  readonly resources: readonly TrackedResource[];
}

interface Waiter {
  readonly check: () => boolean;
  readonly resolve: () => void;
}

/** ObjectTracker keeps the latest state of every watched object, by resource key and name. */
export class ObjectTracker {
  readonly #watch: Watch;
  readonly #resources: readonly TrackedResource[];
  readonly #objects = new Map<string, Map<string, TrackedObject>>();
  readonly #waiters = new Set<Waiter>();
  readonly #controllers = new Set<AbortController>();
  readonly #lastVersion = new Map<string, string>();
  #stopped = false;

  constructor(options: ObjectTrackerOptions) {
    this.#watch = new Watch(options.kubeConfig);
    this.#resources = options.resources;
    for (const r of options.resources) this.#objects.set(r.key, new Map());
  }

  /** start opens one watch per resource; existing objects arrive as ADDED events. */
  async start(): Promise<void> {
    await Promise.all(this.#resources.map((r) => this.#open(r)));
  }

  /** stop closes every watch and rejects nothing: pending waits simply never resolve. */
  stop(): void {
    this.#stopped = true;
    for (const c of this.#controllers) c.abort();
    this.#controllers.clear();
  }

  /** get returns the latest state of object `name` of resource `key`. */
  get(key: string, name: string): TrackedObject | undefined {
    return this.#objects.get(key)?.get(name);
  }

  /** count returns how many objects of resource `key` are known. */
  count(key: string): number {
    return this.#objects.get(key)?.size ?? 0;
  }

  /**
   * waitFor resolves (with the time it noticed, from performance.now) once `check` holds after
   * some watch event, or at once when it already holds; it rejects after `timeoutMs`.
   */
  waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<number> {
    if (check()) return Promise.resolve(performance.now());
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve(performance.now());
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  async #open(resource: TrackedResource): Promise<void> {
    if (this.#stopped) return;
    const version = this.#lastVersion.get(resource.key);
    const query: Record<string, string | boolean> = { allowWatchBookmarks: true };
    if (version != null) query['resourceVersion'] = version;
    const handle: { controller?: AbortController } = {};
    const restart = (error: unknown): void => {
      if (handle.controller != null) this.#controllers.delete(handle.controller);
      if (this.#stopped) return;
      // 410 Gone: the version is too old; start over from the current state.
      if (error != null && String((error as { message?: unknown }).message ?? error).includes('410')) {
        this.#lastVersion.delete(resource.key);
      }
      const reopen = (): void => void this.#open(resource).catch((e: unknown) => restart(e ?? 'error'));
      setTimeout(reopen, error == null ? 0 : 500);
    };
    handle.controller = await this.#watch.watch(
      resource.path,
      query,
      (phase, object: TrackedObject) => this.#onEvent(resource.key, phase, object),
      restart,
    );
    this.#controllers.add(handle.controller);
  }

  #onEvent(key: string, phase: string, object: TrackedObject): void {
    const version = object.metadata?.resourceVersion;
    if (version != null) this.#lastVersion.set(key, version);
    if (phase === 'ERROR') {
      this.#lastVersion.delete(key);
      return;
    }
    if (phase === 'BOOKMARK') return;
    const objects = this.#objects.get(key);
    if (objects == null) return;
    if (phase === 'DELETED') objects.delete(object.metadata.name);
    else objects.set(object.metadata.name, object);
    for (const waiter of [...this.#waiters]) if (waiter.check()) waiter.resolve();
  }
}
