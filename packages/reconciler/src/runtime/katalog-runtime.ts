/**
 * The top-level runtime for the operator: every enabled CRD entry of one Katalog, its informers,
 * queues and workers, over one API client (docs/reference/runtime.md §2).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, diffCounts } from '@orkestra/registry';
import type { KubeClient, RequestCounts } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import type {
  CrdEntry,
  EvaluateConditionsOptions,
  Katalog,
  Logger,
  Provider,
  WatchItem,
} from '@orkestra/types';
import { OrkestraAnnotation, copySourceWatches, hasBuiltinKinds } from '@orkestra/types';
import { pino } from 'pino';
import { CacheChangeType } from '../cache.js';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { EventRecorder } from '../events/event-recorder.js';
import { KubeListWatchClient } from '../list-watch-client.js';
import { Autoscaler, dispatcherInputs } from '../autoscaler/autoscaler.js';
import { resolveAutoscaleConfig } from '../autoscaler/decide.js';
import { CrossReaders } from '../hooks/cross.js';
import { createCrossHandler } from '../hooks/cross-handler.js';
import { createLiveApiHandler, liveAnswer } from '../hooks/live-api.js';
import type { LiveApiEntry, LiveEvent } from '../hooks/live-api.js';
import type { CrossAuthorize, CrossHandler, CrossHandlerEntry } from '../hooks/cross-handler.js';
import { CrossHttpClient } from '../hooks/cross-http.js';
import { DockerBuildManager } from '../hooks/docker.js';
import { ExternalCaller } from '../hooks/external.js';
import { GitCheckouts, GitPoller } from '../hooks/git.js';
import type { GitRefresh } from '../hooks/git.js';
import { KatalogHooks, parseReaderId } from './katalog-hooks.js';
import { KubeReadCache } from './kube-reader.js';
import { ProviderDispatch } from './provider-dispatch.js';
import { ChildCaches, routeChildChange } from './child-caches.js';
import { WatchTriggers } from './watch-triggers.js';
import type { WatchingEntry } from './watch-triggers.js';
import type { ChildKindSpec } from './child-caches.js';
import { compileKatalog } from './compile-katalog.js';
import type { CompiledCrd, CompiledKatalog } from './compile-katalog.js';
import { CrdController } from './crd-controller.js';
import type { PipelineHooks } from './reconcile-pipeline.js';
import { StartGate } from './depends-on.js';
import { createEventWriter } from './event-writer.js';
import { errorForLog, serializeError } from './log-error.js';
import { completeObserver, resourceLabel } from './runtime-observer.js';
import type { RuntimeObserver, RuntimeSnapshot } from './runtime-observer.js';
import { resolveTuning } from './tuning.js';
import type { RuntimeTuning } from './tuning.js';
import type { RuntimeRevisions } from '../rollout/revisions.js';

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
}

/** CreateKatalogRuntimeOptions is what createKatalogRuntime needs. */
export interface CreateKatalogRuntimeOptions {
  /** A loaded Katalog (`loadKatalog`), or one already compiled with `compileKatalog`. */
  readonly katalog: Katalog | CompiledKatalog;
  readonly kubeConfig: KubeConfig;
  /** `User-Agent` of every API request, so the API server's audit log names the operator (ADR 0035). Default `orkestra`. */
  readonly userAgent?: string;
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
  /** Loaded providers by name (`spec.providers`); a provider missing here fails its declarations with `ProviderFailed`. */
  readonly providers?: ReadonlyMap<string, Provider>;
  /**
   * Receives counters and histograms as events (docs/reference/runtime.md §18.2); the operator's `MetricsSink`
   * fits as it is. Methods left out are not called. Default: none.
   */
  readonly observer?: Partial<RuntimeObserver>;
  readonly options?: KatalogRuntimeOptions;
  /** issue 21: the revision of this Katalog, the previous one and which a CR gets (docs/reference/runtime.md §24.2). Default: one revision, unrecorded. */
  readonly revisions?: RuntimeRevisions;
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
  const tuning = resolveTuning(options.options);
  const slots = options.options?.hooks;
  const engine = createTemplateEngine({ clock: { now: () => clock.now() }, random: bytes });
  const compile = (katalog: Katalog | CompiledKatalog): CompiledKatalog =>
    'crds' in katalog && katalog.crds instanceof Map
      ? (katalog as CompiledKatalog)
      : compileKatalog(katalog as Katalog, { engine });
  const compiled = compile(options.katalog);
  const revisions = options.revisions;
  const previous = revisions?.previous == null ? undefined : compile(revisions.previous.katalog);
  const katalogName = compiled.katalog.metadata.name;
  const runtimeStartedAt = clock.now();
  const logger: Logger = (
    options.logger ??
    (pino({
      level: 'info',
      redact: ['*.data', '*.stringData', 'data', 'stringData'],
      serializers: { err: (error: unknown) => serializeError(error, false) },
    }) as unknown as Logger)
  ).child({
    katalog: katalogName,
  });
  const observer = completeObserver(options.observer);
  const host = apiHost(options.kubeConfig);
  const onRequest = (method: string, status: number, seconds: number): void =>
    observer.restRequest(method, status === 0 ? '<error>' : String(status), host, seconds);
  // The one API transport (ADR 0013): children, finalizers, status and Events. The CR kinds'
  // plural and scope come from their apiTypes, so status patches need no discovery.
  const crResources = Object.fromEntries(
    [...compiled.crds.values()].map((crd) => [
      `${crd.apiVersion}/${crd.apiTypes.kind}`,
      { plural: crd.apiTypes.plural, namespaced: crd.entry.namespaced },
    ]),
  );
  // Every HTTP request is reported once when it ends, list pages and discovery included, so the
  // counter agrees with the API server's audit log (ADR 0035).
  const userAgent = options.userAgent ?? 'orkestra';
  const client = createKubeClient({
    kubeConfig: options.kubeConfig,
    resources: crResources,
    userAgent,
    onRequest,
  });
  const listWatch = new KubeListWatchClient({ kubeConfig: options.kubeConfig, onRequest, userAgent });
  // Entry name by CR apiVersion/kind, for the `controller` label of Event metrics.
  const controllerOf = new Map<string, string>();
  const events = new EventRecorder({
    // Through the same client: core v1 Events need no discovery (docs/reference/runtime.md §12).
    writer: createEventWriter(client),
    clock,
    onWriteError: (error) => logger.debug({ err: errorForLog(error) }, 'event write failed'),
    onRecorded: (subject, type, reason) =>
      observer.event(controllerOf.get(`${subject.apiVersion}/${subject.kind}`) ?? '', type, reason),
    onDropped: () => observer.eventDropped(),
  });
  // The Live API's `/events` answers from the Events this process recorded (runtime.md §18.6): no API read.
  const liveEvents = new Map<string, LiveEvent[]>();
  const recordEvent = events.record.bind(events);
  events.record = (subject, type, reason, message) => {
    const queued = recordEvent(subject, type, reason, message);
    const key = `${subject.apiVersion}/${subject.kind}/${subject.metadata.namespace ?? ''}/${subject.metadata.name ?? ''}`;
    const list = liveEvents.get(key) ?? [];
    const at = clock.now();
    const same = list.find((e) => e.type === type && e.reason === reason && e.message === message);
    const next =
      same == null
        ? { type, reason, message, firstSeen: at, lastSeen: at, count: 1 }
        : { ...same, lastSeen: at, count: same.count + 1 };
    const kept = [...list.filter((e) => e !== same), next].slice(-20);
    liveEvents.delete(key);
    liveEvents.set(key, kept);
    // At most 10 000 CRs are remembered; the least recently seen go first.
    if (liveEvents.size > 10_000) liveEvents.delete(liveEvents.keys().next().value ?? '');
    return queued;
  };
  for (const crd of compiled.crds.values())
    controllerOf.set(`${crd.apiVersion}/${crd.apiTypes.kind}`, crd.name);

