import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  RolloutController,
  RolloutStore,
  RolloutWatch,
  katalogRevision,
  prepareRollout,
} from '@orkestra/reconciler';
import type { KatalogRuntime, PreparedRollout } from '@orkestra/reconciler';
import type { Katalog, Provider } from '@orkestra/types';
import type { DestinationStream } from 'pino';
import type { RunConfig } from './config.js';
import { startHttpServers } from './http-server.js';
import type { ExtraRoute, HttpServers } from './http-server.js';
import { installCrds } from './install-crds.js';
import { formatIssue, loadKatalogFile } from '../katalog-file.js';
import { loadKubeConfig } from './kube-config.js';
import { LeaderElector, eventApiOf, leaseApiOf, leaseNameFor } from './leader-election.js';
import { createApiTransport } from './api-transport.js';
import type { ApiTransport } from './api-transport.js';
import { createLogger } from './logger.js';
import type { OperatorLogger } from './logger.js';
import { createOperatorMetrics } from './metrics.js';
import { createOperatorRuntime } from './operator-runtime.js';
import type { OperatorRuntime } from './operator-runtime.js';
import { providerDirectoryFromEnv } from './provider-directory.js';
import { closeProviders, loadProviders } from './provider-loader.js';
import { installShutdown } from './shutdown.js';
import type { Shutdown } from './shutdown.js';
import { operatorVersion } from '../version.js';
import { createShardMember } from '../sharding/shard-member.js';
import type { ShardMember } from '../sharding/shard-member.js';
import { shardIdFor } from '../sharding/shard-lease.js';
import { crossAuthorizer, tokenFileReader } from '../auth/cross-access.js';
import { GateAudience, createKubeGate, kubeReviewApi } from '../auth/kube-gate.js';
import { createGate, newLocalToken } from '../control-center/auth.js';
import { RecentEvents } from '../control-center/recent-events.js';
import { LOOPBACK_HOSTS, controlCenterRoutes } from '../control-center/server.js';
import { createStatsReader } from '../control-center/stats-view.js';

/** OperatorStartError is a failure before the operator runs: the Katalog, providers, connection or CRDs. */
export class OperatorStartError extends Error {
  override readonly name = 'OperatorStartError';
  readonly code = 'OperatorStartFailed';
  /** One line per problem (e.g. every Katalog error with file:line:col). */
  readonly details: readonly string[];

  constructor(message: string, details: readonly string[] = [], options?: ErrorOptions) {
    super(message, options);
    this.details = details;
  }
}

/** StartOperatorOptions configures startOperator. */
export interface StartOperatorOptions {
  readonly config: RunConfig;
  /** Environment for provider config (`$NAME`) and the in-cluster check. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (Katalog, kubeconfig) are resolved against this directory. */
  readonly cwd: string;
  /** Connection to use instead of `config.kubeconfig` / in-cluster (`ork dev`, `ork demo`). */
  readonly kubeConfig?: KubeConfig;
  /** Where JSON log lines go. Default stdout. */
  readonly logDestination?: DestinationStream;
  /** Install SIGTERM/SIGINT handlers that shut down gracefully. Default true. */
  readonly handleSignals?: boolean;
  /** Called when a second signal arrives during shutdown (impatient Ctrl-C). Default: resolve `done` with 1. */
  readonly forceExit?: (code: number) => void;
  /** Watch the Katalog file and hot-reload it. Default true. */
  readonly watchKatalog?: boolean;
  /** Poll interval of the Katalog file watch, ms. Default 1 000. */
  readonly watchIntervalMs?: number;
  /** Retry interval of a start-up that failed (discovery, CRDs not served yet), ms. Default 30 000. */
  readonly startRetryMs?: number;
  /** Interval of the rollout controller's ticks while a rollout is under way, ms. Default 2 000. */
  readonly rolloutTickMs?: number;
  /** Watch only this namespace (CRs and children), as the benchmark does on a shared cluster. Default: all namespaces. */
  readonly watchNamespace?: string;
  /** The Control Center's local-mode token. Default a new random one (`ork demo` shares one among its operators). */
  readonly controlCenterToken?: string;
  /** With `--sharding`: this replica's shard ID. Default `shardIdFor()` (`<hostname>-<8 hex>`). */
  readonly shardId?: string;
}

