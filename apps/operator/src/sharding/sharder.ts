/**
 * The sharder (docs/reference/runtime.md §25, ADR 0045, ADR 0103): run by the replica that holds the
 * ordinary leader Lease, it watches the shard Leases and the metadata of every CR, and keeps each
 * CR's `orkestra.konductor.io/shard` label on the live shard the ring chooses, through the drain
 * hand-off of `ShardAssignment.decide`. Every other replica runs one too, as a claimer: it labels
 * only the CRs no live shard holds that the ring gives to itself, so a dead shard's CRs move the
 * moment its Lease expires, whether or not the leader died with it, and a new leader starts with
 * its caches filled. Its watches carry metadata only, so its cost per CR is a few hundred bytes of
 * cache and one hash; it writes only when an assignment changes. Before it acts on a shard's
 * death it reads that shard's Lease once, so a lagging watch never moves a live shard's CRs.
 */
import { ConflictError, NotFoundError } from '@orkestra/registry';
import type { KubeClient, KubeObject, ObjectRef } from '@orkestra/registry';
import { Informer } from '@orkestra/reconciler';
import type { Logger } from '@orkestra/types';
import { LeaseTracker, ShardAssignment, shardedObjectOf } from './assign.js';
import type { ShardAction, ShardLeaseView } from './assign.js';
import { objectKey } from './ring.js';
import { SHARD_LEASE_LABEL } from './shard-lease.js';

/** ListWatchClient is what an Informer lists and watches through. */
type ListWatchClient = ConstructorParameters<typeof Informer>[0]['client'];

/** ShardedResource is one CR kind the sharder assigns. */
export interface ShardedResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

/** SharderOptions configures a Sharder. */
export interface SharderOptions {
  /** Patches of CR labels, reads and deletes of shard Leases (the operator's counted client). */
  readonly client: Pick<KubeClient, 'mergePatch' | 'delete' | 'get'>;
  /** A list/watch client made with `metadataOnly: true` (`KubeListWatchClient`), for the CRs. */
  readonly listWatch: ListWatchClient;
  /** A list/watch client of whole objects, for the shard Leases (their spec is what counts). */
  readonly leaseListWatch: ListWatchClient;
  readonly katalogName: string;
  /** The operator namespace, where the shard Leases live. */
  readonly leaseNamespace: string;
  readonly resources: readonly ShardedResource[];
  /** Watch only this namespace's CRs. Default: all namespaces. */
  readonly namespace?: string | undefined;
  /** How often liveness is re-checked (Lease expiry makes no event): the retry period. */
  readonly tickMs: number;
  /** A Lease dead for this long is deleted. Default 60 000 ms; 0 keeps them. */
  readonly deleteDeadLeasesAfterMs?: number;
  /** Patches in flight at most. Default 32. */
  readonly maxConcurrentPatches?: number;
  readonly logger?: Logger;
  /** Epoch milliseconds. Default Date.now. */
  readonly now?: () => number;
  /**
   * This replica's shard ID: the sharder starts as a claimer (until `lead()`), which writes only the
   * label of a CR no live shard holds (unassigned, or its shard dead) when the ring chooses this
   * replica; no drain, no Lease clean-up. Default: it leads from the start.
   */
  readonly claimFor?: string | undefined;
  /**
   * This replica's shard ID when it leads from the start (default `claimFor`): a leader with a
   * shard of its own leaves another shard's unassigned CRs to that shard's claimer for one tick.
   */
  readonly self?: string | undefined;
  /** Called after each change of the live shards (tests, logs). */
  readonly onLiveShards?: (live: readonly string[]) => void;
  /**
   * The shard Leases as this replica has watched them since before it led (`ShardLeaseWatch`), so a
   * new leader already knows which shards stopped renewing. Default: a watch of its own, started
   * with the sharder (every Lease then counts as alive for one lease duration).
   */
  readonly leaseWatch?: ShardLeaseWatch;
}

