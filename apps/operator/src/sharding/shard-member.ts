/**
 * One replica of a sharded operator (docs/reference/runtime.md §25, ADR 0045): its shard Lease (a
 * LeaderElector on a Lease only it uses, so renewals and fencing follow the leader-election
 * timings), the drain acknowledgement its runtime calls, and the sharder: a claimer of the CRs
 * the ring gives this replica when no live shard holds them, and the whole sharder while it leads
 * (ADR 0103).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeListWatchClient } from '@orkestra/reconciler';
import type { RuntimeShard } from '@orkestra/reconciler';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { OrkestraLabel } from '@orkestra/types';
import type { Logger } from '@orkestra/types';
import { LeaderElector, leaseApiOf } from '../process/leader-election.js';
import { Sharder, ShardLeaseWatch } from './sharder.js';
import type { ShardedResource, SharderStats } from './sharder.js';
import { settled } from './settled.js';
import type { SettledOptions } from './settled.js';
import { SHARD_LEASE_LABEL, shardLeaseName } from './shard-lease.js';

/** ShardMemberOptions configures createShardMember. */
export interface ShardMemberOptions {
  /** This replica's shard ID (`shardIdFor()`). */
  readonly id: string;
  readonly katalogName: string;
  /** The operator namespace (Leases). */
  readonly namespace: string;
  /** Watch only this namespace's CRs. Default all. */
  readonly watchNamespace?: string | undefined;
  readonly client: KubeClient;
  readonly kubeConfig: KubeConfig;
  /** The operator's list/watch client (whole objects), for the shard Leases. */
  readonly listWatch: KubeListWatchClient;
  readonly userAgent: string;
  readonly onRequest?: (method: string, status: number, seconds: number) => void;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly logger: Logger;
  /** The shard Lease is held: start reconciling. */
  readonly onHeld: () => void;
  /** The shard Lease could not be renewed before the renew deadline: stop reconciling at once. */
  readonly onLost: () => void;
}

/** ShardMember is a replica's part in sharding. */
export interface ShardMember {
  readonly id: string;
  /** What the KatalogRuntime takes (`shard`): the label selector and the drain acknowledgement. */
  readonly runtimeShard: RuntimeShard;
  /** True while this replica holds its shard Lease. */
  holds(): boolean;
  /**
   * The live shard IDs as this replica's Lease watch sees them now (the shard-assignment webhook's
   * view, ADR 0110); undefined until the watch has listed.
   */
  liveShards(): readonly string[] | undefined;
  /**
   * Watches the shard Leases now, and joins — acquires, then renews, its shard Lease, so the sharder
   * counts it live and assigns it CRs — only once `synced` resolves: the runtime's informers for
   * this shard have listed (runtime.md §25.1). Joining also starts the claimer over the CR kinds
   * `resources` names then. Joins never after `release`, nor when `synced` rejects.
   */
  start(synced: Promise<void>, resources: () => readonly ShardedResource[]): void;
  /** Empties the shard Lease (after the workers stopped), so the sharder moves its CRs at once. */
  release(): Promise<void>;
  /** Makes this replica's sharder lead, started for these CR kinds if it was not yet (on becoming leader). */
  startSharder(resources: readonly ShardedResource[]): void;
  stopSharder(): Promise<void>;
  sharderStats(): SharderStats | undefined;
  /**
   * Resolves once the sharder has relabelled what dead shards held and stayed so for `quietMs`
   * (a death seen a moment later starts the wait again), or after `maxMs`, or on `signal`.
   */
  settled(o: SettledOptions): Promise<void>;
}

/**
 * createShardMember builds one replica's shard Lease, drain acknowledgement and sharder.
 *
 * @example
 * const member = createShardMember({ id: shardIdFor(), katalogName, namespace, client, kubeConfig, userAgent, ...timings, logger, onHeld, onLost });
 * member.start(runtimeSynced);
 */
