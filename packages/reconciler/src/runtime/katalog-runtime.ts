/**
 * The top-level runtime for the operator: every enabled CRD entry of one Katalog, its informers,
 * queues and workers, over one API client (runtime.md §2).
 */
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, diffCounts } from '@orkestra/registry';
import type { KubeClient, RequestCounts } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import type { Katalog, Logger } from '@orkestra/types';
import { OrkestraLabel } from '@orkestra/types';
import { pino } from 'pino';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { EventRecorder } from '../events/event-recorder.js';
import { KubeListWatchClient } from '../list-watch-client.js';
import { ChildCaches } from './child-caches.js';
import type { ChildKindSpec } from './child-caches.js';
import { compileKatalog } from './compile-katalog.js';
import type { CompiledKatalog } from './compile-katalog.js';
import { CrdController } from './crd-controller.js';
import type { PipelineHooks } from './reconcile-pipeline.js';
import { createStatusPatcher } from './status-patcher.js';

/** KatalogRuntimeOptions tunes the runtime; every field has a default (runtime.md §22). */
export interface KatalogRuntimeTuning {
  /** Concurrent child writes per CR (`--max-concurrent-writes`). Default 8. */
  readonly maxConcurrentWrites?: number;
  /** A reconcile running longer is aborted and retried (`--reconcile-timeout`). Default 300 000 ms. */
  readonly reconcileTimeoutMs?: number;
  /** Silent watches are relisted after this long (`--watch-idle-timeout`). Default 300 000 ms. */
  readonly watchIdleTimeoutMs?: number;
  /** How long `start` waits for the first list of every informer. Default 120 000 ms. */
  readonly syncTimeoutMs?: number;
  /** Overrides every entry's resync interval in ms (0 disables); default: each entry's `resync`. */
  readonly resyncMs?: number;
  /** Watch only this namespace (namespaced CRs and children); default: all namespaces. */
  readonly namespace?: string;
  /** Hook and provider slots per entry name (steps 9–12 and 16). */
  readonly hooks?: Readonly<Record<string, PipelineHooks>>;
}

/** CreateKatalogRuntimeOptions is what createKatalogRuntime needs. */
export interface CreateKatalogRuntimeOptions {
  /** A loaded Katalog (`loadKatalog`), or one already compiled with `compileKatalog`. */
  readonly katalog: Katalog | CompiledKatalog;
  readonly kubeConfig: KubeConfig;
  /** Structured logger (pino's API). Default: pino JSON lines on stdout at `info`. */
  readonly logger?: Logger;
  /** Source of time; `now()` is read as epoch milliseconds. Default the system clock. */
  readonly clock?: Clock;
  /** Randomness in [0, 1) for jitter. Default Math.random. */
  readonly random?: () => number;
  /** Random bytes for template helpers and certificate serials. Default crypto.randomBytes. */
  readonly randomBytes?: (size: number) => Uint8Array;
  /** Whether this replica may run workers now. Default true; false keeps warm standby (informers only) until `startWorkers`. */
  readonly leaderElected?: boolean;
  readonly options?: KatalogRuntimeTuning;
}

/** RuntimeEntry is one CRD entry's machinery, for metrics, the autoscaler and cross endpoints. */
export interface RuntimeEntry {
  readonly name: string;
  readonly controller: CrdController;
  readonly queue: CrdController['queue'];
  readonly dispatcher: CrdController['dispatcher'];
  readonly cache: CrdController['cache'];
  readonly resync: CrdController['resync'];
  readonly informer: CrdController['informer'];
}

/** KatalogRuntime is a running Katalog. */
export interface KatalogRuntime {
  /** Starts informers, waits for their first list, then (when leader) starts workers. */
  start(): Promise<void>;
  /** Starts workers, resync and timers of every entry (on becoming leader). */
  startWorkers(): void;
  /** Stops taking work, waits up to `timeoutMs` for in-flight reconciles, flushes events, stops informers. */
  stop(options?: { readonly timeoutMs?: number }): Promise<void>;
  /** True when every informer has completed its first list. */
  isReady(): boolean;
  readonly entries: ReadonlyMap<string, RuntimeEntry>;
  readonly children: ChildCaches;
  readonly client: KubeClient;
  readonly events: EventRecorder;
  /**
   * requestCounts returns every API request the runtime sent, by `verb kind`: the client's writes
   * and reads, `list <path>`/`watch <path>` from the informers, and event creates.
   */
  requestCounts(): RequestCounts;
}

/**
 * createKatalogRuntime builds the runtime of one Katalog: a counted API client, one informer per
 * CRD entry and per child kind (selected by the managed-by and crd labels), and per entry a queue,
 * a dispatcher, resync and the reconcile pipeline. Templates are compiled here, once.
 *
 * @example
 * const runtime = createKatalogRuntime({ katalog, kubeConfig });
 * await runtime.start();
 * // …
 * await runtime.stop({ timeoutMs: 30_000 });
 */
