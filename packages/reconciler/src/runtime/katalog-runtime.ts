/**
 * The top-level runtime for the operator: every enabled CRD entry of one Katalog, its informers,
 * queues and workers, over one API client (docs/reference/runtime.md §2).
 */
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, diffCounts } from '@orkestra/registry';
import type { KubeClient, RequestCounts } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import type {
  CrdEntry,
  EvaluateConditionsOptions,
  LoadedModuleExport,
  Katalog,
  Logger,
  Provider,
  WatchItem,
} from '@orkestra/types';
import { copySourceWatches, enrichWatchItems } from '@orkestra/types';
import type { EnrichSources } from '../status/enrich-children.js';
import { runtimeLogger, withBindings } from '../log-redact.js';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { EventRecorder } from '../events/event-recorder.js';
import type { Informer } from '../informer.js';
import { KubeListWatchClient } from '../list-watch-client.js';
import { Autoscaler, dispatcherInputs } from '../autoscaler/autoscaler.js';
import { autoscaleCrossReader, crossNames } from '../autoscaler/cross-sources.js';
import { resolveAutoscaleConfig } from '../autoscaler/decide.js';
import type { AutoscaleInputs } from '../autoscaler/decide.js';
import type { CrossReaders, CrossTarget } from '../hooks/cross.js';
import { createCrossHandler } from '../hooks/cross-handler.js';
import type { CrossAuthorize, CrossHandler, CrossHandlerEntry } from '../hooks/cross-handler.js';
import type { CrossHttpClient } from '../hooks/cross-http.js';
import type { DockerBuildManager } from '../hooks/docker.js';
import type { ExternalCaller } from '../hooks/external.js';
import type { GitCheckouts, GitPoller } from '../hooks/git.js';
import { ChildCaches } from './child-caches.js';
import type { ChildKindSpec } from './child-caches.js';
import { compileKatalog } from './compile-katalog.js';
import type { CompiledCrd, CompiledKatalog } from './compile-katalog.js';
import { conditionsOptions } from './conditions.js';
import { Notifier } from '../notify/notifier.js';
import { CrdController } from './crd-controller.js';
import type { ControllerRevisions } from './crd-controller.js';
import { createEventWriter } from './event-writer.js';
import { createHookServices } from './hook-services.js';
import type { HookServices } from '../hooks/hook-unit.js';
import { createGateCalls } from './gate-calls.js';
import { heldNotifySource } from './gates.js';
import { KatalogHooks } from './katalog-hooks.js';
import type { KubeReadCache } from './kube-reader.js';
import { errorForLog } from './log-error.js';
import type { PipelineHooks } from './reconcile-pipeline.js';
import { completeObserver, resourceLabel } from './runtime-observer.js';
import { GateName } from './runtime-observer.js';
import type { RuntimeObserver, RuntimeSnapshot } from './runtime-observer.js';
import { liveAnswerOf, liveHandlerOf, recordLiveEvents } from './live-api-wiring.js';
import type { LiveRuntimeState } from './live-api-wiring.js';
import type { MetricSamples } from '../hooks/live-api-query.js';
import { createStarter } from './start.js';
import { CrdPresence } from './crd-presence.js';
import { resolveTuning } from './tuning.js';
import type { ResolvedTuning, RuntimeTuning } from './tuning.js';
import { WatchTriggers } from './watch-triggers.js';
import type { WatchingEntry } from './watch-triggers.js';
import { wireWatches } from './watches.js';
import type { RuntimeRevisions } from '../rollout/revisions.js';
import { shardSelector } from './shard.js';
import { ShardPeers } from './shard-peers.js';
import type { PeerKind } from './shard-peers.js';
import type { KubeObject } from '../kube-object.js';
import type { RuntimeShard } from './shard.js';

/**
 * KatalogRuntimeOptions is the runtime's tuning (RuntimeTuning, defaults in one place) plus the
 * hook slot overrides and the hooks' environment (docs/reference/runtime.md §22).
 */
export interface KatalogRuntimeOptions extends RuntimeTuning {
  /** Hook and provider slots per entry name (steps 9–12 and 16); each slot given here replaces the built-in one. */
  readonly hooks?: Readonly<Record<string, PipelineHooks>>;
  /** The environment of hooks (external `auth.env`, git, builders). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Authenticates and authorizes callers of `crossHandler` (docs/adr/0030). Default: every request is refused. */
  readonly crossAuthorize?: CrossAuthorize;
  /** The bearer token sent with HTTP cross reads to a literal `endpoint` (docs/adr/0030). Default: none sent. */
  readonly crossToken?: () => Promise<string | undefined>;
  /** Imports the client package of an external call protocol (`@orkestra/protocol-postgres`; ADR 0053). Default a dynamic `import()`. */
  readonly importProtocol?: (specifier: string) => Promise<unknown>;
}

