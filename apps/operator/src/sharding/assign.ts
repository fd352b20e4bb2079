/**
 * The sharder's decisions as pure functions (docs/reference/runtime.md §25, ADR 0045): which shards
 * are alive, from their Leases as this replica saw them; and which label patch each CR needs, from
 * the live shards and the CR's metadata. No I/O, no clock of its own.
 */
import { OrkestraLabel } from '@orkestra/types';
import { HashRing, hash32 } from './ring.js';

/** ShardLeaseView is what the sharder reads of one shard's Lease. */
export interface ShardLeaseView {
  /** The Lease name (unique per shard). */
  readonly name: string;
  /** `spec.holderIdentity`: the shard ID while held, `''` once released. */
  readonly holder: string;
  /** `spec.renewTime` as written (compared for change only, never with this replica's clock). */
  readonly renewTime: string;
  /** `spec.leaseDurationSeconds` × 1000. */
  readonly durationMs: number;
}

/**
 * LeaseTracker decides which shards are alive the way client-go's elector does: a Lease is alive
 * for its duration after this replica last *saw its renewTime change*, on this replica's clock, so
 * clock skew between replicas does not matter. A shard that stops renewing gives up its work at its
 * renew deadline (shorter than the duration), before the sharder here counts it dead. A released
 * Lease (empty holder) is dead at once.
 */
export class LeaseTracker {
  readonly #seen = new Map<string, { renewTime: string; holder: string; at: number }>();

  /** observe records the Leases seen at `nowMs` and returns the live shard IDs, sorted. */
  observe(leases: readonly ShardLeaseView[], nowMs: number): string[] {
    const live = new Set<string>();
    const names = new Set<string>();
    for (const lease of leases) {
      names.add(lease.name);
      const previous = this.#seen.get(lease.name);
      const seen =
        previous != null && previous.renewTime === lease.renewTime && previous.holder === lease.holder
          ? previous
          : { renewTime: lease.renewTime, holder: lease.holder, at: nowMs };
      this.#seen.set(lease.name, seen);
      if (lease.holder !== '' && seen.at + lease.durationMs > nowMs) live.add(lease.holder);
    }
    for (const name of this.#seen.keys()) if (!names.has(name)) this.#seen.delete(name);
    return [...live].sort();
  }

  /**
   * nextExpiryMs is how long until the first live Lease expires if it is not renewed (undefined
   * when none is live), so the sharder can look again at that moment instead of at its next tick.
   */
  nextExpiryMs(leases: readonly ShardLeaseView[], nowMs: number): number | undefined {
    let next: number | undefined;
    for (const lease of leases) {
      const seen = this.#seen.get(lease.name);
      if (seen == null || lease.holder === '') continue;
      const left = seen.at + lease.durationMs - nowMs;
      if (left > 0 && (next == null || left < next)) next = left;
    }
    return next;
  }

  /**
   * overdue is the holders of the Leases still alive that this replica has not seen renewed for
   * half their duration or more: a live replica renews every retry period, so such a shard has
   * most likely died and its CRs will be relabelled when its Lease expires.
   */
  overdue(leases: readonly ShardLeaseView[], nowMs: number): string[] {
    const late: string[] = [];
    for (const lease of leases) {
      const seen = this.#seen.get(lease.name);
      if (seen == null || lease.holder === '') continue;
      const age = nowMs - seen.at;
      if (age >= lease.durationMs / 2 && age < lease.durationMs) late.push(lease.holder);
    }
    return late.sort();
  }

  /** deadSinceMs is how long a Lease has been dead (0 when alive or unknown), for clean-up. */
  deadForMs(lease: ShardLeaseView, nowMs: number): number {
    const seen = this.#seen.get(lease.name);
    if (seen == null) return 0;
    if (lease.holder === '') return nowMs - seen.at;
    return Math.max(0, nowMs - (seen.at + lease.durationMs));
  }
}

/** ShardedObject is what the sharder reads of one CR: its ring key and its two labels. */
export interface ShardedObject {
  /** The ring key, `objectKey(...)`. */
  readonly key: string;
  /** The `orkestra.konductor.io/shard` label ('' or undefined when unassigned). */
  readonly shard?: string | undefined;
  /** Whether the `orkestra.konductor.io/drain` label is set. */
  readonly draining: boolean;
  /** The CR is being deleted: it stays with its shard (which runs the deletion path) unless that shard is dead. */
  readonly deleting?: boolean;
}

/** ShardLabels is a label change: a value sets the label, null removes it. */
export interface ShardLabels {
  readonly [OrkestraLabel.Shard]?: string | null;
  readonly [OrkestraLabel.Drain]?: string | null;
}

/** ShardAction is what the sharder does to one CR, and why. */
export type ShardAction =
  | { readonly action: 'none' }
  /** Unassigned, or its shard is dead (its Lease expired or was released): label it with the ring's choice. */
  | { readonly action: 'assign'; readonly shard: string; readonly labels: ShardLabels }
  /** Its live shard is no longer the ring's choice: ask it to drain (it removes both labels when done). */
  | { readonly action: 'drain'; readonly from: string; readonly labels: ShardLabels }
  /** Drain asked earlier, but the ring now chooses the current shard again: withdraw the request. */
  | { readonly action: 'undrain'; readonly labels: ShardLabels };

/** ShardAssignment is the ring of live shards, with each key's hash remembered. */
export class ShardAssignment {
  readonly live: ReadonlySet<string>;
  readonly #ring: HashRing;
  readonly #hashes: Map<string, number>;

