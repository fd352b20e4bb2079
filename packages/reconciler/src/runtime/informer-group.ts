/**
 * What the runtime's secondary informers share (the child caches, runtime.md §3.1, and the watch
 * triggers, §4.1): how one is built from a discovered kind, and the group's start-up, sync and stop.
 */
import type { KubeClient } from '@orkestra/registry';
import type { Clock } from '../clock.js';
import { Informer } from '../informer.js';
import type { InformerLogger, ResourceRef } from '../informer.js';
import type { ListWatchClient } from '../list-watch-client.js';
import { resourceLabel } from './runtime-observer.js';
import type { RuntimeObserver } from './runtime-observer.js';

/** InformerGroupOptions are the options every informer of a group shares. */
export interface InformerGroupOptions {
  readonly listWatch: ListWatchClient;
  /** Used for discovery of plurals and scopes (built-in kinds cost no request). */
  readonly client: Pick<KubeClient, 'discover'>;
  /** For namespaced kinds: watch only this namespace (unless the kind names its own). */
  readonly namespace?: string | undefined;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly logger?: InformerLogger;
  readonly watchIdleTimeoutMs?: number;
  /** Receives relists, watch restarts and events of every informer. Default: none. */
  readonly observer?: RuntimeObserver;
}

/** Selection narrows one informer of a group: its namespace and selectors. */
export interface Selection {
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
}

/** splitApiVersion splits `group/version` (the core group is ''). */
function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * InformerGroup runs a set of informers, keyed by the subclass: `open` discovers a kind and starts
 * its informer (namespaced kinds in the group's namespace unless the selection names one);
 * `waitForSync`, `hasSynced` and `stop` cover them all.
 */
export abstract class InformerGroup {
  protected readonly options: InformerGroupOptions;
  protected readonly byKey = new Map<string, Informer>();

  constructor(options: InformerGroupOptions) {
    this.options = options;
  }

  /** informers lists the running informers by key. */
  get informers(): ReadonlyMap<string, Informer> {
    return this.byKey;
  }

  /** open discovers `kind`, builds its informer with `selection` and registers it under `key`; the caller subscribes and starts it. */
  protected async open(
    key: string,
    kind: { readonly apiVersion: string; readonly kind: string },
    selection: (namespaced: boolean) => Selection,
  ): Promise<Informer> {
    const info = await this.options.client.discover(kind);
    const { group, version } = splitApiVersion(kind.apiVersion);
    const resource: ResourceRef = {
      group,
      version,
      plural: info.plural,
      kind: kind.kind,
      namespaced: info.namespaced,
    };
    const { namespace, labelSelector, fieldSelector } = selection(info.namespaced);
    const observer = this.options.observer;
    const label = resourceLabel(resource);
    const inNamespace = info.namespaced ? (namespace ?? this.options.namespace) : undefined;
    const informer = new Informer({
      ...(observer == null
        ? {}
        : {
            onRelist: (reason) => observer.informerRelist(label, reason),
            onWatchRestart: () => observer.informerWatchRestart(label),
            onEvent: (atMs) => observer.informerEvent(label, atMs / 1000),
          }),
      client: this.options.listWatch,
      resource,
      ...(inNamespace == null ? {} : { namespace: inNamespace }),
      ...(labelSelector == null ? {} : { labelSelector }),
      ...(fieldSelector == null ? {} : { fieldSelector }),
      ...(this.options.clock == null ? {} : { clock: this.options.clock }),
      ...(this.options.random == null ? {} : { random: this.options.random }),
      ...(this.options.logger == null ? {} : { logger: this.options.logger }),
      ...(this.options.watchIdleTimeoutMs == null
        ? {}
        : { watchIdleTimeoutMs: this.options.watchIdleTimeoutMs }),
    });
    this.byKey.set(key, informer);
    return informer;
  }

  /** waitForSync resolves when every informer has listed once. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.byKey.values()].map((i) => i.waitForSync(signal)));
  }

  /** hasSynced tells whether every informer has listed once. */
  hasSynced(): boolean {
    return [...this.byKey.values()].every((i) => i.hasSynced());
  }

  /** stop stops every informer. */
  async stop(): Promise<void> {
    await Promise.all([...this.byKey.values()].map((i) => i.stop()));
  }
}