/** CreateKatalogRuntimeOptions is what createKatalogRuntime needs. */
export interface CreateKatalogRuntimeOptions {
  /** A loaded Katalog (`loadKatalog`), or one already compiled with `compileKatalog`. */
  readonly katalog: Katalog | CompiledKatalog;
  readonly kubeConfig: KubeConfig;
  /** `User-Agent` of every API request, so the API server's audit log names the operator (ADR 0035). Default `orkestra`. */
  readonly userAgent?: string;
  /** Structured logger (pino's API). Default: pino JSON lines on stdout at `info`, redacted as the operator's (`redactForLog`). */
  readonly logger?: Logger;
  /** Source of time; `now()` is read as epoch milliseconds. Default the system clock. */
  readonly clock?: Clock;
  /** Randomness in [0, 1) for jitter. Default Math.random. */
  readonly random?: () => number;
  /** Random bytes for template helpers and certificate serials. Default crypto.randomBytes. */
  readonly randomBytes?: (size: number) => Uint8Array;
  /** Whether this replica may run workers now. Default true; false keeps warm standby (informers only) until `startWorkers`. */
  readonly leaderElected?: boolean;
  /** Loaded providers by name (`spec.providers`); a provider missing here fails its declarations with `ProviderFailed`. */
  readonly providers?: ReadonlyMap<string, Provider>;
  /** Module hooks loaded at start, by `<package>#<export>` (`operatorBox.hooks`, ADR 0052); a hook missing here fails with `HookFailed`. */
  readonly moduleHooks?: ReadonlyMap<string, LoadedModuleExport>;
  /**
   * Receives counters and histograms as events (docs/reference/runtime.md §18.2); the operator's `MetricsSink`
   * fits as it is. Methods left out are not called. Default: none.
   */
  readonly observer?: Partial<RuntimeObserver>;
  readonly options?: KatalogRuntimeOptions;
  /** the revision of this Katalog, the previous one and which a CR gets (docs/reference/runtime.md §24.2). Default: one revision, unrecorded. */
  readonly revisions?: RuntimeRevisions;
  /** Sharded operators (docs/reference/runtime.md §25, ADR 0045): this runtime is one shard. Default: it sees every CR. */
  readonly shard?: RuntimeShard;
  /** The Katalog file as written (its parsed YAML), answered with Secret values redacted by the Live API's `/katalog/raw` (runtime.md §18.6). Default: `/katalog/raw` answers 404. */
  readonly source?: unknown;
  /** The process's metrics in memory, answered by the Live API's `/api/v1/query` (runtime.md §18.6, ADR 0083). Default: it answers 404. */
  readonly metricSamples?: MetricSamples;
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
  /** The entry's autoscaler (entries with `autoscale`), started with the workers. */
  readonly autoscaler: Autoscaler | undefined;
}

/** RuntimeHookServices are the process-wide hook services, for metrics and tests. */
export interface RuntimeHookServices {
  readonly external: ExternalCaller;
  readonly crossHttp: CrossHttpClient;
  readonly crossReaders: CrossReaders;
  readonly kubeReads: KubeReadCache;
  /** Undefined until an entry with `git` reconciles. */
  git(): GitCheckouts | undefined;
  /** Undefined when no entry has `git`. */
  readonly gitPoller: GitPoller | undefined;
  /** Undefined until an entry with `docker` reconciles. */
  docker(): DockerBuildManager | undefined;
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
  /** Serves `GET /katalog/crds/<entry>/objects/<namespace>/<name>` from the primary caches for other operators' cross reads, behind `options.crossAuthorize` (`crossAccess: false` → 403); mount it on its own listener (docs/adr/0030). */
  readonly crossHandler: CrossHandler;
  readonly hookServices: RuntimeHookServices;
  /**
   * requestCounts returns every API request the runtime sent, by `verb kind`: the client's writes
   * and reads, `list <path>`/`watch <path>` from the informers, and event creates.
   */
  requestCounts(): RequestCounts;
  /** snapshot reads the gauges of docs/reference/runtime.md §18.2 now (queue depth, workers, cache sizes, autoscale values), for scrape time. */
  snapshot(): RuntimeSnapshot;
  /** waitingEntries lists the entries whose workers wait for their `dependsOn` (or for leadership). */
  waitingEntries(): string[];
  /**
   * The cross-shard view of a sharded runtime (ADR 0058): `watchAll` adds every entry (the leader's
   * rollout gate), `crs` lists the CRs of every shard it watches. Undefined without `shard`.
   */
  readonly crossShard: CrossShardView | undefined;
  /**
   * notifyRollout tells the teams of `spec.rollout.notify` about one rollout tick's outcomes
   * (docs/reference/katalog.md §2.3, ADR 0066): queued, never awaited, never thrown. A no-op
   * without `spec.notification` or `spec.rollout.notify`.
   */
  notifyRollout(
    events: readonly { readonly reason: string; readonly message: string }[],
    state: {
      readonly stable: string;
      readonly target: string;
      readonly phase: string;
      readonly step: number;
    },
  ): void;
}

/** CrossShardView is a sharded runtime's view of every shard's CRs (ADR 0058). */
export interface CrossShardView {
  /** Watches every entry (projected to metadata and status where nothing else needs more). */
  watchAll(): void;
  /** True when every watched entry has completed its first list. */
  hasSynced(): boolean;
  /** Every CR of every watched entry, whichever shard owns it. */
  crs(): KubeObject[];
  /** The entries watched now. */
  entries(): string[];
  /** One entry's cache of every shard's CRs; undefined when the entry is not watched. */
  cache(entry: string): CrossTarget['cache'] | undefined;
}