/** leaseViewOf reads a shard Lease the way the tracker compares it. */
function leaseViewOf(lease: KubeObject): ShardLeaseView {
  const spec = (lease as { spec?: Record<string, unknown> }).spec ?? {};
  const renew = spec['renewTime'];
  return {
    name: lease.metadata.name ?? '',
    holder: typeof spec['holderIdentity'] === 'string' ? spec['holderIdentity'] : '',
    renewTime: renew == null ? '' : String(renew instanceof Date ? renew.toISOString() : renew),
    durationMs: (typeof spec['leaseDurationSeconds'] === 'number' ? spec['leaseDurationSeconds'] : 15) * 1000,
  };
}

/** deathKey names one Lease at one renewal: a death is confirmed once per renewal it stopped at. */
function deathKey(view: ShardLeaseView): string {
  return `${view.name}\u0000${view.holder}\u0000${view.renewTime}`;
}

/** sameInstant compares two renewTimes as instants (microseconds and milliseconds written alike). */
function sameInstant(a: string, b: string): boolean {
  const [x, y] = [Date.parse(a), Date.parse(b)];
  return Number.isNaN(x) || Number.isNaN(y) ? a === b : x === y;
}

/** ShardLeaseWatchOptions configures a ShardLeaseWatch. */
export interface ShardLeaseWatchOptions {
  readonly listWatch: ListWatchClient;
  readonly katalogName: string;
  /** The operator namespace, where the shard Leases live. */
  readonly namespace: string;
  readonly logger?: Logger;
  /** Epoch milliseconds. Default Date.now. */
  readonly now?: () => number;
}

/**
 * ShardLeaseWatch watches the shard Leases and records, on this replica's clock, when each one's
 * renewTime last changed (`LeaseTracker`). Every replica runs one from its start, so the replica
 * that becomes leader can count a shard dead one lease duration after that shard's last renewal,
 * not one lease duration after it started looking (docs/reference/runtime.md §25.4).
 */
export class ShardLeaseWatch {
  readonly informer: Informer;
  readonly tracker = new LeaseTracker();
  readonly #now: () => number;
  #started = false;

  constructor(options: ShardLeaseWatchOptions) {
    this.#now = options.now ?? Date.now;
    this.informer = new Informer({
      client: options.listWatch,
      resource: {
        group: 'coordination.k8s.io',
        version: 'v1',
        plural: 'leases',
        kind: 'Lease',
        namespaced: true,
      },
      namespace: options.namespace,
      labelSelector: `${SHARD_LEASE_LABEL}=${options.katalogName}`,
      logger: {
        warn: (fields, message) => options.logger?.warn({ ...fields, component: 'sharder' }, message),
      },
    });
    this.informer.subscribe(() => this.observe());
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.informer.start();
  }

  async stop(): Promise<void> {
    this.#started = false;
    await this.informer.stop();
  }

  /** views are the Leases in the cache as the tracker reads them. */
  views(): ShardLeaseView[] {
    return this.informer.cache.list().map(leaseViewOf);
  }