  const kindUsers = new Map<string, ChildKindSpec & { crds: string[] }>();
  // issue 21: the previous revision's child kinds are watched too (its CRs still reconcile).
  for (const crd of [...compiled.crds.values(), ...(previous?.crds.values() ?? [])]) {
    for (const kind of crd.childKinds) {
      const key = `${kind.apiVersion}/${kind.kind}`;
      const spec = kindUsers.get(key) ?? { ...kind, crds: [] };
      if (!spec.crds.includes(crd.name)) spec.crds.push(crd.name);
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
    watchIdleTimeoutMs: tuning.watchIdleTimeoutMs,
    logger: { warn: (fields, message) => logger.warn({ ...fields }, message) },
    observer,
  });
  // issue 14: each entry's `watch` items (the previous revision's too) re-queue its CRs; so do the
  // literal sources of `copyFrom` Secrets, best effort (not awaited: a source the RBAC does not let
  // the operator watch is still read at each reconcile, docs/reference/runtime.md §4.1).
  const watchingOf = (itemsOf: (entry: CrdEntry) => readonly WatchItem[]): WatchingEntry[] => {
    const watching = new Map<string, WatchingEntry>();
    for (const crd of [...compiled.crds.values(), ...(previous?.crds.values() ?? [])]) {
      const items = [...(watching.get(crd.name)?.items ?? [])];
      for (const item of itemsOf(crd.entry))
        if (!items.some((i) => JSON.stringify(i) === JSON.stringify(item))) items.push(item);
      watching.set(crd.name, { name: crd.name, namespaced: crd.entry.namespaced, items });
    }
    return [...watching.values()].filter((e) => e.items.length > 0);
  };
  const triggers = (watching: readonly WatchingEntry[]): WatchTriggers =>
    new WatchTriggers({
      entries: watching,
      listWatch,
      client,
      clock,
      random,
      namespace: tuning.namespace,
      watchIdleTimeoutMs: tuning.watchIdleTimeoutMs,
      logger: { warn: (fields, message) => logger.warn({ ...fields }, message) },
      observer,
      isCrUid: (entry, uid) => entries.get(entry)?.cache.keyOfUid(uid) != null,
      onRoute: (name, route) => {
        const controller = entries.get(name)?.controller;
        if (controller == null) return;
        if (route.kind === 'all') controller.enqueueAll();
        else if (route.kind === 'keys') for (const key of route.keys) controller.enqueueKey(key);
        else for (const uid of route.uids) controller.enqueueOwner(uid);
      },
    });
  const watches = triggers(watchingOf((entry) => entry.watch ?? []));
  const copySources = triggers(watchingOf(copySourceWatches));
  const scopes = new Map<string, boolean>();
  const customScope = (apiVersion: string, kind: string): boolean | undefined =>
    scopes.get(`${apiVersion}/${kind}`);