/**
 * createKatalogRuntime builds the runtime of one Katalog from its declared parts: a counted API
 * client (apiParts), the child caches and watch triggers, the hook services (hook-services.ts),
 * the re-queue wiring from the hook table (watches.ts), one controller per CRD entry (runtimeEntry)
 * and the start sequence (start.ts). Templates are compiled here, once.
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
  const tuning = resolveTuning(options.options);
  const engine = createTemplateEngine({ clock: { now: () => clock.now() }, random: bytes });
  const compiled = compiledWith(engine, options.katalog);
  const revisions = options.revisions;
  const previous = revisions?.previous == null ? undefined : compiledWith(engine, revisions.previous.katalog);
  const current = [...compiled.crds.values()];
  const every = [...current, ...(previous?.crds.values() ?? [])];
  const katalogName = compiled.katalog.metadata.name;
  const logger = withBindings(runtimeLogger(options.logger), { katalog: katalogName });
  const observer = completeObserver(options.observer);
  const { client, listWatch, events } = apiParts(options, current, { clock, logger, observer });
  // The Live API's `/events` answers from the Events this process records (runtime.md §18.6).
  const liveEvents = recordLiveEvents(events, clock);
  const runtimeStartedAt = clock.now();
  const entries = new Map<string, RuntimeEntry>();
  const informerParts = { listWatch, client, clock, random, tuning, logger, observer };
  const { kindUsers, children, watches, copySources } = childInformers({
    ...{ every, informerParts, entries, shard: options.shard },
    conditions: conditionsOptions(engine, clock),
  });
  const scopes = new Map<string, boolean>();
  const customScope = (apiVersion: string, kind: string): boolean | undefined =>
    scopes.get(`${apiVersion}/${kind}`);
  // A shard's primary caches hold its own CRs only: cross reads, the Live API and the rollout gate
  // read every shard's CRs from projected caches of the kinds they need (ADR 0058).
  const peers =
    options.shard == null
      ? undefined
      : new ShardPeers({
          ...{ listWatch, ...peerKinds(current, every), namespace: tuning.namespace },
          ...{ watchIdleTimeoutMs: tuning.watchIdleTimeoutMs, logger: warnOnly(logger) },
          onChange: (entry, change) => wiring.onPeerChange(entry, change),
        });
  const peerView = (name: string): ReturnType<ShardPeers['cache']> => peers?.cache(name);

  // ---- hooks and providers (steps 9–12, 16; docs/reference/runtime.md §14)
  const hooks = createHookServices({
    katalogName,
    allowedRepoHosts: compiled.katalog.spec.allowedRepoHosts,
    client,
    clock,
    conditions: conditionsOptions(engine, clock),
    env: options.options?.env ?? process.env,
    tuning,
    providers: options.providers ?? new Map(),
    moduleHooks: options.moduleHooks,
    observer,
    lookup: (name) => crossTarget(entries.get(name), peerView(name)),
    liveAnswer: liveAnswerOf(entries, () => liveState, peerView),
    ownedChildren: (uid) => children.listAllOwned(uid),
    onBuildFinished: (waiters) => wiring.enqueueReaders(waiters),
    ...(options.options?.crossToken == null ? {} : { crossToken: options.options.crossToken }),
    ...(options.options?.importProtocol == null ? {} : { importProtocol: options.options.importProtocol }),
  });
  const katalogHooks = new KatalogHooks(hooks.services);
  // Team notifications (docs/reference/katalog.md §15.4, ADR 0060): one queue per runtime.
  const notifier = runtimeNotifier(compiled, {
    engine,
    clock,
    logger,
    observer,
    tuning,
    kubeReads: hooks.kubeReads,
    importProtocol: options.options?.importProtocol,
  });
  const wiring = wireWatches({
    crds: every,
    entries,
    children,
    katalogHooks,
    crossReaders: hooks.crossReaders,
    gitCheckouts: () => hooks.gitCheckouts(),
    clock,
    logger,
    gitPollTickMs: tuning.gitPollTickMs,
    hasPeerView: (name) => peerView(name) != null,
  });
  const { hooksOf, gateNotifyOf } = entryHooks({ katalogHooks, notifier, slots: options.options?.hooks });
  const shared = { katalogName, listWatch, client, children, engine, clock, random, randomBytes: bytes };
  const enrichSources = enrichSourcesOf(watches);
  for (const crd of current) {
    const controller = new CrdController({
      ...shared,
      ...{ crd, logger, events, tuning, observer, customScope, shard: options.shard },
      ...((crd.entry.enrich ?? []).length === 0 ? {} : { enrichSources }),
      hooks: hooksOf(crd),
      gateCalls: createGateCalls({ crd, engine, services: hooks.services }),
      gateNotify: gateNotifyOf(crd),
      revision: revisionsOf(revisions, previous?.crds.get(crd.name), hooksOf),
      onPrimaryChange: wiring.onPrimaryChange(crd.name),
    });
    const deps = {
      ...{ clock, logger, crossHttp: hooks.crossHttp, entries, env: process.env },
      operatorNamespace: tuning.operatorNamespace,
      credential: hooks.services.crossCredential,
    };
    entries.set(crd.name, runtimeEntry(controller, deps));
  }
  const starter = createStarter({
    crds: current,
    entries,
    client,
    children,
    watches,
    copySources,
    childKinds: [...kindUsers.keys()],
    gitPoller: wiring.gitPoller,
    clock,
    logger,
    syncTimeoutMs: tuning.syncTimeoutMs,
    leaderElected: options.leaderElected ?? true,
    scopes,
  });
  // runtime.md §2.9: an entry whose CRD is deleted is deactivated, and reactivated when it is back.
  const presence = entryPresence(entries, { listWatch, clock, random, logger, events });
  const liveState: LiveRuntimeState = {
    leader: () => starter.leader,
    started: () => starter.started,
    waiting: () => starter.waitingEntries(),
    events: liveEvents,
    clock,
    startedAt: runtimeStartedAt,
    children,
  };
  return runtimeHandle({
    ...{ entries, children, client, events, peers, starter, presence, tuning, liveState, compiled },
    ...{ hooks, wiring, notifier, watches, copySources, peerView },
    crossAuthorize: options.options?.crossAuthorize,
    source: options.source,
    metricSamples: options.metricSamples,
  });
}

/** RuntimeParts are the declared parts `createKatalogRuntime` assembles, from which its handle is built. */
interface RuntimeParts {
  readonly entries: Map<string, RuntimeEntry>;
  readonly children: ChildCaches;
  readonly client: ReturnType<typeof apiParts>['client'];
  readonly events: ReturnType<typeof apiParts>['events'];
  readonly peers: ShardPeers | undefined;
  readonly peerView: (name: string) => ReturnType<ShardPeers['cache']>;
  readonly starter: ReturnType<typeof createStarter>;
  readonly presence: CrdPresence;
  readonly tuning: ResolvedTuning;
  readonly liveState: LiveRuntimeState;
  readonly compiled: CompiledKatalog;
  /** The Katalog file as written, for the Live API's `/katalog/raw`. */
  readonly source: unknown;
  /** The process's metrics, for the Live API's `/api/v1/query`. */
  readonly metricSamples: MetricSamples | undefined;
  readonly crossAuthorize: CrossAuthorize | undefined;
  readonly hooks: ReturnType<typeof createHookServices>;
  readonly wiring: ReturnType<typeof wireWatches>;
  readonly notifier: Notifier | undefined;
  readonly watches: WatchTriggers;
  readonly copySources: WatchTriggers;
}

