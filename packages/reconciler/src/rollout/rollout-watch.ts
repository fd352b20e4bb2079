/**
 * The revision and rollout ConfigMaps of one Katalog from a watch (docs/reference/runtime.md
 * §24.1, ADR 0034): an informer on the operator namespace's ConfigMaps labelled with the Katalog,
 * so the rollout controller and `prepareRollout` read them from a cache and learn of a command
 * of `ork rollout` by an event, with no request of their own.
 */
import type { KubeObject } from '@orkestra/registry';
import type { CacheChange } from '../cache.js';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { Informer } from '../informer.js';
import type { InformerLogger } from '../informer.js';
import type { ListWatchClient } from '../list-watch-client.js';
import { RevisionLabel, rolloutObjectName } from './revision.js';

/** RolloutWatchError is a first list of the ConfigMaps that failed (no access: revisions are off). */
class RolloutWatchError extends Error {
  override readonly name = 'RolloutWatchError';
  readonly code = 'RolloutWatchFailed';
}

/** RolloutWatchOptions configures a RolloutWatch. */
export interface RolloutWatchOptions {
  /** The operator's counted transport (the runtime's informers use the same kind of client). */
  readonly listWatch: ListWatchClient;
  /** The operator namespace. */
  readonly namespace: string;
  readonly katalogName: string;
  /** Source of time. Default the system clock. */
  readonly clock?: Clock;
  /** Randomness in [0, 1) for the informer's backoff jitter. Default Math.random. */
  readonly random?: () => number;
  readonly logger?: InformerLogger;
  /** A watch silent for this long is relisted. Default the informer's (300 000 ms). */
  readonly watchIdleTimeoutMs?: number;
}

/**
 * RolloutWatch keeps the Katalog's revision and rollout ConfigMaps in a cache. `start` resolves
 * after the first list and rejects (the informer stopped) when that list fails, so the caller
 * can turn revisions off instead of retrying forever.
 *
 * @example
 * const watch = new RolloutWatch({ listWatch, namespace: 'orkestra-system', katalogName: 'shop' });
 * await watch.start(AbortSignal.timeout(30_000));
 * const store = new RolloutStore({ client, namespace: 'orkestra-system', katalogName: 'shop', cache: watch });
 */
export class RolloutWatch {
  readonly #o: RolloutWatchOptions;
  readonly #informer: Informer;
  #firstListFailure: ((error: unknown) => void) | undefined;

  constructor(options: RolloutWatchOptions) {
    this.#o = options;
    const client: ListWatchClient = {
      list: async (path, query, signal) => {
        try {
          return await options.listWatch.list(path, query, signal);
        } catch (error) {
          this.#firstListFailure?.(error);
          throw error;
        }
      },
      watch: (path, query, handlers) => options.listWatch.watch(path, query, handlers),
    };
    this.#informer = new Informer({
      client,
      resource: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
      namespace: options.namespace,
      labelSelector: `${RevisionLabel.Katalog}=${options.katalogName}`,
      clock: options.clock ?? systemClock,
      ...(options.random == null ? {} : { random: options.random }),
      ...(options.logger == null ? {} : { logger: options.logger }),
      ...(options.watchIdleTimeoutMs == null ? {} : { watchIdleTimeoutMs: options.watchIdleTimeoutMs }),
    });
  }

  /** start lists and watches; resolves after the first list, rejects with RolloutWatchError when it fails. */
  async start(signal?: AbortSignal): Promise<void> {
    const failed = new Promise<never>((_resolve, reject) => {
      this.#firstListFailure = (error) =>
        reject(
          new RolloutWatchError(
            `cannot list ConfigMaps in namespace ${this.#o.namespace}: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          ),
        );
    });
    failed.catch(() => undefined);
    this.#informer.start();
    try {
      await Promise.race([this.#informer.waitForSync(signal), failed]);
    } catch (error) {
      await this.#informer.stop();
      throw error;
    } finally {
      this.#firstListFailure = undefined;
    }
  }

  /** stop ends the watch. */
  stop(): Promise<void> {
    return this.#informer.stop();
  }

  /** get returns a ConfigMap of this Katalog by name from the cache. */
  get(name: string): KubeObject | undefined {
    return this.#informer.cache.getByName(this.#o.namespace, name);
  }

  /** onRolloutChange calls `listener` whenever the rollout ConfigMap changes (a command of `ork rollout`, or the operator's own write). */
  onRolloutChange(listener: (change: CacheChange) => void): () => void {
    const name = rolloutObjectName(this.#o.katalogName);
    return this.#informer.subscribe((change) => {
      if (change.object.metadata.name === name) listener(change);
    });
  }

  /** requestCounts is how many list and watch requests the informer sent. */
  requestCounts(): { readonly list: number; readonly watch: number } {
    const stats = this.#informer.stats();
    return { list: stats.listRequests, watch: stats.watchRequests };
  }
}