/** ReloadResult is how a Katalog reload ended. */
type ReloadResult =
  | { readonly outcome: 'reloaded' | 'unchanged' }
  | { readonly outcome: 'rejected'; readonly errors: readonly string[] };

/** Operator is a running operator process (docs/reference/runtime.md §2, §17, §18). */
export interface Operator {
  readonly katalog: Katalog;
  readonly logger: OperatorLogger;
  /** This replica's leader-election identity (empty without leader election). */
  readonly identity: string;
  /** With `--sharding`: this replica's shard ID (docs/reference/runtime.md §25); undefined otherwise. */
  readonly shard?: string;
  /** With `--sharding`: the sharder's counters while this replica leads and runs it. */
  sharderStats(): ReturnType<ShardMember['sharderStats']>;
  /** Where the metrics server listens (`/metrics`, `/katalog`); undefined when disabled. */
  readonly metricsAddress?: AddressInfo;
  /** The Control Center's local-mode token: open `<metrics>/ui/?token=<it>` (undefined in token mode or when off). */
  readonly controlCenterToken?: string;
  /** Where the cross-read server listens (`/katalog/crds/…`); undefined when not started. */
  readonly crossAddress?: AddressInfo;
  /** Where the health server listens (`/healthz`, `/readyz`); undefined when disabled. */
  readonly healthAddress?: AddressInfo;
  /** Resolves with the exit code once the operator has shut down (0 after a signal, 1 after losing the lease). */
  readonly done: Promise<number>;
  /** Resolves once the first runtime has synced its informers (rejects never; retries on failure). */
  readonly synced: Promise<void>;
  /** True while this replica runs workers: the leader, or always without leader election. */
  isLeader(): boolean;
  /** True when the Katalog is loaded and every informer has synced (what `/readyz` reports). */
  isReady(): boolean;
  /** The running Katalog's runtime (it changes on reload), for in-process reads: benchmarks. */
  engine(): KatalogRuntime;
  /** Reloads the Katalog file now (the file watch calls this on change). */
  reload(): Promise<ReloadResult>;
  /** Shuts down as SIGTERM does; resolves with the exit code. */
  shutdown(reason?: string): Promise<number>;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function optionalProviderDirectory(dir: string | undefined): { providerDirectory?: string } {
  return dir == null ? {} : { providerDirectory: dir };
}

function sameProviders(a: Katalog, b: Katalog): boolean {
  return JSON.stringify(a.spec.providers) === JSON.stringify(b.spec.providers);
}

/**
 * startOperator runs one Katalog as `ork run` does (docs/reference/runtime.md §2): load and compile the Katalog,
 * load providers, connect, optionally install the CRDs, start the metrics and health servers,
 * start leader election, then the runtime's informers (every replica, warm standby) and — on the
 * leader — its workers. The Katalog file is watched and hot-reloaded (a file that does not
 * validate is logged and the running Katalog stays). SIGTERM/SIGINT run the graceful shutdown of
 * §17. Throws OperatorStartError when anything before the HTTP servers fails.
 *
 * @example
 * const operator = await startOperator({ config, env: process.env, cwd: process.cwd() });
 * const code = await operator.done;
 */
export async function startOperator(options: StartOperatorOptions): Promise<Operator> {
  const { config } = options;
  const loaded = loadKatalogFile(config.katalog, { cwd: options.cwd });
  if (!loaded.ok) {
    throw new OperatorStartError(
      `${config.katalog}: the Katalog is invalid`,
      loaded.errors.map((issue) => formatIssue(issue)),
    );
  }
  let katalog = loaded.katalog;
  let katalogText = loaded.text;
  const katalogName = katalog.metadata.name;
  const logger = createLogger({
    katalogName,
    level: config.logLevel,
    ...(options.logDestination == null ? {} : { destination: options.logDestination }),
  });
  for (const warning of loaded.warnings) logger.warn({ katalogPath: warning.path }, formatIssue(warning));

  let providers: ReadonlyMap<string, Provider>;
  try {
    providers = (
      await loadProviders(katalog.spec.providers, {
        env: options.env,
        logger,
        crds: katalog.spec.crds,
        // issue 16: providers the image was not built with (ORKESTRA_PROVIDER_DIR, /opt/orkestra/providers).
        ...optionalProviderDirectory(providerDirectoryFromEnv(options.env, options.cwd)),
      })
    ).providers;
  } catch (error) {
    throw new OperatorStartError(`cannot load providers: ${errorMessage(error)}`, [], { cause: error });
  }

  const metrics = createOperatorMetrics({
    katalogName,
    version: katalogVersion(katalog),
  });
  let kubeConfig: KubeConfig;
  let api: ApiTransport;
  const shardId = config.sharding ? (options.shardId ?? shardIdFor()) : undefined;
  try {
    kubeConfig =
      options.kubeConfig ??
      loadKubeConfig({
        ...(config.kubeconfig == null ? {} : { kubeconfig: config.kubeconfig }),
        env: options.env,
        cwd: options.cwd,
      }).kubeConfig;
    api = createApiTransport({
      kubeConfig,
      katalogName,
      ...(shardId == null ? {} : { shard: shardId }),
      restRequest: metrics.sink.restRequest,
    });
    if (config.installCrds) {
      const names = await installCrds(api.client, katalog, { namespace: config.namespace });
      logger.info({ crds: names }, 'CustomResourceDefinitions installed');
    }
  } catch (error) {
    await closeProviders(providers, { logger });
    throw new OperatorStartError(errorMessage(error), [], { cause: error });
  }

  const recentEvents = new RecentEvents();
  const leaseName = leaseNameFor(katalogName);
  let leading = !config.leaderElect;
  if (!config.leaderElect) metrics.sink.leaderStatus(leaseName, true);
  // Sharding (docs/reference/runtime.md §25): workers run while the shard Lease is held, the sharder while leading.
  let member: ShardMember | undefined;
  const reconciling = (): boolean => (member == null ? leading : member.holds());

  // Revisions and rollouts (docs/reference/runtime.md §24). Without access to ConfigMaps in the
  // operator's namespace they are off and a new Katalog applies to every CR at once. The Katalog's
  // ConfigMaps are read from a watch, so nothing polls them (ADR 0034).
  const rolloutWatch = new RolloutWatch({
    listWatch: api.listWatch,
    namespace: config.namespace,
    katalogName,
    logger: { warn: (fields, message) => logger.warn({ ...fields }, message) },
    watchIdleTimeoutMs: config.watchIdleTimeoutMs,
  });
  const rolloutStore = new RolloutStore({
    client: api.client,
    namespace: config.namespace,
    katalogName,
    cache: rolloutWatch,
  });
  let rollout: RolloutController | undefined;
  // A command of `ork rollout` (or the operator's own write) arrives as a watch event: one tick.
  // A replica that does not lead (another shard) follows the state, re-queuing its CRs (ADR 0058).
  rolloutWatch.onRolloutChange(() => {
    rollout?.nudge();
    void rollout?.follow();
  });
  let watching: Promise<void> | undefined;
  const prepare = async (forKatalog: Katalog, text: string): Promise<PreparedRollout | undefined> => {
    try {
      // Started once; a start that failed is tried again at the next reload.
      await (watching ??= rolloutWatch.start(AbortSignal.timeout(60_000)).catch((error: unknown) => {
        watching = undefined;
        throw error;
      }));
      return await prepareRollout({ store: rolloutStore, katalog: forKatalog, text, now: Date.now() });
    } catch (error) {
      logger.warn(
        { err: { message: errorMessage(error) }, namespace: config.namespace },
        'Katalog revisions are off (cannot read or write ConfigMaps in the operator namespace): a new Katalog applies to every CR at once',
      );
      return undefined;
    }
  };
  const makeRollout = (
    prepared: PreparedRollout | undefined,
    target: () => OperatorRuntime,
  ): RolloutController | undefined =>
    prepared == null
      ? undefined
      : new RolloutController({
          store: rolloutStore,
          state: prepared.state,
          resourceVersion: prepared.resourceVersion,
          policy: () => katalog.spec.rollout,
          crs: () => target().crs(),
          enqueue: (cr) => target().enqueue(cr),
          ready: () => target().crsReady(),
          events: {
            normal: (s, r, m) => target().events.normal(s, r, m),
            warning: (s, r, m) => target().events.warning(s, r, m),
          },
          namespace: config.namespace,
          katalogName,
          logger,
          ...(options.rolloutTickMs == null ? {} : { tickMs: options.rolloutTickMs }),
          onState: (state, crs, events) => {
            const counts: Record<string, number> = { [state.target]: 0, [state.stable]: 0 };
            for (const cr of crs) {
              const revision = rollout?.assign(cr) === 'previous' ? state.stable : state.target;
              counts[revision] = (counts[revision] ?? 0) + 1;
            }
            metrics.rollout({
              phase:
                state.phase === 'Progressing' && (state.paused || katalog.spec.rollout?.paused === true)
                  ? 'Paused'
                  : state.phase,
              step: state.step,
              crs: counts,
              gateFailures: events.filter((e) => e.reason === 'RolloutGateFailed').length,
              rolledBack: events.filter((e) => e.reason === 'RolledBack').length,
            });
          },
        });

  // Cross reads on their own authenticated port (docs/reference/runtime.md §18.5, docs/adr/0030).
  const cross = {
    authorize: crossAuthorizer(
      config.crossAuth === 'none'
        ? undefined
        : createKubeGate({ reviews: kubeReviewApi(api.client), audience: GateAudience.Cross }),
    ),
    token: tokenFileReader(resolve(options.cwd, config.crossTokenFile)),
  };
  const makeRuntime = (
    forKatalog: Katalog,
    prepared?: PreparedRollout,
    holder: { controller?: RolloutController | undefined } = {},
  ): OperatorRuntime =>
    createOperatorRuntime({
      katalog: forKatalog,
      kubeConfig,
      userAgent: api.userAgent,
      logger,
      leaderElected: reconciling(),
      ...(member == null ? {} : { shard: member.runtimeShard }),
      tuning: {
        maxConcurrentWrites: config.maxConcurrentWrites,
        reconcileTimeoutMs: config.reconcileTimeoutMs,
        watchIdleTimeoutMs: config.watchIdleTimeoutMs,
        workDir: config.workDir,
        maxConcurrentBuilds: config.maxConcurrentBuilds,
        ...(options.watchNamespace == null ? {} : { namespace: options.watchNamespace }),
        allowPrivateAddresses: config.allowPrivateAddresses,
      },
      metrics: metrics.sink,
      providers,
      env: options.env,
      cross,
      ...(config.controlCenter
        ? {
            onEvent: (subject, type, reason, message) => recentEvents.add(subject, type, reason, message),
          }
        : {}),
      ...(prepared == null
        ? {}
        : {
            revisions: {
              current: prepared.revision,
              previous: prepared.previous,
              // The controller of this runtime's rollout is made right after it, before any worker starts.
              assign: (cr) => holder.controller?.assign(cr) ?? 'previous',
            },
          }),
    });
  if (shardId != null) {
    member = createShardMember({
      id: shardId,
      katalogName,
      namespace: config.namespace,
      watchNamespace: options.watchNamespace,
      client: api.client,
      kubeConfig,
      listWatch: api.listWatch,
      userAgent: api.userAgent,
      onRequest: api.onRequest,
      leaseDurationMs: config.leaseDurationMs,
      renewDeadlineMs: config.renewDeadlineMs,
      retryPeriodMs: config.retryPeriodMs,
      logger,
      onHeld: () => {
        if (!stopping) runtime.startWorkers();
      },
      // Fencing: the shard's CRs go to other replicas once its Lease expires; stop writing now.
      onLost: () => void shutdown.trigger({ reason: 'shard lease lost', exitCode: 1 }),
    });
  }
  const firstRollout = await prepare(katalog, katalogText);
  const firstHolder: { controller?: RolloutController | undefined } = {};
  let runtime = makeRuntime(katalog, firstRollout, firstHolder);
  rollout = makeRollout(firstRollout, () => runtime);
  firstHolder.controller = rollout;
  metrics.addCollector((gauges) => runtime.collect(gauges));
  if (member != null && shardId != null) {
    const shard = member;
    metrics.addCollector(() => {
      const sharder = shard.sharderStats();
      metrics.sharding({ shard: shardId, held: shard.holds(), ...(sharder == null ? {} : { sharder }) });
    });
  }

  const katalogRoute: ExtraRoute = (_request, response, url) => {
    if (url.pathname !== '/katalog' && url.pathname !== '/katalog/') return false;
    const body = JSON.stringify({
      name: katalog.metadata.name,
      version: katalog.metadata.version,
      leader: leading,
      ...(shardId == null ? {} : { shard: shardId }),
      ready: runtime.isReady(),
      entries: runtime.summary(),
    });
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    response.end(response.req.method === 'HEAD' ? undefined : body);
    return true;
  };
  const crossRoute: ExtraRoute = (request, response) => runtime.crossHandler(request, response);
  // The listener opens only when an entry opts in at start-up (a reload that first opts in needs a restart).
  const serveCross =
    config.crossBindAddress.trim() !== '0' &&
    Object.values(katalog.spec.crds).some((entry) => entry.crossAccess);
  // issue 22: the Control Center (docs/reference/runtime.md §23), off unless --control-center.
  const controlCenterToken = options.controlCenterToken ?? newLocalToken();
  const controlCenter: ExtraRoute[] = config.controlCenter
    ? [
        controlCenterRoutes({
          source: {
            operator: katalogName,
            katalog: () => katalog,
            engine: () => runtime.engine,
            leader: () => leading,
            rollout: () => rollout?.state,
            events: recentEvents,
            stats: createStatsReader({ registry: metrics.registry }),
          },
          gate: createGate({
            mode: config.controlCenterAuth,
            ...(config.controlCenterAuth === 'token'
              ? { reviews: kubeReviewApi(api.client) }
              : { localToken: controlCenterToken }),
          }),
          upstreams: config.controlCenterUpstreams,
          // Local mode: only loopback names (DNS rebinding), the token exchanged for a cookie, and
          // the same token to loopback upstreams of `ork demo`. Token mode: the configured names.
          ...(config.controlCenterAuth === 'token'
            ? config.controlCenterHosts.length === 0
              ? {}
              : { hosts: config.controlCenterHosts }
            : {
                hosts: [...LOOPBACK_HOSTS, ...config.controlCenterHosts],
                localToken: controlCenterToken,
                upstreamHeaders: () => Promise.resolve({ authorization: `Bearer ${controlCenterToken}` }),
              }),
        }),
      ]
    : [];

  let servers: HttpServers;
  try {
    servers = await startHttpServers({
      metricsAddress: config.metricsBindAddress,
      healthAddress: config.healthProbeBindAddress,
      registry: metrics.registry,
      readiness: () => {
        const ready = runtime.isReady();
        return {
          ready,
          checks: [
            { name: 'katalog', ok: true },
            ready
              ? { name: 'informers', ok: true }
              : { name: 'informers', ok: false, message: 'waiting for the first list of every informer' },
          ],
        };
      },
      extraRoutes: [katalogRoute, ...controlCenter],
      ...(config.controlCenterCert == null || config.controlCenterKey == null
        ? {}
        : {
            metricsTls: {
              cert: readFileSync(resolve(options.cwd, config.controlCenterCert)),
              key: readFileSync(resolve(options.cwd, config.controlCenterKey)),
            },
          }),
      ...(serveCross ? { cross: { address: config.crossBindAddress, route: crossRoute } } : {}),
    });
  } catch (error) {
    await closeProviders(providers, { logger });
    throw new OperatorStartError(`cannot start the HTTP servers: ${errorMessage(error)}`, [], {
      cause: error,
    });
  }

  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolvePromise) => {
    resolveDone = resolvePromise;
  });
  let finished = false;
  let stopping = false;

  const elector = config.leaderElect
    ? new LeaderElector({
        api: leaseApiOf(api.client),
        events: eventApiOf(api.client),
        namespace: config.namespace,
        leaseName,
        leaseDurationMs: config.leaseDurationMs,
        renewDeadlineMs: config.renewDeadlineMs,
        retryPeriodMs: config.retryPeriodMs,
        logger,
        onStartedLeading: () => {
          leading = true;
          metrics.sink.leaderStatus(leaseName, true);
          if (!stopping) {
            if (member == null) runtime.startWorkers();
            else {
              member.startSharder(
                runtime.summary().map((entry) => ({ ...entry.apiTypes, namespaced: entry.namespaced })),
              );
              // The rollout gate counts every shard's CRs (ADR 0058).
              runtime.watchAllShards();
            }
            rollout?.start();
          }
        },
        onStoppedLeading: () => {
          leading = false;
          metrics.sink.leaderStatus(leaseName, false);
          void shutdown.trigger({ reason: 'leader lease lost', exitCode: 1 });
        },
      })
    : undefined;
  if (elector != null) metrics.sink.leaderStatus(leaseName, false);

  // Start the runtime; a start that fails (discovery, a CRD not served yet, sync timeout) is logged
  // and retried, and the process stays up and not ready meanwhile (docs/reference/runtime.md §2 steps 6–7).
  const retryMs = options.startRetryMs ?? 30_000;
  let retryTimer: NodeJS.Timeout | undefined;
  const startRuntime = (target: OperatorRuntime): Promise<void> =>
    new Promise((resolveStart) => {
      const attempt = (): void => {
        target.start().then(
          () => {
            if (target === runtime && !stopping) logger.info({ leader: leading }, 'operator ready');
            resolveStart();
          },
          (error: unknown) => {
            if (stopping || target !== runtime) {
              resolveStart();
              return;
            }
            logger.error(
              { err: { message: errorMessage(error) }, retryInMs: retryMs },
              'runtime start failed; retrying',
            );
            retryTimer = setTimeout(attempt, retryMs);
          },
        );
      };
      attempt();
    });

  // Hot reload, serialized: one reload at a time, the latest file content wins.
  let reloading: Promise<ReloadResult> = Promise.resolve({ outcome: 'unchanged' });
  const reloadNow = async (): Promise<ReloadResult> => {
    if (stopping) return { outcome: 'unchanged' };
    const next = loadKatalogFile(config.katalog, { cwd: options.cwd });
    if (!next.ok) {
      const errors = next.errors.map((issue) => formatIssue(issue));
      for (const line of errors) logger.error({ file: config.katalog }, `katalog reload rejected: ${line}`);
      return { outcome: 'rejected', errors };
    }
    if (next.text === katalogText) return { outcome: 'unchanged' };
    if (next.katalog.metadata.name !== katalogName) {
      const line = `metadata.name changed from ${katalogName} to ${next.katalog.metadata.name}; the name keys the Lease and the metrics, so this needs a restart`;
      logger.error({ file: config.katalog }, `katalog reload rejected: ${line}`);
      return { outcome: 'rejected', errors: [line] };
    }
    if (!sameProviders(katalog, next.katalog)) {
      logger.warn(
        { file: config.katalog },
        'spec.providers changed: providers are loaded at start-up; restart to apply',
      );
    }
    // issue 21: a change of spec.rollout alone is not a new revision: the policy is read live.
    if (rollout != null && katalogRevision(next.katalog) === katalogRevision(katalog)) {
      katalog = next.katalog;
      katalogText = next.text;
      logger.info(
        { file: config.katalog, rollout: katalog.spec.rollout ?? null },
        'katalog reloaded: same revision, rollout policy updated',
      );
      rollout.nudge();
      return { outcome: 'reloaded' };
    }
    let candidate: OperatorRuntime;
    let candidateRollout: RolloutController | undefined;
    const previousRollout = rollout;
    await previousRollout?.stop();
    try {
      if (config.installCrds) await installCrds(api.client, next.katalog, { namespace: config.namespace });
      const prepared = await prepare(next.katalog, next.text);
      const holder: { controller?: RolloutController | undefined } = {};
      const made = makeRuntime(next.katalog, prepared, holder);
      candidate = made;
      candidateRollout = makeRollout(prepared, () => made);
      holder.controller = candidateRollout;
    } catch (error) {
      const line = errorMessage(error);
      logger.error({ file: config.katalog }, `katalog reload rejected: ${line}`);
      if (leading) previousRollout?.start();
      return { outcome: 'rejected', errors: [line] };
    }
    const previous = runtime;
    // The new runtime's assignments apply from here on (its workers start below).
    rollout = candidateRollout;
    await previous.stop(config.shutdownTimeoutMs);
    if (stopping) return { outcome: 'unchanged' };
    runtime = candidate;
    katalog = next.katalog;
    katalogText = next.text;
    metrics.katalogLoaded(katalogVersion(katalog));
    logger.info(
      { file: config.katalog, version: katalog.metadata.version, entries: Object.keys(katalog.spec.crds) },
      'katalog reloaded',
    );
    void startRuntime(candidate);
    if (reconciling()) candidate.startWorkers();
    if (leading && member != null) candidate.watchAllShards();
    if (leading) candidateRollout?.start();
    return { outcome: 'reloaded' };
  };
  const reload = (): Promise<ReloadResult> => {
    reloading = reloading.then(reloadNow, reloadNow);
    return reloading;
  };
  const watchedFile = resolve(options.cwd, config.katalog);
  const onFileChange = (): void => {
    void reload();
  };
  if (options.watchKatalog ?? true) {
    watchFile(watchedFile, { interval: options.watchIntervalMs ?? 1_000, persistent: false }, onFileChange);
  }

  const shutdown: Shutdown = installShutdown({
    signals: (options.handleSignals ?? true) ? ['SIGTERM', 'SIGINT'] : [],
    logger,
    exit: (code) => {
      if (finished) resolveDone(code);
      else if (options.forceExit != null) options.forceExit(code);
      else resolveDone(code);
    },
    steps: [
      {
        name: 'stop accepting work',
        run: () => {
          stopping = true;
          clearTimeout(retryTimer);
          servers.markExiting();
          unwatchFile(watchedFile, onFileChange);
        },
      },
      {
        name: 'finish in-flight reconciles',
        // After losing the Lease nothing may be written any more: abort at once.
        run: async () => {
          await reloading;
          await rollout?.stop();
          await member?.stopSharder();
          await runtime.stop(reconciling() || elector == null ? config.shutdownTimeoutMs : 0);
          await rolloutWatch.stop();
        },
        timeoutMs: config.shutdownTimeoutMs + 5_000,
      },
      {
        name: 'release the lease',
        run: async () => {
          await Promise.all([elector?.release(), member?.release()]);
        },
        timeoutMs: 5_000,
      },
      { name: 'close providers', run: () => closeProviders(providers, { logger }), timeoutMs: 5_000 },
      { name: 'close HTTP servers', run: () => servers.close(), timeoutMs: 5_000 },
      {
        name: 'flush logs',
        run: () => {
          finished = true;
          logger.flush();
        },
      },
    ],
  });
  void done.then(() => shutdown.uninstall());

  logger.info(
    {
      version: operatorVersion(),
      katalogVersion: katalog.metadata.version,
      entries: Object.keys(katalog.spec.crds),
      providers: [...providers.keys()],
      leaderElection: config.leaderElect ? { lease: leaseName, namespace: config.namespace } : false,
      metrics: servers.metrics == null ? 'disabled' : `${servers.metrics.address}:${servers.metrics.port}`,
      health: servers.health == null ? 'disabled' : `${servers.health.address}:${servers.health.port}`,
    },
    'operator starting',
  );
  elector?.start();
  member?.start();
  const synced = startRuntime(runtime);
  if (leading) rollout?.start();

  return {
    get katalog() {
      return katalog;
    },
    logger,
    identity: elector?.identity ?? '',
    ...(shardId == null ? {} : { shard: shardId }),
    sharderStats: () => member?.sharderStats(),
    ...(servers.metrics == null ? {} : { metricsAddress: servers.metrics }),
    ...(servers.health == null ? {} : { healthAddress: servers.health }),
    ...(servers.cross == null ? {} : { crossAddress: servers.cross }),
    ...(config.controlCenter && config.controlCenterAuth === 'local' ? { controlCenterToken } : {}),
    done,
    synced,
    isLeader: () => leading,
    isReady: () => runtime.isReady(),
    engine: () => runtime.engine,
    reload,
    shutdown: async (reason = 'requested') => {
      await shutdown.trigger({ reason });
      return done;
    },
  };
}

/** The version `orkestra_katalog_info` reports: the Katalog's own, or the operator's when it has none. */
function katalogVersion(katalog: Katalog): string {
  return katalog.metadata.version === '' ? operatorVersion() : katalog.metadata.version;
}