/** runtimeHandle is the `KatalogRuntime` over its parts: start and stop order, readiness, views. */
function runtimeHandle(parts: RuntimeParts): KatalogRuntime {
  const { entries, children, client, events, peers, peerView, starter, presence, tuning } = parts;
  const { liveState, compiled, crossAuthorize, hooks, wiring, notifier, watches, copySources } = parts;
  const informers = (): Informer[] => [
    ...children.informers.values(),
    ...watches.informers.values(),
    ...copySources.informers.values(),
    ...(peers?.informers() ?? []),
  ];

  return {
    entries,
    children,
    client,
    events,
    start: async () => {
      if (peers != null) {
        peers.start();
        await peers.waitForSync(AbortSignal.timeout(tuning.syncTimeoutMs));
      }
      await starter.start();
      presence.start();
    },
    startWorkers: () => starter.startWorkers(),
    // The object path (runtime.md §18.5), then the Live API (§18.6), on the cross-read port.
    crossHandler: liveHandlerOf(crossHandlerOf(entries, crossAuthorize, peerView), {
      katalog: { ...compiled.katalog.metadata, lifecycle: compiled.katalog.lifecycle },
      entries,
      state: liveState,
      authorize: crossAuthorize,
      namespace: tuning.namespace,
      peers: peerView,
      documents: { raw: parts.source, enriched: plainJson(compiled.katalog) },
      metrics: parts.metricSamples,
    }),
    hookServices: hookServicesView(hooks, wiring),
    stop: (stopOptions = {}) => stopRuntime(parts, stopOptions),
    isReady: () =>
      // The leader's on-demand kinds (rollout gate) do not make a replica unready.
      starter.started &&
      (peers?.hasSynced(true) ?? true) &&
      [children, watches, ...[...entries.values()].map((e) => e.informer)].every((i) => i.hasSynced()),
    requestCounts: () => ({
      ...diffCounts({}, client.requests.snapshot()),
      ...listWatchBase(entries, informers()),
    }),
    snapshot: () => runtimeSnapshot(entries, informers()),
    waitingEntries: () => starter.waitingEntries(),
    crossShard: peers == null ? undefined : crossShardView(peers),
    notifyRollout: (events, rolloutState) => {
      const notify = compiled.katalog.spec.rollout?.notify;
      if (notify != null) notifier?.rollout(notify, events, rolloutState);
    },
  };
}

/** plainJson is a value as JSON would carry it (the loaded Katalog holds only JSON values). */
function plainJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** compiledWith compiles a Katalog with the runtime's template engine, or takes one already compiled. */
function compiledWith(
  engine: ReturnType<typeof createTemplateEngine>,
  katalog: Katalog | CompiledKatalog,
): CompiledKatalog {
  return 'crds' in katalog && katalog.crds instanceof Map
    ? (katalog as CompiledKatalog)
    : compileKatalog(katalog as Katalog, { engine });
}

/** warnOnly is the runtime logger as the informers' warn-only logger. */
function warnOnly(logger: Logger): { warn: Logger['warn'] } {
  return { warn: (fields, message) => logger.warn({ ...fields }, message) };
}