  const entries = new Map<string, RuntimeEntry>();
  // ---- hooks and providers (steps 9–12, 16; docs/reference/runtime.md §14)
  const env = options.options?.env ?? process.env;
  const conditions: EvaluateConditionsOptions = {
    renderTemplate: (source, context) => engine.renderTemplate(source, context),
    now: () => new Date(clock.now()),
  };
  const kubeReads = new KubeReadCache({ client, clock });
  const external = new ExternalCaller({
    readSecret: (namespace, name, key) => kubeReads.secretValue(namespace, name, key),
    env,
    clock,
    allowLinkLocal: tuning.allowLinkLocal,
    allowAddresses: tuning.allowPrivateAddresses,
  });
  // The address guard covers cross HTTP reads like external calls (issue 20).
  const crossHttp = new CrossHttpClient({
    clock,
    allowLinkLocal: tuning.allowLinkLocal,
    allowAddresses: tuning.allowPrivateAddresses,
    ...(options.options?.crossToken == null ? {} : { token: options.options.crossToken }),
  });
  const crossReaders = new CrossReaders();
  const enqueueReader = (id: string): void => {
    const { crd, key } = parseReaderId(id);
    entries.get(crd)?.controller.enqueueKey(key);
  };
  let gitCheckouts: GitCheckouts | undefined;
  const git = (): GitCheckouts =>
    (gitCheckouts ??= new GitCheckouts({
      workDir: tuning.workDir ?? mkdtempSync(join(tmpdir(), 'orkestra-git-')),
      clock,
      env,
      allowLinkLocal: tuning.allowLinkLocal,
      allowAddresses: tuning.allowPrivateAddresses,
    }));
  let dockerBuilds: DockerBuildManager | undefined;
  const docker = (): DockerBuildManager =>
    (dockerBuilds ??= new DockerBuildManager({
      clock,
      env,
      ...(tuning.workDir == null ? {} : { workDir: tuning.workDir }),
      maxConcurrentBuilds: tuning.maxConcurrentBuilds,
      onBuildFinished: ({ waiters }) => {
        for (const waiter of waiters) enqueueReader(waiter);
      },
    }));
  const katalogHooks = new KatalogHooks({
    conditions,
    external,
    crossHttp,
    crossReaders,
    lookup: (name) => {
      const entry = entries.get(name);
      return entry == null
        ? undefined
        : { namespaced: entry.controller.crd.entry.namespaced, cache: entry.cache };
    },
    // Live API answers of this operator's own kinds, built in process (ADR 0043).
    liveAnswer: (crd, protocol, namespace, name) => {
      const entry = entries.get(crd);
      return entry == null
        ? undefined
        : liveAnswer(liveApiEntry(entry), protocol, namespace, name, {
            isKonductor: leader,
            now: () => clock.now(),
            startedAt: runtimeStartedAt,
          });
    },
    crossCredential: async (auth, namespace) => {
      if (auth.env != null) {
        const variable = auth.env.replace(/^\$\{?/, '').replace(/\}$/, '');
        const value = env[variable];
        return value == null || value === ''
          ? { error: `environment variable ${variable} is not set` }
          : { id: `env:${variable}`, value };
      }
      const ref = auth.secretRef;
      const ns = ref?.namespace ?? namespace ?? '';
      if (ref == null || ns === '')
        return { error: 'auth.secretRef needs a namespace for a cluster-scoped CR' };
      const value = await kubeReads.secretValue(ns, ref.name, ref.key).catch(() => undefined);
      return value == null || value === ''
        ? { error: `secret ${ns}/${ref.name} has no key ${ref.key}` }
        : { id: `secret:${ns}/${ref.name}/${ref.key}`, value };
    },
    git,
    docker,
  });
  const dispatch = new ProviderDispatch({
    katalogName,
    providers: options.providers ?? new Map(),
    kube: kubeReads,
    clock,
    conditions,
  });
  const pollMs = [...compiled.crds.values()].map((crd) => crd.hooks.git?.pollMs ?? 0).filter((ms) => ms > 0);
  const gitPoller =
    pollMs.length === 0
      ? undefined
      : new GitPoller({
          checkouts: {
            refresh: (o) => (gitCheckouts == null ? Promise.resolve([]) : gitCheckouts.refresh(o)),
          },
          tickMs: tuning.gitPollTickMs ?? Math.max(1000, Math.min(15_000, ...pollMs)),
          clock,
          onNewCommits: (refreshes) => void enqueueGitReaders(refreshes),
          onError: (refresh) =>
            logger.warn(
              { repo: refresh.repo, branch: refresh.branch, err: refresh.error },
              'git poll failed',
            ),
        });
  const enqueueGitReaders = async (refreshes: readonly GitRefresh[]): Promise<void> => {
    for (const refresh of refreshes) {
      for (const reader of katalogHooks.gitReadersOf(refresh)) {
        const commit = await git().lastCommit(reader.repo, reader.branch, reader.path);
        const cr = entries.get(reader.crd)?.cache.get(reader.key);
        if (cr == null) continue;
        if (commit === '' || cr.metadata.annotations?.[OrkestraAnnotation.LastCommit] !== commit)
          entries.get(reader.crd)?.controller.enqueueKey(reader.key);
      }
    }
  };

