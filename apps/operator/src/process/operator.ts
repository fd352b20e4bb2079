/**
 * The composition root of `ork run` (docs/adr/0044-operator-start-up-parts.md): `startOperator`
 * declares the start-up parts under `start/` in the order they run — discovery, the rollout part,
 * the runtime factory, leadership and shards, the Control Center, serving, the start gate, reload
 * and shutdown — and wires them through one `OperatorState`.
 */
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KatalogRuntime } from '@orkestra/reconciler';
import type { Katalog } from '@orkestra/types';
import type { DestinationStream } from 'pino';
import { formatIssue } from '../katalog-file.js';
import { createLogger } from './logger.js';
import type { OperatorLogger } from './logger.js';
import type { RunConfig } from './config.js';
import type { HttpServers } from './http-server.js';
import { leaseNameFor } from './leader-election.js';
import { createOperatorMetrics } from './metrics.js';
import { operatorVersion } from '../version.js';
import type { ShardMember } from '../sharding/shard-member.js';
import { shardIdFor } from '../sharding/shard-lease.js';
import { newLocalToken } from '../control-center/auth.js';
import { RecentEvents } from '../control-center/recent-events.js';
import { controlCenter } from './start/control-center.js';
import {
  connect,
  loadStartKatalog,
  loadStartModuleHooks,
  loadStartProviders,
  moduleHookLoader,
} from './start/discovery.js';
import { migrateStorage } from './start/webhook.js';
import { collectShardMetrics, leaderElector, shardMember } from './start/leadership.js';
import { createReloader } from './start/reload.js';
import type { ReloadResult } from './start/reload.js';
import { createRollouts } from './start/rollouts.js';
import { runtimeFactory } from './start/runtime-factory.js';
import type { RolloutHolder } from './start/runtime-factory.js';
import { serve } from './start/serve.js';
import { installOperatorShutdown } from './start/shutdown-steps.js';
import { createStartGate } from './start/start-gate.js';
import { OperatorState } from './start/state.js';

export { OperatorStartError } from './start/errors.js';

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

/**
 * startOperator runs one Katalog as `ork run` does (docs/reference/runtime.md §2): load and compile the Katalog,
 * load providers, connect, optionally install the CRDs, start the metrics and health servers,
 * start leader election, then the runtime's informers (every replica, warm standby) and — on the
 * leader — its workers. The Katalog file is watched and hot-reloaded (a file that does not
 * validate is logged and the running Katalog stays). SIGTERM/SIGINT run the graceful shutdown of
 * runtime.md §17. Throws OperatorStartError when anything before the HTTP servers fails.
 *
 * @example
 * const operator = await startOperator({ config, env: process.env, cwd: process.cwd() });
 * const code = await operator.done;
 */
export async function startOperator(options: StartOperatorOptions): Promise<Operator> {
  const { config, env, cwd } = options;
  // Discovery: the Katalog, its providers, the connection and the CRDs.
  const loaded = loadStartKatalog(config, cwd);
  const katalogName = loaded.katalog.metadata.name;
  const logger = createLogger({
    katalogName,
    level: config.logLevel,
    ...(options.logDestination == null ? {} : { destination: options.logDestination }),
  });
  for (const warning of loaded.warnings) logger.warn({ katalogPath: warning.path }, formatIssue(warning));
  const providers = await loadStartProviders(loaded.katalog, { env, cwd, logger });
  const loadHooks = moduleHookLoader({ env, cwd, logger });
  const moduleHooks = await loadStartModuleHooks(loadHooks, loaded.katalog, { logger, providers });
  const metrics = createOperatorMetrics({ katalogName, version: katalogVersion(loaded.katalog) });
  const shardId = config.sharding ? (options.shardId ?? shardIdFor()) : undefined;
  // The shard-assignment webhook starts before the shard membership: it reads the live shards late.
  const shards: { member?: ShardMember | undefined } = {};
  const { kubeConfig, api, webhook } = await connect({
    config,
    env,
    cwd,
    kubeConfig: options.kubeConfig,
    katalog: loaded.katalog,
    shardId,
    metrics,
    logger,
    providers,
    ...(shardId == null
      ? {}
      : { shards: { live: () => shards.member?.liveShards(), namespace: options.watchNamespace } }),
  });

  const recentEvents = new RecentEvents();
  const leaseName = leaseNameFor(katalogName);
  const state = new OperatorState({
    katalog: loaded.katalog,
    katalogText: loaded.text,
    leading: !config.leaderElect,
  });
  state.webhook = webhook;
  state.moduleHooks = moduleHooks;
  if (!config.leaderElect) metrics.sink.leaderStatus(leaseName, true);
  const rollouts = createRollouts({ api, config, state, logger, metrics, tickMs: options.rolloutTickMs });
  const makeRuntime = runtimeFactory({
    config,
    env,
    cwd,
    watchNamespace: options.watchNamespace,
    kubeConfig,
    api,
    logger,
    metrics,
    providers,
    recentEvents,
    state,
  });
  // Leadership: a lost Lease shuts the process down with 1 (`shutdown` is installed below).
  const leadership = {
    config,
    api,
    logger,
    metrics,
    state,
    lost: (reason: string) => void shutdown.trigger({ reason, exitCode: 1 }),
  };
  if (shardId != null) {
    state.member = shardMember({
      ...leadership,
      id: shardId,
      kubeConfig,
      watchNamespace: options.watchNamespace,
    });
  }
  const member = state.member;
  shards.member = member;
  const firstRollout = await rollouts.prepare(state.katalog, state.katalogText);
  const firstHolder: RolloutHolder = {};
  state.runtime = makeRuntime(state.katalog, state.katalogText, firstRollout, firstHolder);
  state.rollout = rollouts.make(firstRollout, () => state.runtime);
  firstHolder.controller = state.rollout;
  metrics.addCollector((gauges) => state.runtime.collect(gauges));
  if (member != null && shardId != null) collectShardMetrics(metrics, member, shardId);

  // Serving: /katalog, the Control Center (off unless --control-center), health and cross reads.
  const controlCenterToken = options.controlCenterToken ?? newLocalToken();
  const routes = controlCenter({ config, state, api, metrics, recentEvents, token: controlCenterToken });
  const servers = await serve({ config, cwd, state, shardId, metrics, logger, providers, routes });
  const elector = leaderElector({ ...leadership, leaseName });
  // Without leader election this replica is the leader: it migrates stored versions now.
  if (elector == null)
    migrateStorage({ webhook, api, katalog: state.katalog, logger, signal: state.stopSignal });
  const gate = createStartGate({ state, logger, retryMs: options.startRetryMs ?? 30_000 });
  const reloader = createReloader({
    config,
    cwd,
    state,
    api,
    logger,
    metrics,
    rollouts,
    makeRuntime,
    gate,
    watch: options.watchKatalog,
    watchIntervalMs: options.watchIntervalMs,
    versionOf: katalogVersion,
    loadHooks,
  });
  const { shutdown, done } = installOperatorShutdown({
    config,
    logger,
    state,
    gate,
    servers,
    reloader,
    rolloutWatch: rollouts.watch,
    elector,
    member,
    providers,
    handleSignals: options.handleSignals,
    forceExit: options.forceExit,
  });

  logger.info(startingFields(config, state, providers, servers, leaseName), 'operator starting');
  elector?.start();
  const synced = gate.start(state.runtime);
  // A shard joins once its informers have synced, so the sharder assigns it only CRs it can reconcile.
  member?.start(gate.synced, () =>
    state.runtime.summary().map((entry) => ({ ...entry.apiTypes, namespaced: entry.namespaced })),
  );
  if (state.leading) state.rollout?.start();

  return operatorOf({
    state,
    logger,
    identity: elector?.identity ?? '',
    shardId,
    member,
    servers,
    controlCenterToken:
      config.controlCenter && config.controlCenterAuth === 'local' ? controlCenterToken : undefined,
    done,
    synced,
    reload: () => reloader.reload(),
    shutdown: async (reason) => {
      await shutdown.trigger({ reason });
      return done;
    },
  });
}