export function createKatalogRuntime(options: CreateKatalogRuntimeOptions): KatalogRuntime {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const bytes = options.randomBytes ?? ((size: number) => new Uint8Array(randomBytes(size)));
  const tuning = options.options ?? {};
  const engine = createTemplateEngine({ clock: { now: () => clock.now() }, random: bytes });
  const compiled =
    'crds' in options.katalog && options.katalog.crds instanceof Map
      ? (options.katalog as CompiledKatalog)
      : compileKatalog(options.katalog as Katalog, { engine });
  const katalogName = compiled.katalog.metadata.name;
  const logger: Logger = (
    options.logger ??
    (pino({ level: 'info', redact: ['*.data', '*.stringData', 'data', 'stringData'] }) as unknown as Logger)
  ).child({
    katalog: katalogName,
  });
  const client = createKubeClient({ kubeConfig: options.kubeConfig });
  const patchStatus = createStatusPatcher({ kubeConfig: options.kubeConfig, requests: client.requests });
  const listWatch = new KubeListWatchClient({ kubeConfig: options.kubeConfig });
  const events = new EventRecorder({
    writer: {
      create: async (namespace, event) => {
        await client.create({ ...event, metadata: { ...event.metadata, namespace } });
      },
    },
    clock,
    onWriteError: (error) =>
      logger.debug(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'event write failed',
      ),
  });

  const kindUsers = new Map<string, ChildKindSpec & { crds: string[] }>();
  for (const crd of compiled.crds.values()) {
    for (const kind of crd.childKinds) {
      const key = `${kind.apiVersion}/${kind.kind}`;
      const spec = kindUsers.get(key) ?? { ...kind, crds: [] };
      spec.crds.push(crd.name);
      kindUsers.set(key, spec);
    }
  }
  const children = new ChildCaches({
    kinds: [...kindUsers.values()],
    listWatch,
    client,
    clock,
    random,
    ...(tuning.namespace == null ? {} : { namespace: tuning.namespace }),
    ...(tuning.watchIdleTimeoutMs == null ? {} : { watchIdleTimeoutMs: tuning.watchIdleTimeoutMs }),
    logger: { warn: (fields, message) => logger.warn({ ...fields }, message) },
  });
  const scopes = new Map<string, boolean>();
  const customScope = (apiVersion: string, kind: string): boolean | undefined =>
    scopes.get(`${apiVersion}/${kind}`);

  const entries = new Map<string, RuntimeEntry>();
  for (const crd of compiled.crds.values()) {
    const controller = new CrdController({
      katalogName,
      crd,
      listWatch,
      client,
      patchStatus,
      children,
      engine,
      clock,
      random,
      randomBytes: bytes,
      logger,
      events,
      maxConcurrentWrites: tuning.maxConcurrentWrites,
      reconcileTimeoutMs: tuning.reconcileTimeoutMs,
      watchIdleTimeoutMs: tuning.watchIdleTimeoutMs,
      resyncMs: tuning.resyncMs,
      namespace: tuning.namespace,
      hooks: tuning.hooks?.[crd.name],
      customScope,
    });
    entries.set(crd.name, {
      name: crd.name,
      controller,
      get queue() {
        return controller.queue;
      },
      get dispatcher() {
        return controller.dispatcher;
      },
      get cache() {
        return controller.cache;
      },
      get resync() {
        return controller.resync;
      },
      get informer() {
        return controller.informer;
      },
    });
  }

  // A child event enqueues its owner: crd label → entry, owner-uid label → primary UID index → key.
  children.subscribe((change) => {
    const labels = change.object.metadata.labels ?? {};
    const crdName = labels[OrkestraLabel.Crd];
    const uid = labels[OrkestraLabel.OwnerUid];
    if (crdName == null || uid == null) return;
    entries.get(crdName)?.controller.enqueueOwner(uid);
  });

  let leader = options.leaderElected ?? true;
  let started = false;
  const startWorkers = (): void => {
    leader = true;
    if (!started) return;
    for (const entry of entries.values()) entry.controller.startWorkers();
  };
  const listWatchBase = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const entry of entries.values()) {
      const s = entry.informer.stats();
      out[`list ${entry.informer.path}`] = s.listRequests;
      out[`watch ${entry.informer.path}`] = s.watchRequests;
    }
    for (const informer of children.informers.values()) {
      const s = informer.stats();
      out[`list ${informer.path}`] = s.listRequests;
      out[`watch ${informer.path}`] = s.watchRequests;
    }
    return out;
  };

  return {
    entries,
    children,
    client,
    events,
    async start() {
      if (started) return;
      for (const crd of compiled.crds.values()) {
        for (const kind of crd.childKinds) {
          if (kind.apiVersion.includes('/') && !isBuiltinGroup(kind.apiVersion)) {
            const info = await client.discover(kind);
            scopes.set(`${kind.apiVersion}/${kind.kind}`, info.namespaced);
          }
        }
      }
      await children.start();
      for (const entry of entries.values()) entry.controller.startInformer();
      const signal = AbortSignal.timeout(tuning.syncTimeoutMs ?? 120_000);
      await Promise.all([
        children.waitForSync(signal),
        ...[...entries.values()].map((e) => e.controller.waitForSync(signal)),
      ]);
      started = true;
      logger.info({ entries: [...entries.keys()], childKinds: [...kindUsers.keys()] }, 'informers synced');
      if (leader) startWorkers();
    },
    startWorkers,
    async stop(stopOptions = {}) {
      await Promise.all([...entries.values()].map((e) => e.controller.stop(stopOptions)));
      await events.flush(2000);
      await children.stop();
    },
    isReady() {
      return started && children.hasSynced() && [...entries.values()].every((e) => e.informer.hasSynced());
    },
    requestCounts() {
      return { ...diffCounts({}, client.requests.snapshot()), ...listWatchBase() };
    },
  };
}

const BUILTIN_GROUPS = new Set([
  'apps',
  'batch',
  'networking.k8s.io',
  'autoscaling',
  'policy',
  'rbac.authorization.k8s.io',
]);

function isBuiltinGroup(apiVersion: string): boolean {
  return BUILTIN_GROUPS.has(apiVersion.slice(0, apiVersion.indexOf('/')));
}