/** runtimeNotifier is the runtime's one team-notification queue (katalog.md §15.4, ADR 0060), if the Katalog declares teams. */
function runtimeNotifier(
  compiled: CompiledKatalog,
  o: {
    readonly engine: ReturnType<typeof createTemplateEngine>;
    readonly clock: Clock;
    readonly logger: Logger;
    readonly observer: RuntimeObserver;
    readonly tuning: ResolvedTuning;
    readonly kubeReads: KubeReadCache;
    readonly importProtocol: ((specifier: string) => Promise<unknown>) | undefined;
  },
): Notifier | undefined {
  const notification = compiled.katalog.spec.notification;
  if (notification == null) return undefined;
  return new Notifier({
    katalogName: compiled.katalog.metadata.name,
    notification,
    clock: o.clock,
    conditions: conditionsOptions(o.engine, o.clock),
    render: (template, context) => String(o.engine.renderTemplate(template, context)),
    readSecret: (namespace, name, key) => o.kubeReads.secretValue(namespace, name, key),
    readConfigMap: (namespace, name, key) => o.kubeReads.configMapValue(namespace, name, key),
    logger: o.logger.child({ component: 'notify' }),
    count: (channel, result) => o.observer.notification(channel, result),
    allowLinkLocal: o.tuning.allowLinkLocal,
    allowAddresses: o.tuning.allowPrivateAddresses,
    ...(o.importProtocol == null ? {} : { importModule: o.importProtocol }),
  });
}

/** entryPresence watches each entry's CRD: deleted deactivates the entry, back reactivates it (runtime.md §2.9). */
function entryPresence(
  entries: ReadonlyMap<string, RuntimeEntry>,
  o: Omit<ConstructorParameters<typeof CrdPresence>[0], 'targets'>,
): CrdPresence {
  return new CrdPresence({
    ...o,
    targets: [...entries.values()].map((entry) => ({
      name: entry.name,
      crdName: `${entry.controller.crd.apiTypes.plural}.${entry.controller.crd.apiTypes.group}`,
      deactivate: () => entry.controller.deactivate(),
      reactivate: () => entry.controller.reactivate(),
    })),
  });
}

/** hookServicesView is what the operator reads of the hook services (`KatalogRuntime.hookServices`). */
function hookServicesView(
  hooks: ReturnType<typeof createHookServices>,
  wiring: ReturnType<typeof wireWatches>,
): KatalogRuntime['hookServices'] {
  return {
    external: hooks.external,
    crossHttp: hooks.crossHttp,
    crossReaders: hooks.crossReaders,
    kubeReads: hooks.kubeReads,
    git: () => hooks.gitCheckouts(),
    gitPoller: wiring.gitPoller,
    docker: () => hooks.dockerBuilds(),
  };
}

/** crossShardView is the runtime's view of every shard's CRs (ADR 0058). */
function crossShardView(peers: ShardPeers): NonNullable<KatalogRuntime['crossShard']> {
  return {
    watchAll: () => peers.watchAll(),
    hasSynced: () => peers.hasSynced(),
    crs: () => peers.entries().flatMap((name) => peers.cache(name)?.list() ?? []),
    entries: () => peers.entries(),
    cache: (name) => peers.cache(name),
  };
}

/** stopRuntime stops the runtime's parts in order: workers and watches first, pooled connections last. */
async function stopRuntime(
  parts: RuntimeParts,
  stopOptions: Parameters<KatalogRuntime['stop']>[0],
): Promise<void> {
  const { starter, presence, entries, wiring, hooks, notifier, events, children } = parts;
  starter.stop();
  await presence.stop();
  for (const entry of entries.values()) entry.autoscaler?.stop();
  wiring.gitPoller?.stop();
  hooks.stop();
  notifier?.stop();
  await Promise.all([...entries.values()].map((e) => e.controller.stop(stopOptions)));
  await events.flush(2000);
  await children.stop();
  await parts.watches.stop();
  await parts.copySources.stop();
  await parts.peers?.stop();
  // Pooled protocol connections (ADR 0053) end with the runtime: a reload opens new ones.
  await hooks.external.close();
}

/**
 * peerKinds are the entries a shard watches across shards (ADR 0058): from the start, the targets
 * of in-process cross reads and the entries served to peers (`crossAccess`: object path, Live
 * API), whole but for bookkeeping; on demand, every other entry as metadata and status (the
 * leader's rollout gate).
 */
function peerKinds(
  current: readonly CompiledCrd[],
  every: readonly CompiledCrd[],
): { kinds: PeerKind[]; onDemand: PeerKind[] } {
  const names = new Set(current.map((crd) => crd.name));
  const read = new Set<string>();
  for (const crd of every)
    for (const item of crd.entry.operatorBox.cross) if (names.has(item.crd)) read.add(item.crd);
  const kindOf = (crd: CompiledCrd, projection: PeerKind['projection']): PeerKind => ({
    entry: crd.name,
    resource: {
      group: crd.apiTypes.group,
      version: crd.apiTypes.version,
      kind: crd.apiTypes.kind,
      plural: crd.apiTypes.plural,
      namespaced: crd.entry.namespaced,
    },
    projection,
  });
  const kinds: PeerKind[] = [];
  const onDemand: PeerKind[] = [];
  for (const crd of current) {
    if (read.has(crd.name) || crd.entry.crossAccess) kinds.push(kindOf(crd, 'object'));
    else onDemand.push(kindOf(crd, 'status'));
  }
  return { kinds, onDemand };
}

/** revisionsOf is one entry's revision choice (docs/reference/runtime.md §24.2): the previous revision's entry and hooks, when it has one. */
function revisionsOf(
  revisions: RuntimeRevisions | undefined,
  previousCrd: CompiledCrd | undefined,
  hooksOf: (crd: CompiledCrd) => PipelineHooks,
): ControllerRevisions | undefined {
  if (revisions == null) return undefined;
  return {
    current: revisions.current,
    previous:
      previousCrd == null || revisions.previous == null
        ? undefined
        : { revision: revisions.previous.revision, crd: previousCrd, hooks: hooksOf(previousCrd) },
    assign: revisions.assign,
  };
}

