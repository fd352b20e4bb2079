/**
 * Leadership and shards, a start-up part (docs/reference/runtime.md §17, §25): the leader
 * election Lease, and with `--sharding` this replica's shard Lease. Workers run while the shard
 * Lease is held (without sharding: while leading), the sharder and the rollout while leading.
 * Losing either Lease ends the process: nothing may be written any more.
 */
import { migrateStorage } from './webhook.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { createShardMember } from '../../sharding/shard-member.js';
import type { ShardMember } from '../../sharding/shard-member.js';
import type { ApiTransport } from '../api-transport.js';
import type { RunConfig } from '../config.js';
import { LeaderElector, eventApiOf, leaseApiOf } from '../leader-election.js';
import type { OperatorLogger } from '../logger.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorState } from './state.js';

/** LeadershipOptions is what the Leases need. */
export interface LeadershipOptions {
  readonly config: RunConfig;
  readonly api: ApiTransport;
  readonly logger: OperatorLogger;
  readonly metrics: OperatorMetrics;
  readonly state: OperatorState;
  /** Called when a Lease this replica held is lost (`reason` names it); the process shuts down with 1. */
  readonly lost: (reason: string) => void;
}

/** shardMember makes this replica's shard membership (with `--sharding`) and reports it as metrics. */
export function shardMember(
  o: LeadershipOptions & {
    readonly id: string;
    readonly kubeConfig: KubeConfig;
    readonly watchNamespace: string | undefined;
  },
): ShardMember {
  const { config, api, state } = o;
  return createShardMember({
    id: o.id,
    katalogName: state.katalogName,
    namespace: config.namespace,
    watchNamespace: o.watchNamespace,
    client: api.client,
    kubeConfig: o.kubeConfig,
    listWatch: api.listWatch,
    userAgent: api.userAgent,
    onRequest: api.onRequest,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
    logger: o.logger,
    onHeld: () => {
      if (!state.stopping) state.runtime.startWorkers();
    },
    // Fencing: the shard's CRs go to other replicas once its Lease expires; stop writing now.
    onLost: () => o.lost('shard lease lost'),
  });
}

/** collectShardMetrics reports the shard Lease and the sharder's counters at every scrape. */
export function collectShardMetrics(metrics: OperatorMetrics, shard: ShardMember, id: string): void {
  metrics.addCollector(() => {
    const sharder = shard.sharderStats();
    metrics.sharding({ shard: id, held: shard.holds(), ...(sharder == null ? {} : { sharder }) });
  });
}

/** leaderElector makes the leader election (undefined without `--leader-elect`). */
export function leaderElector(
  o: LeadershipOptions & { readonly leaseName: string },
): LeaderElector | undefined {
  const { config, state, metrics, leaseName } = o;
  if (!config.leaderElect) return undefined;
  const elector = new LeaderElector({
    api: leaseApiOf(o.api.client),
    events: eventApiOf(o.api.client),
    namespace: config.namespace,
    leaseName,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
    logger: o.logger,
    onStartedLeading: () => {
      state.leading = true;
      migrateStorage({
        webhook: state.webhook,
        api: o.api,
        katalog: state.katalog,
        logger: o.logger,
        signal: state.stopSignal,
      });
      metrics.sink.leaderStatus(leaseName, true);
      if (state.stopping) return;
      const member = state.member;
      if (member == null) {
        state.runtime.startWorkers();
        state.rollout?.start();
        return;
      }
      member.startSharder(
        state.runtime.summary().map((entry) => ({ ...entry.apiTypes, namespaced: entry.namespaced })),
      );
      // The rollout gate counts every shard's CRs (ADR 0058) from a watch of every CR, whose first
      // list would compete with relabelling a dead leader's CRs at this very moment: it waits until
      // they are relabelled (ADR 0105).
      void member
        .settled({ quietMs: config.retryPeriodMs, maxMs: config.leaseDurationMs, signal: state.stopSignal })
        .then(() => {
          if (state.stopping || !state.leading) return;
          state.runtime.watchAllShards();
          state.rollout?.start();
        });
    },
    onStoppedLeading: () => {
      state.leading = false;
      metrics.sink.leaderStatus(leaseName, false);
      o.lost('leader lease lost');
    },
  });
  metrics.sink.leaderStatus(leaseName, false);
  return elector;
}