  const hooksOf = (crd: CompiledCrd): PipelineHooks => ({
    ...katalogHooks.hooksFor(crd),
    ...(crd.hooks.providers.length === 0
      ? {}
      : {
          providers: (input) => dispatch.reconcile(input),
        }),
    deleteProviders: (input) => dispatch.delete(input),
    ...slots?.[crd.name],
  });
  for (const crd of compiled.crds.values()) {
    const previousCrd = previous?.crds.get(crd.name);
    const controller = new CrdController({
      katalogName,
      crd,
      listWatch,
      client,
      children,
      engine,
      clock,
      random,
      randomBytes: bytes,
      logger,
      events,
      tuning,
      hooks: hooksOf(crd),
      revision:
        revisions == null
          ? undefined
          : {
              current: revisions.current,
              previous:
                previousCrd == null || revisions.previous == null
                  ? undefined
                  : { revision: revisions.previous.revision, crd: previousCrd, hooks: hooksOf(previousCrd) },
              assign: revisions.assign,
            },
      observer,
      onPrimaryChange: (change) => {
        if (change.type === CacheChangeType.Delete) katalogHooks.forget(crd.name, change.key);
        if (crossReaders.size === 0) return;
        for (const reader of crossReaders.readersOf(crd.name, change.object, change.old))
          enqueueReader(reader);
      },
      customScope,
    });
    const autoscale = crd.entry.autoscale;
    const autoscaleConfig =
      autoscale == null || !autoscale.enabled ? undefined : resolveAutoscaleConfig(autoscale, crd.entry);
    const autoscaler =
      autoscaleConfig == null
        ? undefined
        : new Autoscaler({
            config: autoscaleConfig,
            target: {
              resizeWorkers: (n) => controller.dispatcher.resize(n),
              setQueueDepthLimit: (n) => controller.queue.setMaxDepth(n),
              setResyncInterval: (ms) => controller.resync.setInterval(ms),
            },
            inputs: dispatcherInputs({
              dispatcher: controller.dispatcher,
              queue: controller.queue,
              intervalMs: autoscaleConfig.intervalMs,
              clock,
            }),
            clock,
            logger,
            entry: crd.name,
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
      autoscaler,
    });
  }