  constructor(live: readonly string[], hashes: Map<string, number> = new Map(), virtualNodes?: number) {
    this.live = new Set(live);
    this.#ring = new HashRing(live, virtualNodes);
    this.#hashes = hashes;
  }

  /** ownerOf is the ring's choice for a key (undefined without live shards). */
  ownerOf(key: string): string | undefined {
    let hash = this.#hashes.get(key);
    if (hash == null) {
      hash = hash32(key);
      this.#hashes.set(key, hash);
    }
    return this.#ring.ownerOfHash(hash);
  }

  /**
   * decide is the sharder's rule for one CR. A CR moves between two live shards only through a
   * drain: the new shard's label is set only once the old shard has removed its own (after its
   * in-flight reconcile), so no two shards ever hold the same CR. A dead shard has stopped its
   * workers before its Lease could expire, so its CRs are relabelled at once.
   */
  decide(object: ShardedObject): ShardAction {
    const current = object.shard ?? '';
    const owner = this.ownerOf(object.key);
    if (current === '' || !this.live.has(current)) {
      if (owner == null) return { action: 'none' };
      return {
        action: 'assign',
        shard: owner,
        labels: {
          [OrkestraLabel.Shard]: owner,
          ...(object.draining ? { [OrkestraLabel.Drain]: null } : {}),
        },
      };
    }
    if (owner === current || owner == null || object.deleting === true) {
      return object.draining && owner === current
        ? { action: 'undrain', labels: { [OrkestraLabel.Drain]: null } }
        : { action: 'none' };
    }
    if (object.draining) return { action: 'none' }; // waiting for the old shard's acknowledgement
    return { action: 'drain', from: current, labels: { [OrkestraLabel.Drain]: 'true' } };
  }
}

/** shardedObjectOf reads a CR's metadata (full object or PartialObjectMetadata) for `decide`. */
export function shardedObjectOf(
  key: string,
  metadata: {
    readonly labels?: Readonly<Record<string, string>> | undefined;
    readonly deletionTimestamp?: unknown;
  },
): ShardedObject {
  const labels = metadata.labels ?? {};
  const drain = labels[OrkestraLabel.Drain];
  return {
    key,
    shard: labels[OrkestraLabel.Shard],
    draining: drain != null && drain !== '',
    deleting: metadata.deletionTimestamp != null,
  };
}
