import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { V1MicroTime } from '@kubernetes/client-node/dist/types.js';
import type { CoordinationV1Api, CoreV1Api, V1Lease } from '@kubernetes/client-node';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { Logger } from '@orkestra/types';

/** LeaseApi is the part of CoordinationV1Api the elector uses. */
export type LeaseApi = Pick<
  CoordinationV1Api,
  'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'
>;

/** EventApi is the part of CoreV1Api the elector uses to record its `LeaderElection` event. */
export type EventApi = Pick<CoreV1Api, 'createNamespacedEvent'>;

/**
 * leaseApiOf sends the elector's Lease requests through the operator's one counted client (ADR
 * 0035): a replace is a PUT carrying the Lease's resourceVersion, so a replica that wrote in
 * between makes it fail with 409.
 */
export function leaseApiOf(client: Pick<KubeClient, 'get' | 'create' | 'replace'>): LeaseApi {
  const ref = (namespace: string, name: string) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    namespace,
    name,
  });
  const asLease = (object: KubeObject): V1Lease => object as unknown as V1Lease;
  return {
    readNamespacedLease: async ({ name, namespace }) => asLease(await client.get(ref(namespace, name))),
    createNamespacedLease: async ({ namespace, body }) =>
      asLease(
        await client.create({
          ...(body as unknown as KubeObject),
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { ...body.metadata, namespace },
        }),
      ),
    replaceNamespacedLease: async ({ name, namespace, body }) =>
      asLease(
        await client.replace({
          ...(JSON.parse(JSON.stringify(body)) as KubeObject),
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { ...(JSON.parse(JSON.stringify(body.metadata ?? {})) as object), name, namespace },
        }),
      ),
  } as LeaseApi;
}

/** eventApiOf records the elector's `LeaderElection` Event through the operator's one counted client. */
export function eventApiOf(client: Pick<KubeClient, 'create'>): EventApi {
  return {
    createNamespacedEvent: async ({ namespace, body }) =>
      (await client.create({
        ...(JSON.parse(JSON.stringify(body)) as KubeObject),
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { ...body.metadata, namespace },
      })) as never,
  } as EventApi;
}

/** LeaderElectionError reports impossible timing options. */
export class LeaderElectionError extends Error {
  override readonly name = 'LeaderElectionError';
  readonly code = 'InvalidLeaderElection';
}

/** LeaderElectorOptions configures a LeaderElector. */
export interface LeaderElectorOptions {
  readonly api: LeaseApi;
  /** The operator namespace. */
  readonly namespace: string;
  /** The Lease name; the operator uses `leaseNameFor(katalogName)`. */
  readonly leaseName: string;
  /** Labels of the Lease when this elector creates it (a shard Lease's `orkestra.konductor.io/shard-of`, ADR 0045). Default none. */
  readonly labels?: Readonly<Record<string, string>>;
  /** This replica's identity. Default `defaultIdentity()` (`<hostname>_<uuid>`). */
  readonly identity?: string;
  /** How long a Lease is valid after its last renewal. Default 15 000 ms. */
  readonly leaseDurationMs?: number;
  /** The leader gives up when it could not renew for this long. Default 10 000 ms. */
  readonly renewDeadlineMs?: number;
  /** Between acquire and renew attempts. Default 2 000 ms. */
  readonly retryPeriodMs?: number;
  /** Called once when this replica becomes leader. Exceptions are logged. */
  readonly onStartedLeading?: () => void;
  /**
   * Called once when this replica was leader and lost the Lease (not after `release` or `stop`).
   * The process must stop taking work; the operator exits with status 1.
   */
  readonly onStoppedLeading?: () => void;
  /** Called whenever the observed holder changes (including to this replica). */
  readonly onNewLeader?: (identity: string) => void;
  /** When given, a Normal event `LeaderElection` is recorded on the Lease on becoming leader (failures are logged). Default none. */
  readonly events?: EventApi;
  readonly logger?: Logger;
  /** Epoch milliseconds. Default Date.now. */
  readonly now?: () => number;
  /** Randomness in [0, 1) for retry jitter (up to +20 % while acquiring). Default Math.random. */
  readonly random?: () => number;
}

/** LeaderElectorState is a snapshot for tests, logs and metrics. */
export interface LeaderElectorState {
  readonly identity: string;
  readonly leading: boolean;
  /** The holder last seen on the Lease ("" when empty or unknown). */
  readonly observedHolder: string;
  /** `spec.leaseTransitions` last seen on the Lease. */
  readonly leaderTransitions: number;
}

/** leaseNameFor is the Lease name of a Katalog's operator: `orkestra-<katalog name>` (docs/reference/runtime.md §17). */
export function leaseNameFor(katalogName: string): string {
  return `orkestra-${katalogName}`;
}