/**
 * apiParts are the one API transport (ADR 0013) — children, finalizers, status and Events — with
 * REST metrics, the list-watch client of the informers and the Event recorder. The CR kinds'
 * plural and scope come from their apiTypes, so status patches need no discovery.
 */
function apiParts(
  { kubeConfig, userAgent = 'orkestra' }: Pick<CreateKatalogRuntimeOptions, 'kubeConfig' | 'userAgent'>,
  crds: readonly CompiledCrd[],
  o: {
    readonly clock: Clock;
    readonly logger: Logger;
    readonly observer: RuntimeObserver;
  },
): { readonly client: KubeClient; readonly listWatch: KubeListWatchClient; readonly events: EventRecorder } {
  const host = apiHost(kubeConfig);
  const onRequest = (method: string, status: number, seconds: number): void =>
    o.observer.restRequest(method, status === 0 ? '<error>' : String(status), host, seconds);
  const resources = Object.fromEntries(
    crds.map((crd) => [
      `${crd.apiVersion}/${crd.apiTypes.kind}`,
      { plural: crd.apiTypes.plural, namespaced: crd.entry.namespaced },
    ]),
  );
  // Every HTTP request is reported once when it ends, list pages and discovery included, so the
  // counter agrees with the API server's audit log (ADR 0035).
  const client = createKubeClient({ kubeConfig, resources, userAgent, onRequest });
  const listWatch = new KubeListWatchClient({ kubeConfig, onRequest, userAgent });
  // Entry name by CR apiVersion/kind, for the `controller` label of Event metrics.
  const controllerOf = new Map(crds.map((crd) => [`${crd.apiVersion}/${crd.apiTypes.kind}`, crd.name]));
  const events = new EventRecorder({
    // Through the same client: core v1 Events need no discovery (docs/reference/runtime.md §12).
    writer: createEventWriter(client),
    clock: o.clock,
    onWriteError: (error) => o.logger.debug({ err: errorForLog(error) }, 'event write failed'),
    onRecorded: (subject, type, reason) =>
      o.observer.event(controllerOf.get(`${subject.apiVersion}/${subject.kind}`) ?? '', type, reason),
    onDropped: () => o.observer.eventDropped(),
  });
  return { client, listWatch, events };
}

/** childKindUsers are the child kinds to watch (the previous revision's too: its CRs still reconcile), with the entries using each. */
function childKindUsers(crds: readonly CompiledCrd[]): Map<string, ChildKindSpec & { crds: string[] }> {
  const kindUsers = new Map<string, ChildKindSpec & { crds: string[] }>();
  for (const crd of crds) {
    for (const kind of crd.childKinds) {
      const key = `${kind.apiVersion}/${kind.kind}`;
      const spec = kindUsers.get(key) ?? { ...kind, crds: [] };
      if (!spec.crds.includes(crd.name)) spec.crds.push(crd.name);
      kindUsers.set(key, spec);
    }
  }
  return kindUsers;
}

/**
 * childInformers are the runtime's caches beside the primary ones: the child caches (one informer
 * per child kind the entries use, the previous revision's too) and the watch triggers — each
 * entry's `watch` and `enrich` items re-queue its CRs; so do the literal sources of `copyFrom`
 * Secrets, best effort (docs/reference/runtime.md §4.1).
 */
function childInformers(o: {
  /** The entries of the running Katalog and of its previous revision. */
  readonly every: readonly CompiledCrd[];
  readonly informerParts: Omit<Parameters<typeof watchTriggers>[1], 'conditions'>;
  readonly conditions: EvaluateConditionsOptions;
  /** The Katalog's entries (filled after this; read when a watched object changes). */
  readonly entries: ReadonlyMap<string, RuntimeEntry>;
  readonly shard: RuntimeShard | undefined;
}): {
  kindUsers: Map<string, ChildKindSpec & { crds: string[] }>;
  children: ChildCaches;
  watches: WatchTriggers;
  copySources: WatchTriggers;
} {
  const { every, informerParts, conditions, entries } = o;
  const { tuning, logger } = informerParts;
  const kindUsers = childKindUsers(every);
  const children = new ChildCaches({
    ...informerParts,
    ...{ kinds: [...kindUsers.values()], shardSelector: shardSelector(o.shard) },
    ...(tuning.namespace == null ? {} : { namespace: tuning.namespace }),
    ...{ watchIdleTimeoutMs: tuning.watchIdleTimeoutMs, logger: warnOnly(logger) },
  });
  const watches = watchTriggers(
    watchingOf(every, (entry) => [...(entry.watch ?? []), ...enrichWatchItems(entry)]),
    { ...informerParts, conditions },
    entries,
  );
  const copySources = watchTriggers(
    watchingOf(every, copySourceWatches),
    { ...informerParts, conditions },
    entries,
  );
  return { kindUsers, children, watches, copySources };
}

/** enrichSourcesOf is what `enrich` reads: the informers its watch items start (docs/reference/katalog.md §3.5). */
function enrichSourcesOf(watches: WatchTriggers): EnrichSources {
  return {
    pods: (namespace) => watches.objects('v1', 'Pod', namespace),
    endpointSlices: (namespace) => watches.objects('discovery.k8s.io/v1', 'EndpointSlice', namespace),
    replicaSets: (namespace) => watches.objects('apps/v1', 'ReplicaSet', namespace),
    claims: (namespace) => watches.objects('v1', 'PersistentVolumeClaim', namespace),
    jobs: (namespace) => watches.objects('batch/v1', 'Job', namespace),
    nodes: () => watches.objects('v1', 'Node', ''),
    volumes: () => watches.objects('v1', 'PersistentVolume', ''),
    storageClasses: () => watches.objects('storage.k8s.io/v1', 'StorageClass', ''),
    warningEvents: (namespace) => watches.objects('v1', 'Event', namespace, 'type=Warning'),
  };
}