export function createShardMember(options: ShardMemberOptions): ShardMember {
  const { id, client, logger } = options;
  let held = false;
  let released = false;
  const elector = new LeaderElector({
    api: leaseApiOf(client),
    namespace: options.namespace,
    leaseName: shardLeaseName(options.katalogName, id),
    labels: { [SHARD_LEASE_LABEL]: options.katalogName },
    identity: id,
    leaseDurationMs: options.leaseDurationMs,
    renewDeadlineMs: options.renewDeadlineMs,
    retryPeriodMs: options.retryPeriodMs,
    logger: logger.child({ shard: id }),
    onStartedLeading: () => {
      held = true;
      logger.info({ shard: id }, 'shard lease held');
      options.onHeld();
    },
    onStoppedLeading: () => {
      held = false;
      options.onLost();
    },
  });
  const runtimeShard: RuntimeShard = {
    id,
    onDrain: async (cr: KubeObject) => {
      // The precondition makes the acknowledgement fail (and be retried) if the CR changed since.
      await client.mergePatch(
        {
          apiVersion: cr.apiVersion,
          kind: cr.kind,
          name: cr.metadata.name ?? '',
          ...(cr.metadata.namespace == null ? {} : { namespace: cr.metadata.namespace }),
        },
        { metadata: { labels: { [OrkestraLabel.Shard]: null, [OrkestraLabel.Drain]: null } } },
        { resourceVersion: cr.metadata.resourceVersion },
      );
    },
  };
  let sharder: Sharder | undefined;
  let sharderStart: Promise<void> | undefined;
  const runSharder = (resources: readonly ShardedResource[], claim: boolean): void => {
    const made = new Sharder({
      client,
      listWatch: new KubeListWatchClient({
        kubeConfig: options.kubeConfig,
        userAgent: options.userAgent,
        metadataOnly: true,
        ...(options.onRequest == null ? {} : { onRequest: options.onRequest }),
      }),
      leaseListWatch: options.listWatch,
      katalogName: options.katalogName,
      leaseNamespace: options.namespace,
      resources,
      namespace: options.watchNamespace,
      tickMs: options.retryPeriodMs,
      logger,
      leaseWatch,
      self: id,
      ...(claim ? { claimFor: id } : {}),
    });
    sharder = made;
    sharderStart = made.start().then(
      () => logger.info({ shards: made.live(), leading: made.leading() }, 'sharder started'),
      (error: unknown) =>
        logger.error({ err: { message: String(error) } }, 'sharder start failed; its watches keep retrying'),
    );
  };
  // Every replica watches the shard Leases from its start, so on becoming leader it already knows
  // which shards stopped renewing (runtime.md §25.4).
  const leaseWatch = new ShardLeaseWatch({
    listWatch: options.listWatch,
    katalogName: options.katalogName,
    namespace: options.namespace,
    logger,
  });
  return {
    id,
    runtimeShard,
    holds: () => held,
    liveShards: () => (leaseWatch.informer.hasSynced() ? leaseWatch.observe() : undefined),
    start: (synced, resources) => {
      leaseWatch.start();
      // No Lease before the informers have synced: a replica the sharder counts live can reconcile.
      synced.then(
        () => {
          if (released) return;
          logger.info({ shard: id }, 'informers synced; joining the shards');
          elector.start();
          if (sharder == null) runSharder(resources(), true);
        },
        (error: unknown) =>
          logger.warn({ shard: id, err: { message: String(error) } }, 'not joining the shards: no sync'),
      );
    },
    release: async () => {
      released = true;
      held = false;
      await elector.release();
      await leaseWatch.stop();
    },
    startSharder: (resources) => {
      if (sharder == null) runSharder(resources, false);
      else sharder.lead();
    },
    stopSharder: async () => {
      const stopping = sharder;
      sharder = undefined;
      await stopping?.stop();
      await sharderStart;
    },
    sharderStats: () => sharder?.stats(),
    settled: (o) => settled(() => sharder?.busy() ?? false, o),
  };
}