/** defaultIdentity is `<hostname>_<random UUID>`, unique per process even when pods share a hostname. */
export function defaultIdentity(options: { hostname?: string; uuid?: string } = {}): string {
  return `${options.hostname ?? hostname()}_${options.uuid ?? randomUUID()}`;
}

/** statusCode is the HTTP status of a failed request: client-node's `code` or the registry's `status`. */
function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return code;
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function toMs(value: Date | string | undefined): number | undefined {
  if (value == null) return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * LeaderElector runs client-go style leader election on a `coordination.k8s.io/v1` Lease
 * (docs/reference/runtime.md §17): a replica acquires the Lease when it is empty or has not been renewed for
 * `leaseDuration` (measured on this replica's clock since it last saw the record change, so clock
 * skew between replicas does not matter), renews every `retryPeriod`, and gives up when renewing
 * fails for `renewDeadline` or another holder is seen. Every write carries the Lease's
 * resourceVersion; a 409 means another replica wrote first.
 *
 * @example
 * const elector = new LeaderElector({
 *   api: kubeConfig.makeApiClient(CoordinationV1Api), namespace: 'orkestra-system',
 *   leaseName: leaseNameFor('shop'),
 *   onStartedLeading: () => runtime.startWorkers(),
 *   onStoppedLeading: () => process.exit(1),
 * });
 * elector.start();
 * // shutdown
 * await elector.release();
 */
export class LeaderElector {
  readonly identity: string;
  private readonly options: LeaderElectorOptions;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private lease: V1Lease | undefined;
  private observedHolder = '';
  private observedRenew: string | undefined;
  private observedAt = 0;
  private leading = false;
  private lastRenewAt = 0;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(options: LeaderElectorOptions) {
    this.options = options;
    this.identity = options.identity ?? defaultIdentity();
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    if (this.leaseDurationMs <= this.renewDeadlineMs) {
      throw new LeaderElectionError('leaseDuration must be greater than renewDeadline');
    }
    if (this.renewDeadlineMs <= this.retryPeriodMs * 1.2) {
      throw new LeaderElectionError('renewDeadline must be greater than 1.2 × retryPeriod');
    }
    if (this.retryPeriodMs <= 0) throw new LeaderElectionError('retryPeriod must be greater than 0');
  }

  /** isLeader tells whether this replica currently holds the Lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /** state returns what the elector last saw. */
  state(): LeaderElectorState {
    return {
      identity: this.identity,
      leading: this.leading,
      observedHolder: this.observedHolder,
      leaderTransitions: this.lease?.spec?.leaseTransitions ?? 0,
    };
  }

  /** start begins acquiring (and then renewing) in the background. Calling it twice does nothing. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * stop ends the loops without touching the Lease (as a crash would): a standby takes over after
   * the lease duration. `onStoppedLeading` is not called.
   */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
    this.leading = false;
  }

  /**
   * release stops the loops and, when leading, empties the Lease's holder so a standby takes over at
   * its next retry instead of waiting for the lease to expire. Errors are logged, never thrown.
   */
  async release(): Promise<void> {
    const wasLeading = this.leading;
    await this.stop();
    const lease = this.lease;
    if (!wasLeading || lease?.metadata == null || lease.spec?.holderIdentity !== this.identity) return;
    const now = new V1MicroTime(this.now());
    try {
      this.lease = await this.options.api.replaceNamespacedLease({
        name: this.options.leaseName,
        namespace: this.options.namespace,
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: '',
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
          },
        },
      });
      this.options.logger?.info({ lease: this.options.leaseName }, 'leader lease released');
    } catch (error) {
      this.options.logger?.warn(
        { lease: this.options.leaseName, err: error },
        'could not release the leader lease',
      );
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  private async run(): Promise<void> {
    // acquire
    while (this.running && !this.leading) {
      if (await this.tryAcquireOrRenew()) break;
      await this.sleep(this.acquireWaitMs());
    }
    if (!this.running) return;
    this.leading = true;
    this.lastRenewAt = this.now();
    this.options.logger?.info({ lease: this.options.leaseName, identity: this.identity }, 'became leader');
    this.callback(this.options.onStartedLeading);
    void this.recordLeaderEvent();

    // renew
    while (this.running) {
      await this.sleep(this.retryPeriodMs);
      if (!this.running) return;
      const left = this.renewDeadlineMs - (this.now() - this.lastRenewAt);
      const renewed = await this.withDeadline(this.tryAcquireOrRenew(), Math.max(0, left));
      if (!this.running) return;
      if (renewed === true) {
        this.lastRenewAt = this.now();
        continue;
      }
      const otherHolder = this.observedHolder !== '' && this.observedHolder !== this.identity;
      if (otherHolder || this.now() - this.lastRenewAt >= this.renewDeadlineMs) {
        this.leading = false;
        this.running = false;
        this.options.logger?.error(
          { lease: this.options.leaseName, identity: this.identity, holder: this.observedHolder },
          'leader lease lost',
        );
        this.callback(this.options.onStoppedLeading);
        return;
      }
    }
  }

  /**
   * acquireWaitMs is how long a standby waits before its next attempt: the jittered retry period,
   * or less when the holder's Lease expires sooner (on this replica's clock), so a dead leader is
   * replaced at its expiry instant rather than up to a retry period later (runtime.md §25.4).
   */
  private acquireWaitMs(): number {
    const retry = this.retryPeriodMs * (1 + 0.2 * this.random());
    const spec = this.lease?.spec;
    if (this.observedHolder === '' || this.observedHolder === this.identity || spec == null) return retry;
    const validMs = (spec.leaseDurationSeconds ?? Math.ceil(this.leaseDurationMs / 1000)) * 1000;
    const expiresInMs = this.observedAt + validMs - this.now();
    return expiresInMs >= 0 && expiresInMs < retry ? expiresInMs + 1 : retry;
  }

  private async recordLeaderEvent(): Promise<void> {
    const { events, namespace, leaseName } = this.options;
    if (events == null) return;
    const now = new Date(this.now());
    try {
      await events.createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${leaseName}.`, namespace },
          involvedObject: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            name: leaseName,
            namespace,
            ...(this.lease?.metadata?.uid == null ? {} : { uid: this.lease.metadata.uid }),
          },
          type: 'Normal',
          reason: 'LeaderElection',
          message: `${this.identity} became leader`,
          source: { component: 'orkestra' },
          reportingComponent: 'orkestra',
          reportingInstance: this.identity,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (error) {
      this.options.logger?.warn(
        { lease: leaseName, err: error },
        'could not record the LeaderElection event',
      );
    }
  }

  private async withDeadline(attempt: Promise<boolean>, ms: number): Promise<boolean | 'timeout'> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        attempt,
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private callback(fn: (() => void) | undefined): void {
    try {
      fn?.();
    } catch (error) {
      this.options.logger?.error({ err: error }, 'leader election callback failed');
    }
  }

  private observe(lease: V1Lease): void {
    this.lease = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    const renew = lease.spec?.renewTime == null ? undefined : new Date(lease.spec.renewTime).toISOString();
    if (holder !== this.observedHolder || renew !== this.observedRenew) {
      if (holder !== this.observedHolder && holder !== '')
        this.callback(() => this.options.onNewLeader?.(holder));
      this.observedHolder = holder;
      this.observedRenew = renew;
      this.observedAt = this.now();
    }
  }

  /** One attempt: create the Lease, renew it, or take it over when empty or expired. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { api, namespace, leaseName: name } = this.options;
    const now = this.now();
    const stamp = new V1MicroTime(now);
    const durationSeconds = Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
    let current: V1Lease;
    try {
      current = await api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (statusCode(error) !== 404) {
        this.options.logger?.warn({ lease: name, err: error }, 'could not read the leader lease');
        return false;
      }
      try {
        const created = await api.createNamespacedLease({
          namespace,
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name,
              namespace,
              ...(this.options.labels == null ? {} : { labels: { ...this.options.labels } }),
            },
            spec: {
              holderIdentity: this.identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: stamp,
              renewTime: stamp,
              leaseTransitions: 0,
            },
          },
        });
        this.observe(created);
        return true;
      } catch (createError) {
        if (statusCode(createError) !== 409) {
          this.options.logger?.warn({ lease: name, err: createError }, 'could not create the leader lease');
        }
        return false;
      }
    }

    this.observe(current);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const mine = holder === this.identity;
    const validMs = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (holder !== '' && !mine && this.observedAt + validMs > now) return false;

    const transitions = spec.leaseTransitions ?? 0;
    const body: V1Lease = {
      ...current,
      spec: {
        ...spec,
        holderIdentity: this.identity,
        leaseDurationSeconds: durationSeconds,
        renewTime: stamp,
        ...(mine && spec.acquireTime != null
          ? { acquireTime: new V1MicroTime(toMs(spec.acquireTime) ?? now) }
          : { acquireTime: stamp }),
        leaseTransitions: mine ? transitions : transitions + 1,
      },
    };
    try {
      const updated = await api.replaceNamespacedLease({ name, namespace, body });
      this.observe(updated);
      return true;
    } catch (error) {
      if (statusCode(error) !== 409) {
        this.options.logger?.warn({ lease: name, err: error }, 'could not update the leader lease');
      }
      return false;
    }
  }
}