/**
 * entryHooks gives each entry its pipeline hooks (the hook table's, its team notifications, a
 * test's slots over them) and, for an entry with a reconcile gate, how a held reconcile notifies
 * (ADR 0070: through the same planner, queue and interval gate).
 */
function entryHooks(o: {
  readonly katalogHooks: KatalogHooks;
  readonly notifier: Notifier | undefined;
  readonly slots: KatalogRuntimeOptions['hooks'];
}): {
  hooksOf: (crd: CompiledCrd) => PipelineHooks;
  gateNotifyOf: (crd: CompiledCrd) => ((context: Readonly<Record<string, unknown>>) => void) | undefined;
} {
  const { katalogHooks, notifier, slots } = o;
  const hooksOf = (crd: CompiledCrd): PipelineHooks => {
    const notify = notifier?.forEntry({ name: crd.name, kind: crd.apiTypes.kind, entry: crd.entry });
    return { ...katalogHooks.hooksFor(crd), ...(notify == null ? {} : { notify }), ...slots?.[crd.name] };
  };
  const gateNotifyOf = (
    crd: CompiledCrd,
  ): ((context: Readonly<Record<string, unknown>>) => void) | undefined => {
    const gate = crd.entry.preReconcile?.reconcileGate;
    return gate == null
      ? undefined
      : notifier?.forEntry({ name: crd.name, kind: crd.apiTypes.kind, entry: heldNotifySource(gate) });
  };
  return { hooksOf, gateNotifyOf };
}

/** watchingOf lists the entries with watched objects (`itemsOf`), each item once. */
function watchingOf(
  crds: readonly CompiledCrd[],
  itemsOf: (entry: CrdEntry) => readonly WatchItem[],
): WatchingEntry[] {
  const watching = new Map<string, WatchingEntry>();
  for (const crd of crds) {
    const items = [...(watching.get(crd.name)?.items ?? [])];
    for (const item of itemsOf(crd.entry))
      if (!items.some((i) => JSON.stringify(i) === JSON.stringify(item))) items.push(item);
    watching.set(crd.name, { name: crd.name, namespaced: crd.entry.namespaced, items });
  }
  return [...watching.values()].filter((e) => e.items.length > 0);
}

/** watchTriggers re-queues the CRs of the entries whose watched objects change (docs/reference/runtime.md §4.1). */
function watchTriggers(
  watching: readonly WatchingEntry[],
  o: {
    readonly listWatch: KubeListWatchClient;
    readonly client: KubeClient;
    readonly clock: Clock;
    readonly random: () => number;
    readonly tuning: ReturnType<typeof resolveTuning>;
    readonly logger: Logger;
    readonly observer: RuntimeObserver;
    readonly conditions: EvaluateConditionsOptions;
  },
  entries: ReadonlyMap<string, RuntimeEntry>,
): WatchTriggers {
  return new WatchTriggers({
    entries: watching,
    listWatch: o.listWatch,
    client: o.client,
    clock: o.clock,
    random: o.random,
    namespace: o.tuning.namespace,
    watchIdleTimeoutMs: o.tuning.watchIdleTimeoutMs,
    logger: { warn: (fields, message) => o.logger.warn({ ...fields }, message) },
    observer: o.observer,
    isCrUid: (entry, uid) => entries.get(entry)?.cache.keyOfUid(uid) != null,
    conditions: o.conditions,
    // A watch item's gate is an enqueue gate: counted as one (docs/reference/katalog.md §3.2, §20.3).
    onGated: (name, verdict) => {
      o.observer.reconcileGated(name, GateName.Enqueue, verdict.reason);
      o.logger.debug({ entry: name, why: verdict.message }, 'a watch enqueueGate held the change');
    },
    onRoute: (name, route) => {
      const controller = entries.get(name)?.controller;
      if (controller == null) return;
      if (route.kind === 'all') controller.enqueueAll();
      else if (route.kind === 'keys') for (const key of route.keys) controller.enqueueKey(key);
      else for (const uid of route.uids) controller.enqueueOwner(uid);
    },
  });
}