  /** observe records the Leases now and returns the live shard IDs. */
  observe(): string[] {
    return this.tracker.observe(this.views(), this.#now());
  }
}

/** SharderStats counts the sharder's work (its requests are `patches` and `leaseDeletes`, besides its watches). */
export interface SharderStats {
  readonly live: readonly string[];
  readonly objects: number;
  readonly assigned: number;
  readonly drained: number;
  readonly undrained: number;
  readonly patches: number;
  readonly conflicts: number;
  readonly failures: number;
  readonly leaseDeletes: number;
}

interface Tracked {
  readonly resource: ShardedResource;
  readonly informer: Informer;
}

/**
 * Sharder assigns CRs to shards.
 *
 * @example
 * const sharder = new Sharder({ client, listWatch, katalogName: 'shop', leaseNamespace: 'orkestra-system', resources, tickMs: 2000 });
 * await sharder.start();
 * // on losing leadership or shutdown
 * await sharder.stop();
 */
export class Sharder {
  readonly #options: SharderOptions;
  readonly #now: () => number;
  readonly #hashes = new Map<string, number>();
  readonly #leaseWatch: ShardLeaseWatch;
  readonly #ownLeaseWatch: boolean;
  readonly #crs: Tracked[];
  #assignment = new ShardAssignment([], this.#hashes);
  #timer: NodeJS.Timeout | undefined;
  #expiryTimer: NodeJS.Timeout | undefined;
  #running = false;
  /**
   * Patches to make, in two lanes: `#urgent` labels CRs no live shard reconciles (unassigned, or
   * their shard died), `#pending` moves CRs between live shards (drain, undrain). A drain waits
   * while any urgent patch is queued or in flight, so a dead shard's CRs are relabelled first and
   * a scale-up's hand-offs do not compete with them for the API server (runtime.md §25.4).
   */
  readonly #urgent = new Map<string, { tracked: Tracked; object: KubeObject }>();
  readonly #pending = new Map<string, { tracked: Tracked; object: KubeObject }>();
  readonly #inFlight = new Set<string>();
  #urgentInFlight = 0;
  #retryAll = false;
  /** Set while claiming (not leading): this replica's shard ID. */
  #claimFor: string | undefined;
  /** This replica's shard ID (`claimFor`), kept after `lead()`. */
  readonly #self: string | undefined;
  /**
   * Leading with a shard of its own, the sharder leaves a CR it would label with another shard to
   * that shard's claimer for one tick (`since`), then labels it itself if it is still unassigned:
   * one patch per CR, not a claimer's and the leader's racing (one of them a 409). A dead shard's
   * CRs included: the replica that confirms a death deletes the dead Lease (`#deleteLease`), so
   * even a claimer that has just joined sees the death at once.
   */
  readonly #deferred = new Map<
    string,
    { tracked: Tracked; namespace: string | undefined; name: string; since: number }
  >();
  /** Since a death was acted on, until its CRs are patched: what the `relabelled` log line reports. */
  #relabel: { dead: string[]; since: number; patches: number } | undefined;
  /** Deaths being confirmed by reading their Leases (one round at a time). */
  #confirming = false;
  /** The deaths (`deathKey`) the API server confirmed. */
  readonly #confirmedDead = new Set<string>();
  #stats = { assigned: 0, drained: 0, undrained: 0, patches: 0, conflicts: 0, failures: 0, leaseDeletes: 0 };

