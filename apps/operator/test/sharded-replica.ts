/**
 * Test support for the sharding integration tests: one `ork run --sharding` replica in this
 * process (lease 6 s, renew deadline 4 s, retry 1 s; docs/reference/runtime.md §25), and a poll
 * that waits for a probe to give a value.
 */
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Operator, StartOperatorOptions } from '../src/process/operator.js';
import { startWithFlags } from './in-process-operator.js';

/** ShardedReplicaOptions say where a replica runs and what it adds to the shared flags. */
export interface ShardedReplicaOptions {
  readonly katalogFile: string;
  readonly cwd: string;
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  /** The shard id's prefix (a random suffix follows). */
  readonly name: string;
  /** Flags after the shared ones (later flags win). Default: metrics, health and the webhook endpoint off, `--log-level warn`. */
  readonly args?: readonly string[];
  /** startOperator options beside the ones every replica gets. */
  readonly options?: Partial<StartOperatorOptions>;
}

/** startShardedReplica starts one replica and waits until its caches have synced. */
export async function startShardedReplica(o: ShardedReplicaOptions): Promise<Operator> {
  const operator = await startWithFlags({
    flags: [
      ...['--katalog', o.katalogFile, '--sharding', '--install-crds', '--namespace', o.namespace],
      ...['--lease-duration', '6s', '--renew-deadline', '4s', '--retry-period', '1s'],
      ...['--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--log-level', 'warn'],
      // No webhook endpoint unless a test asks (the shard-assignment webhook, ADR 0110): the
      // sharder labels every new CR, and two replicas in one process need not share a port.
      ...['--webhook-bind-address', '0'],
      ...(o.args ?? []),
    ],
    cwd: o.cwd,
    kubeConfig: o.kubeConfig,
    options: {
      watchNamespace: o.namespace,
      shardId: `${o.name}-${randomBytes(4).toString('hex')}`,
      ...o.options,
    },
  });
  await operator.synced;
  return operator;
}

/** waitForValue polls `probe` every `pollMs` until it gives a value (errors are retried), or throws after `timeoutMs`. */
export async function waitForValue<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 90_000,
  pollMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last == null ? '' : `: ${String(last)}`}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