/** operatorOf is the handle startOperator returns, over the running parts. */
function operatorOf(o: {
  readonly state: OperatorState;
  readonly logger: OperatorLogger;
  readonly identity: string;
  readonly shardId: string | undefined;
  readonly member: ShardMember | undefined;
  readonly servers: Awaited<ReturnType<typeof serve>>;
  readonly controlCenterToken: string | undefined;
  readonly done: Promise<number>;
  readonly synced: Promise<void>;
  readonly reload: () => Promise<ReloadResult>;
  readonly shutdown: (reason: string) => Promise<number>;
}): Operator {
  const { state, servers } = o;
  return {
    get katalog() {
      return state.katalog;
    },
    logger: o.logger,
    identity: o.identity,
    ...(o.shardId == null ? {} : { shard: o.shardId }),
    sharderStats: () => o.member?.sharderStats(),
    ...(servers.metrics == null ? {} : { metricsAddress: servers.metrics }),
    ...(servers.health == null ? {} : { healthAddress: servers.health }),
    ...(servers.cross == null ? {} : { crossAddress: servers.cross }),
    ...(o.controlCenterToken == null ? {} : { controlCenterToken: o.controlCenterToken }),
    done: o.done,
    synced: o.synced,
    isLeader: () => state.leading,
    isReady: () => state.runtime.isReady(),
    engine: () => state.runtime.engine,
    reload: o.reload,
    shutdown: (reason = 'requested') => o.shutdown(reason),
  };
}

/** startingFields are the fields of the `operator starting` log line. */
function startingFields(
  config: RunConfig,
  state: OperatorState,
  providers: ReadonlyMap<string, unknown>,
  servers: HttpServers,
  leaseName: string,
): Record<string, unknown> {
  return {
    version: operatorVersion(),
    katalogVersion: state.katalog.metadata.version,
    entries: Object.keys(state.katalog.spec.crds),
    providers: [...providers.keys()],
    leaderElection: config.leaderElect ? { lease: leaseName, namespace: config.namespace } : false,
    metrics: servers.metrics == null ? 'disabled' : `${servers.metrics.address}:${servers.metrics.port}`,
    health: servers.health == null ? 'disabled' : `${servers.health.address}:${servers.health.port}`,
    // The cross-read port opens only for an entry with crossAccess: true (runtime.md §18.5); say so,
    // since upstream serves every entry by default and a peer would otherwise just be refused.
    cross:
      servers.cross != null
        ? `${servers.cross.address}:${servers.cross.port}`
        : config.crossBindAddress.trim() === '0'
          ? 'disabled'
          : 'not opened: no entry has crossAccess: true',
  };
}

/** The version `orkestra_katalog_info` reports: the Katalog's own, or the operator's when it has none. */
function katalogVersion(katalog: Katalog): string {
  return katalog.metadata.version === '' ? operatorVersion() : katalog.metadata.version;
}