/** runtimeEntry is one entry's machinery: its controller and, with `autoscale`, its autoscaler. */
function runtimeEntry(
  controller: CrdController,
  o: {
    readonly clock: Clock;
    readonly logger: Logger;
    readonly crossHttp: CrossHttpClient;
    /** The Katalog's entries (filled while they are built; read at each tick). */
    readonly entries: ReadonlyMap<string, RuntimeEntry>;
    readonly env: Readonly<Record<string, string | undefined>>;
    /** Where an autoscale source's `auth.secretRef` without a namespace is read (ADR 0079). */
    readonly operatorNamespace: string;
    readonly credential: HookServices['crossCredential'];
  },
): RuntimeEntry {
  const crd = controller.crd;
  const autoscale = crd.entry.autoscale;
  const config =
    autoscale == null || !autoscale.enabled ? undefined : resolveAutoscaleConfig(autoscale, crd.entry);
  const autoscaler =
    config == null
      ? undefined
      : new Autoscaler({
          config,
          target: {
            resizeWorkers: (n) => controller.dispatcher.resize(n),
            setQueueDepthLimit: (n) => controller.queue.setMaxDepth(n),
            setResyncInterval: (ms) => controller.resync.setInterval(ms),
          },
          inputs: dispatcherInputs({
            dispatcher: controller.dispatcher,
            queue: controller.queue,
            intervalMs: config.intervalMs,
            clock: o.clock,
          }),
          clock: o.clock,
          logger: o.logger,
          entry: crd.name,
          ...(crossNames(config.rules).length === 0
            ? {}
            : {
                readCross: autoscaleCrossReader({
                  rules: config.rules,
                  sources: autoscale?.sources ?? [],
                  entryCross: crd.entry.operatorBox.cross,
                  local: localInputs(o, config.intervalMs),
                  http: o.crossHttp,
                  env: o.env,
                  operatorNamespace: o.operatorNamespace,
                  ...(o.credential == null ? {} : { credential: o.credential }),
                }),
              }),
        });
  return {
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
    autoscaler,
  };
}

/** localInputs measures other entries of this Katalog for `cross.<entry>.metrics.*` (one measurer per entry read). */
function localInputs(
  o: { readonly entries: ReadonlyMap<string, RuntimeEntry>; readonly clock: Clock },
  intervalMs: number,
): (name: string) => (() => AutoscaleInputs) | undefined {
  const measurers = new Map<string, () => AutoscaleInputs>();
  return (name) => {
    if (!o.entries.has(name)) return undefined;
    return () => {
      let measure = measurers.get(name);
      const entry = o.entries.get(name);
      if (measure == null && entry != null) {
        measure = dispatcherInputs({
          dispatcher: entry.dispatcher,
          queue: entry.queue,
          intervalMs,
          clock: o.clock,
        });
        measurers.set(name, measure);
      }
      return measure?.() ?? { depth: 0, workers: 0, busyPercent: 0, p95Ms: 0, errorRatePercent: 0 };
    };
  };
}

/** crossTarget is an entry of this Katalog as the target of in-process cross reads (its primary cache). */
function crossTarget(
  entry: RuntimeEntry | undefined,
  view: CrossTarget['cache'] | undefined,
): CrossTarget | undefined {
  return entry == null
    ? undefined
    : { namespaced: entry.controller.crd.entry.namespaced, cache: view ?? entry.cache };
}

/** crossHandlerOf serves other operators' cross reads from the entries' primary caches. */
function crossHandlerOf(
  entries: ReadonlyMap<string, RuntimeEntry>,
  authorize: CrossAuthorize | undefined,
  view: (entry: string) => CrossTarget['cache'] | undefined,
): CrossHandler {
  return createCrossHandler({
    entries: new Map(
      [...entries.values()].map((entry): [string, CrossHandlerEntry] => [
        entry.name,
        {
          crossAccess: entry.controller.crd.entry.crossAccess,
          namespaced: entry.controller.crd.entry.namespaced,
          resource: {
            group: entry.controller.crd.apiTypes.group,
            plural: entry.controller.crd.apiTypes.plural,
          },
          lookup: (namespace, name) => (view(entry.name) ?? entry.cache).getByName(namespace, name),
        },
      ]),
    ),
    ...(authorize == null ? {} : { authorize }),
  });
}

/** listWatchBase counts the list and watch requests of every informer, by `list <path>` / `watch <path>`. */
function listWatchBase(
  entries: ReadonlyMap<string, RuntimeEntry>,
  informers: readonly Informer[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const informer of [...[...entries.values()].map((e) => e.informer), ...informers]) {
    const s = informer.stats();
    out[`list ${informer.path}`] = s.listRequests;
    out[`watch ${informer.path}`] = s.watchRequests;
  }
  return out;
}

/** runtimeSnapshot reads the gauges of docs/reference/runtime.md §18.2 now. */
function runtimeSnapshot(
  entries: ReadonlyMap<string, RuntimeEntry>,
  informers: readonly Informer[],
): RuntimeSnapshot {
  return {
    entries: [...entries.values()].map((entry) => {
      const dispatcher = entry.dispatcher.stats();
      const autoscale = entry.controller.crd.entry.autoscale;
      return {
        controller: entry.name,
        depth: entry.queue.stats().depth,
        activeWorkers: dispatcher.inFlight,
        maxConcurrentReconciles: dispatcher.capacity,
        unfinishedWorkSeconds: dispatcher.unfinishedWorkMs / 1000,
        longestRunningSeconds: dispatcher.longestRunningMs / 1000,
        workersStarted: entry.controller.stats().workersStarted,
        ...(autoscale == null || !autoscale.enabled
          ? {}
          : {
              autoscale: {
                workers: dispatcher.capacity,
                queueDepthLimit: entry.queue.maxDepth,
                resyncSeconds: entry.resync.intervalMs / 1000,
              },
            }),
      };
    }),
    caches: [
      ...[...entries.values()].map((entry) => ({
        resource: resourceLabel(entry.informer.resource),
        objects: entry.cache.size,
      })),
      ...informers.map((informer) => ({
        resource: resourceLabel(informer.resource),
        objects: informer.cache.size,
      })),
    ],
  };
}

/** apiHost is the `host` label of REST client metrics: the API server's host and port. */
function apiHost(kubeConfig: KubeConfig): string {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server == null) return '';
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}