  // A child event enqueues its owner: crd label → entry, owner-uid label → primary UID index → key;
  // issue 18: a readiness transition in the high lane (routeChildChange, docs/reference/runtime.md §5.3).
  children.subscribe((change) => {
    const route = routeChildChange(change, (object) => children.isOwnVersion(object));
    if (route == null) return;
    entries.get(route.crd)?.controller.enqueueOwner(route.ownerUid, route.isOwnWrite, route.priority);
  });

  let leader = options.leaderElected ?? true;
  let started = false;
  // Workers start in dependsOn order; a background check every 5 s starts the rest (docs/reference/runtime.md §2.7).
  const gate = new StartGate({
    entries: [...entries.values()].map((entry) => ({
      name: entry.name,
      dependsOn: entry.controller.crd.entry.dependsOn,
      stats: () => entry.controller.stats(),
      start: () => {
        entry.controller.startWorkers();
        entry.autoscaler?.start();
      },
    })),
    clock,
    onStarted: (name) => logger.debug({ controller: name }, 'workers started'),
    onWaiting: (name, unmet) =>
      logger.debug({ controller: name, waitingFor: unmet }, 'workers wait for dependsOn'),
  });
  let gateStarted = false;
  const startWorkers = (): void => {
    leader = true;
    if (!started || gateStarted) return;
    gateStarted = true;
    gate.start();
    gitPoller?.start();
  };
  const liveApiEntry = (entry: RuntimeEntry): LiveApiEntry => {
    const crd = entry.controller.crd;
    return {
      name: entry.name,
      crossAccess: crd.entry.crossAccess,
      namespaced: crd.entry.namespaced,
      apiTypes: crd.apiTypes,
      resync: crd.entry.resync,
      workersSource:
        entry.autoscaler != null && entry.dispatcher.stats().capacity !== crd.entry.workers
          ? 'autoscaler'
          : 'configured',
      health: () => {
        const stats = entry.controller.stats();
        const dispatcher = entry.dispatcher.stats();
        return {
          synced: stats.synced,
          workersStarted: stats.workersStarted,
          reconciles: stats.reconciles,
          successes: stats.successes,
          consecutiveFailures: stats.consecutiveFailures,
          lastSuccessAt: stats.lastSuccessAt,
          lastError: '',
          queueDepth: entry.queue.stats().depth,
          workers: dispatcher.capacity,
          activeWorkers: dispatcher.inFlight,
          unhealthyDependencies: gateStarted && gate.waiting().includes(entry.name),
        };
      },
      list: () => entry.cache.list(),
      get: (namespace, name) => entry.cache.getByName(namespace, name),
      events: (namespace, name) =>
        liveEvents.get(`${crd.apiVersion}/${crd.apiTypes.kind}/${namespace ?? ''}/${name}`) ?? [],
    };
  };
  const listWatchBase = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const entry of entries.values()) {
      const s = entry.informer.stats();
      out[`list ${entry.informer.path}`] = s.listRequests;
      out[`watch ${entry.informer.path}`] = s.watchRequests;
    }
    for (const informer of [
      ...children.informers.values(),
      ...watches.informers.values(),
      ...copySources.informers.values(),
    ]) {
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
          if (kind.apiVersion.includes('/') && !hasBuiltinKinds(kind.apiVersion)) {
            const info = await client.discover(kind);
            scopes.set(`${kind.apiVersion}/${kind.kind}`, info.namespaced);
          }
        }
      }
      await children.start();
      await watches.start();
      await copySources.start();
      for (const entry of entries.values()) entry.controller.startInformer();
      const signal = AbortSignal.timeout(tuning.syncTimeoutMs);
      await Promise.all([
        children.waitForSync(signal),
        watches.waitForSync(signal),
        ...[...entries.values()].map((e) => e.controller.waitForSync(signal)),
      ]);
      started = true;
      logger.info({ entries: [...entries.keys()], childKinds: [...kindUsers.keys()] }, 'informers synced');
      if (leader) startWorkers();
    },
    startWorkers,
    crossHandler: (() => {
      const objects = createCrossHandler({
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
              lookup: (namespace, name) => entry.cache.getByName(namespace, name),
            },
          ]),
        ),
        ...(options.options?.crossAuthorize == null ? {} : { authorize: options.options.crossAuthorize }),
      });
      const liveEntries = new Map(
        [...entries.values()].map((entry): [string, LiveApiEntry] => [entry.name, liveApiEntry(entry)]),
      );
      const live = createLiveApiHandler({
        katalog: {
          name: katalogName,
          ...(compiled.katalog.metadata.version === '' ? {} : { version: compiled.katalog.metadata.version }),
        },
        entries: () => liveEntries,
        isKonductor: () => leader,
        ready: () => started,
        authorize:
          options.options?.crossAuthorize ??
          (() =>
            Promise.resolve({
              ok: false,
              status: 401,
              message: 'the Live API is not served without an authorizer',
            })),
        now: () => clock.now(),
        startedAt: runtimeStartedAt,
        namespace: tuning.namespace,
      });
      return async (request, response) => (await objects(request, response)) || live(request, response);
    })(),
    hookServices: {
      external,
      crossHttp,
      crossReaders,
      kubeReads,
      git: () => gitCheckouts,
      gitPoller,
      docker: () => dockerBuilds,
    },
    async stop(stopOptions = {}) {
      gate.stop();
      for (const entry of entries.values()) entry.autoscaler?.stop();
      gitPoller?.stop();
      dockerBuilds?.stop();
      await Promise.all([...entries.values()].map((e) => e.controller.stop(stopOptions)));
      await events.flush(2000);
      await children.stop();
      await watches.stop();
      await copySources.stop();
    },
    isReady() {
      return (
        started &&
        children.hasSynced() &&
        watches.hasSynced() &&
        [...entries.values()].every((e) => e.informer.hasSynced())
      );
    },
    requestCounts() {
      return { ...diffCounts({}, client.requests.snapshot()), ...listWatchBase() };
    },
    snapshot() {
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
          ...[
            ...children.informers.values(),
            ...watches.informers.values(),
            ...copySources.informers.values(),
          ].map((informer) => ({
            resource: resourceLabel(informer.resource),
            objects: informer.cache.size,
          })),
        ],
      };
    },
    waitingEntries() {
      return started && gateStarted ? gate.waiting() : [...entries.keys()];
    },
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