  constructor(options: SharderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#claimFor = options.claimFor;
    this.#self = options.self ?? options.claimFor;
    const warn = (fields: Record<string, unknown>, message: string): void =>
      options.logger?.warn({ ...fields, component: 'sharder' }, message);
    this.#ownLeaseWatch = options.leaseWatch == null;
    this.#leaseWatch =
      options.leaseWatch ??
      new ShardLeaseWatch({
        listWatch: options.leaseListWatch,
        katalogName: options.katalogName,
        namespace: options.leaseNamespace,
        ...(options.logger == null ? {} : { logger: options.logger }),
        now: this.#now,
      });
    this.#leaseWatch.informer.subscribe(() => this.#refreshLive());
    this.#crs = options.resources.map((resource) => {
      const informer = new Informer({
        client: options.listWatch,
        resource,
        ...(resource.namespaced && options.namespace != null ? { namespace: options.namespace } : {}),
        logger: { warn },
      });
      const tracked = { resource, informer };
      informer.subscribe((change) => {
        if (change.type === 'delete') return;
        this.#consider(tracked, change.object);
      });
      return tracked;
    });
  }

  /** start opens the watches, waits for their first lists, assigns every CR, then follows changes. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#leaseWatch.start();
    for (const tracked of this.#crs) tracked.informer.start();
    await Promise.all([
      this.#leaseWatch.informer.waitForSync(signal),
      ...this.#crs.map((t) => t.informer.waitForSync(signal)),
    ]);
    this.#refreshLive(true);
    this.#timer = setInterval(() => this.#tick(), this.#options.tickMs);
    this.#timer.unref();
  }

  /** stop closes the watches; patches in flight finish. */
  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#timer);
    clearTimeout(this.#expiryTimer);
    await Promise.all([
      ...(this.#ownLeaseWatch ? [this.#leaseWatch.stop()] : []),
      ...this.#crs.map((t) => t.informer.stop()),
    ]);
  }

  /** lead makes a claimer the sharder (this replica became leader): every decision is made from now on. */
  lead(): void {
    if (this.#claimFor == null) return;
    this.#claimFor = undefined;
    this.#options.logger?.info({ component: 'sharder' }, 'sharder leading');
    this.#refreshLive(true);
  }

  /** leading is false while the sharder only claims CRs for this replica. */
  leading(): boolean {
    return this.#claimFor == null;
  }

  /**
   * busy: CRs are being relabelled or about to be — a death awaits its confirmation, a shard the
   * Leases show dead is still counted live, a live shard has not renewed its Lease for half its
   * duration (a leader kill: the takeover can come before the dead shard's Lease expires), or CRs
   * no live shard holds are queued or being patched. The new leader holds its own start-up reads
   * back while it is (ADR 0105).
   */
  busy(): boolean {
    if (this.#confirming || this.#urgent.size > 0 || this.#urgentInFlight > 0) return true;
    if (!this.#leaseWatch.informer.hasSynced()) return false;
    const views = this.#leaseWatch.views();
    const now = this.#now();
    const observed = new Set(this.#leaseWatch.tracker.observe(views, now));
    if ([...this.#assignment.live].some((shard) => !observed.has(shard))) return true;
    return this.#leaseWatch.tracker.overdue(views, now).length > 0;
  }

  /** live is the shard IDs the sharder counts as alive now. */
  live(): readonly string[] {
    return [...this.#assignment.live];
  }

  stats(): SharderStats {
    return {
      live: this.live(),
      objects: this.#crs.reduce((n, t) => n + t.informer.cache.size, 0),
      ...this.#stats,
    };
  }

  /** #refreshLive recomputes the live shards; a change (or `all`) re-decides every CR. */
  #refreshLive(all = false): void {
    if (!this.#running || !this.#leaseWatch.informer.hasSynced() || this.#confirming) return;
    const live = this.#leaseWatch.observe();
    const views = this.#leaseWatch.views();
    const keys = new Set(views.map(deathKey));
    for (const key of this.#confirmedDead) if (!keys.has(key)) this.#confirmedDead.delete(key);
    const unconfirmed = views.filter(
      (view) => view.holder !== '' && !live.includes(view.holder) && !this.#confirmedDead.has(deathKey(view)),
    );
    if (unconfirmed.length > 0) {
      this.#confirmDeaths(unconfirmed, all);
      return;
    }
    const changed = live.join(',') !== [...this.#assignment.live].join(',');
    if (changed) {
      const dead = [...this.#assignment.live].filter((shard) => !live.includes(shard));
      if (dead.length > 0) this.#relabel = { dead, since: this.#now(), patches: this.#stats.patches };
      this.#assignment = new ShardAssignment(live, this.#hashes);
      this.#options.logger?.info({ component: 'sharder', live }, 'shards changed');
      this.#options.onLiveShards?.(live);
    }
    if (changed || all) this.#considerAll();
    this.#relabelled();
    this.#armExpiry();
  }

  /**
   * #confirmDeaths reads the Lease of each shard the watch counts dead (its renewTime unchanged for
   * the lease duration): the same holder and renewTime on the API server confirm it stopped
   * renewing; anything else means the watch lags, and nothing moves until it catches up (the next
   * tick looks again). A Lease gone is dead. Until then the live shards stay as they were.
   */
  #confirmDeaths(views: readonly ShardLeaseView[], all: boolean): void {
    this.#confirming = true;
    void Promise.all(
      views.map(async (view) => {
        try {
          const read = await this.#options.client.get(this.#leaseRef(view.name));
          const lease = leaseViewOf(read);
          const dead = lease.holder === view.holder && sameInstant(lease.renewTime, view.renewTime);
          // On the version read: a Lease renewed or taken since is left alone (409).
          if (dead && read.metadata.resourceVersion != null)
            void this.#deleteLease(view.name, read.metadata.resourceVersion);
          return dead;
        } catch (error) {
          return error instanceof NotFoundError;
        }
      }),
    ).then((confirmed) => {
      this.#confirming = false;
      if (!this.#running) return;
      views.forEach((view, i) => {
        if (confirmed[i] === true) this.#confirmedDead.add(deathKey(view));
      });
      if (confirmed.every(Boolean)) {
        this.#refreshLive(all);
        return;
      }
      this.#retryAll ||= all;
      this.#options.logger?.warn(
        { component: 'sharder', shards: views.filter((_, i) => confirmed[i] !== true).map((v) => v.holder) },
        'a shard the Lease watch counts dead renewed its Lease after all (the watch lags); looking again at the next tick',
      );
    });
  }

  /** #relabelled logs, once a death's CRs are all patched, how long that took and how many patches it made. */
  #relabelled(): void {
    const relabel = this.#relabel;
    if (relabel == null || this.#urgent.size > 0 || this.#urgentInFlight > 0) return;
    this.#relabel = undefined;
    this.#options.logger?.info(
      {
        component: 'sharder',
        dead: relabel.dead,
        ms: this.#now() - relabel.since,
        patches: this.#stats.patches - relabel.patches,
      },
      "dead shards' CRs relabelled",
    );
  }

  #armExpiry(): void {
    // A Lease expiring makes no event: look again the moment the first live one would expire.
    const next = this.#leaseWatch.tracker.nextExpiryMs(this.#leaseWatch.views(), this.#now());
    clearTimeout(this.#expiryTimer);
    if (next != null) {
      this.#expiryTimer = setTimeout(() => this.#refreshLive(), next + 5);
      this.#expiryTimer.unref();
    }
  }

  #tick(): void {
    this.#refreshLive(this.#retryAll);
    this.#retryAll = false;
    this.#sweepDeferred();
    if (this.#claimFor == null) void this.#deleteDeadLeases();
  }

  /** #mine is whether this sharder makes the action: all of them when leading, a claim of this replica's otherwise. */
  #mine(action: ShardAction): boolean {
    return this.#claimFor == null || (action.action === 'assign' && action.shard === this.#claimFor);
  }

  /** #sweepDeferred labels what the claimers left unassigned for a whole tick. */
  #sweepDeferred(): void {
    if (this.#claimFor != null) {
      this.#deferred.clear();
      return;
    }
    const due = this.#now() - this.#options.tickMs;
    for (const [key, { tracked, namespace, name, since }] of this.#deferred) {
      if (since > due) continue;
      this.#deferred.delete(key);
      const latest = tracked.informer.cache.getByName(namespace, name);
      if (latest != null) this.#consider(tracked, latest, true);
    }
  }

  #considerAll(): void {
    for (const tracked of this.#crs)
      for (const object of tracked.informer.cache.list()) this.#consider(tracked, object);
  }

  #keyOf(tracked: Tracked, object: KubeObject): string {
    return objectKey({
      group: tracked.resource.group,
      kind: tracked.resource.kind,
      namespace: object.metadata.namespace,
      name: object.metadata.name ?? '',
    });
  }

  /**
   * #consider decides one CR and queues its patch (the latest metadata wins while one is in flight).
   * `swept`: the CR waited its tick for another shard's claimer (`#deferred`).
   */
  #consider(tracked: Tracked, object: KubeObject, swept = false): void {
    if (!this.#running || this.#assignment.live.size === 0 || !tracked.informer.hasSynced()) return;
    const key = this.#keyOf(tracked, object);
    const action = this.#assignment.decide(shardedObjectOf(key, object.metadata));
    this.#urgent.delete(key);
    this.#pending.delete(key);
    if (action.action !== 'assign') this.#deferred.delete(key);
    if (action.action === 'none' || !this.#mine(action)) return;
    if (
      action.action === 'assign' &&
      !swept &&
      this.#self != null &&
      action.shard !== this.#self &&
      this.#claimFor == null
    ) {
      if (!this.#deferred.has(key))
        this.#deferred.set(key, {
          tracked,
          namespace: object.metadata.namespace,
          name: object.metadata.name ?? '',
          since: this.#now(),
        });
      return;
    }
    (action.action === 'assign' ? this.#urgent : this.#pending).set(key, { tracked, object });
    this.#pump();
  }

  #pump(): void {
    const limit = this.#options.maxConcurrentPatches ?? 32;
    const start = (lane: Map<string, { tracked: Tracked; object: KubeObject }>, urgent: boolean): void => {
      for (const [key, item] of lane) {
        if (this.#inFlight.size >= limit) return;
        if (this.#inFlight.has(key)) continue;
        lane.delete(key);
        this.#inFlight.add(key);
        if (urgent) this.#urgentInFlight++;
        void this.#patch(key, item.tracked, item.object).finally(() => {
          this.#inFlight.delete(key);
          if (urgent) this.#urgentInFlight--;
          this.#pump();
          this.#relabelled();
        });
      }
    };
    start(this.#urgent, true);
    if (this.#urgent.size === 0 && this.#urgentInFlight === 0) start(this.#pending, false);
  }

  async #patch(key: string, tracked: Tracked, object: KubeObject): Promise<void> {
    // Decided again on the latest metadata seen: a watch event may have arrived meanwhile.
    const latest = tracked.informer.cache.getByName(object.metadata.namespace, object.metadata.name ?? '');
    if (latest == null || !this.#running) return;
    const action = this.#assignment.decide(shardedObjectOf(key, latest.metadata));
    if (action.action === 'none' || !this.#mine(action)) return;
    const { resource } = tracked;
    const ref = {
      apiVersion: resource.group === '' ? resource.version : `${resource.group}/${resource.version}`,
      kind: resource.kind,
      name: latest.metadata.name ?? '',
      ...(latest.metadata.namespace == null ? {} : { namespace: latest.metadata.namespace }),
    };
    try {
      this.#stats.patches++;
      // The resource-version precondition: an assignment is never made from a stale view.
      await this.#options.client.mergePatch(
        ref,
        { metadata: { labels: action.labels } },
        { resourceVersion: latest.metadata.resourceVersion },
      );
      if (action.action === 'assign') this.#stats.assigned++;
      else if (action.action === 'drain') this.#stats.drained++;
      else this.#stats.undrained++;
      this.#options.logger?.debug(
        { component: 'sharder', namespace: ref.namespace, name: ref.name, ...action },
        'shard label patched',
      );
    } catch (error) {
      // A conflict or a deleted CR arrives as a watch event, which decides again.
      if (error instanceof ConflictError || error instanceof NotFoundError) {
        this.#stats.conflicts++;
        this.#options.logger?.debug(
          { component: 'sharder', namespace: ref.namespace, name: ref.name, ...action, conflict: true },
          'shard label patch conflicted',
        );
        return;
      }
      this.#stats.failures++;
      this.#retryAll = true;
      this.#options.logger?.warn(
        { component: 'sharder', namespace: ref.namespace, name: ref.name, err: { message: String(error) } },
        'could not patch the shard label; retrying at the next tick',
      );
    }
  }

  async #deleteDeadLeases(): Promise<void> {
    const after = this.#options.deleteDeadLeasesAfterMs ?? 60_000;
    if (after <= 0 || !this.#running) return;
    const now = this.#now();
    for (const view of this.#leaseWatch.views())
      if (this.#leaseWatch.tracker.deadForMs(view, now) >= after) await this.#deleteLease(view.name);
  }

  /**
   * #deleteLease deletes a dead shard's Lease: one left dead for a while (`#deleteDeadLeases`), or
   * one this replica has just confirmed dead, then on the version it read (`#confirmDeaths`). Every
   * replica's Lease watch sees it gone, and a Lease gone is dead at once — so a replica that joined
   * less than a lease duration ago, whose own tracker would still count the dead shard alive,
   * claims its share of the dead shard's CRs now, beside the others. The first replica to confirm a
   * death deletes its Lease; the others' deletes answer 409 or 404.
   */
  async #deleteLease(name: string, resourceVersion?: string): Promise<void> {
    try {
      await this.#options.client.delete(this.#leaseRef(name), { resourceVersion });
      this.#stats.leaseDeletes++;
    } catch (error) {
      if (error instanceof ConflictError || error instanceof NotFoundError) return;
      this.#options.logger?.warn(
        { component: 'sharder', lease: name, err: { message: String(error) } },
        'could not delete a dead shard lease',
      );
    }
  }

  #leaseRef(name: string): ObjectRef {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: this.#options.leaseNamespace,
      name,
    };
  }
}
