/**
 * The drift-correction limiter of the apply path: when another writer keeps reverting a field
 * the Katalog owns (and `forceConflict: true` takes it back each time), corrections of that child
 * are bounded instead of following the other writer's speed.
 */
import type { Clock } from '../clock.js';

/** DRIFT_LIMIT_DEFAULTS are the documented defaults of {@link DriftLimitTuning}. */
export const DRIFT_LIMIT_DEFAULTS = {
  maxCorrections: 5,
  windowMs: 60_000,
  initialBackoffMs: 1000,
  maxBackoffMs: 300_000,
} as const;

/** DriftLimitTuning sets the thresholds of the drift-correction limiter; every field has a default. */
export interface DriftLimitTuning {
  /** Corrections of one child within `windowMs` made at once; the next one backs off. Default 5. */
  readonly maxCorrections?: number;
  /** The window corrections are counted in, and how long a child must stay in sync to be forgotten. Default 60 000 ms. */
  readonly windowMs?: number;
  /** The first backoff of a fight; each further correction doubles it. Default 1000 ms. */
  readonly initialBackoffMs?: number;
  /** The longest backoff. Default 300 000 ms (5 min). */
  readonly maxBackoffMs?: number;
}

/** DriftLimiterOptions configures a DriftLimiter. */
export interface DriftLimiterOptions extends DriftLimitTuning {
  /** Source of time; `now()` is read as milliseconds. */
  readonly clock: Clock;
}

/** DriftDecision is the answer to a correction request: go ahead, or wait until `retryAt`. */
export type DriftDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** Clock time (ms) at which one correction is allowed again. */
      readonly retryAt: number;
      /** Whether this block starts a backoff episode (emit `DriftFight` once). */
      readonly episodeStarted: boolean;
    };

interface DriftRecord {
  /** Times of the corrections within the window (only counted outside an episode). */
  corrections: number[];
  /** Time of the last correction request, allowed or not. */
  lastDriftAt: number;
  /** 0 outside a backoff episode; else the current backoff. */
  backoffMs: number;
  /** Set while corrections are blocked. */
  blockedUntil: number | undefined;
}

const ALLOWED: DriftDecision = { allowed: true };

/**
 * DriftLimiter keeps, per owner UID and child id, the recent corrections of drift made by someone
 * else (an existing child whose applied-hash already equals the desired one, yet differs from
 * it). Up to `maxCorrections` within `windowMs` go through at once (a single manual edit is
 * reverted immediately); beyond that a backoff episode starts: corrections wait `initialBackoffMs`,
 * doubling per further correction up to `maxBackoffMs`, and each expired wait lets exactly one
 * through. A child seen in sync (or not corrected) for `windowMs` is forgotten; so are children and
 * owners the pipeline deletes, and records idle for a window are swept, so the map stays bounded by
 * the children fought over in the last window.
 *
 * @example
 * const limiter = new DriftLimiter({ clock });
 * const decision = limiter.admit(ownerUid, childId);
 * if (!decision.allowed) requeueAt(decision.retryAt);
 */
export class DriftLimiter {
  readonly #clock: Clock;
  readonly #max: number;
  readonly #windowMs: number;
  readonly #initialMs: number;
  readonly #maxBackoffMs: number;
  readonly #owners = new Map<string, Map<string, DriftRecord>>();
  #lastSweep: number;

  constructor(options: DriftLimiterOptions) {
    this.#clock = options.clock;
    this.#max = options.maxCorrections ?? DRIFT_LIMIT_DEFAULTS.maxCorrections;
    this.#windowMs = options.windowMs ?? DRIFT_LIMIT_DEFAULTS.windowMs;
    this.#initialMs = options.initialBackoffMs ?? DRIFT_LIMIT_DEFAULTS.initialBackoffMs;
    this.#maxBackoffMs = options.maxBackoffMs ?? DRIFT_LIMIT_DEFAULTS.maxBackoffMs;
    if (!Number.isInteger(this.#max) || this.#max < 1)
      throw new RangeError('DriftLimiter: maxCorrections must be an integer >= 1');
    if (!(this.#windowMs > 0)) throw new RangeError('DriftLimiter: need windowMs > 0');
    if (!(this.#initialMs > 0 && this.#initialMs <= this.#maxBackoffMs))
      throw new RangeError('DriftLimiter: need 0 < initialBackoffMs <= maxBackoffMs');
    this.#lastSweep = this.#clock.now();
  }

  /** size is the number of children with a record (for tests and gauges). */
  get size(): number {
    let n = 0;
    for (const children of this.#owners.values()) n += children.size;
    return n;
  }

  /** tracks says whether the child has a record, i.e. was corrected recently and may be held back. */
  tracks(ownerUid: string, childId: string): boolean {
    return this.#owners.get(ownerUid)?.has(childId) === true;
  }

  /**
   * admit is asked before (or, for an untracked child, right after) a drift correction; an allowed
   * correction is recorded. A blocked one must not be written; retry at `retryAt`.
   */
  admit(ownerUid: string, childId: string): DriftDecision {
    const now = this.#clock.now();
    this.#maybeSweep(now);
    let children = this.#owners.get(ownerUid);
    if (children == null) {
      children = new Map();
      this.#owners.set(ownerUid, children);
    }
    let record = children.get(childId);
    if (record == null || this.#expired(record, now)) {
      record = { corrections: [], lastDriftAt: now, backoffMs: 0, blockedUntil: undefined };
      children.set(childId, record);
    }
    record.lastDriftAt = now;
    if (record.blockedUntil != null) {
      if (now < record.blockedUntil) {
        return { allowed: false, retryAt: record.blockedUntil, episodeStarted: false };
      }
      // The wait is over: exactly one correction goes through; the next drift doubles the wait.
      record.blockedUntil = undefined;
      return ALLOWED;
    }
    if (record.backoffMs === 0) {
      const since = now - this.#windowMs;
      record.corrections = record.corrections.filter((t) => t > since);
      if (record.corrections.length < this.#max) {
        record.corrections.push(now);
        return ALLOWED;
      }
    }
    const episodeStarted = record.backoffMs === 0;
    record.backoffMs = episodeStarted ? this.#initialMs : Math.min(record.backoffMs * 2, this.#maxBackoffMs);
    record.corrections = [];
    record.blockedUntil = now + record.backoffMs;
    return { allowed: false, retryAt: record.blockedUntil, episodeStarted };
  }

  /** stable reports the child in sync (no correction needed); after a window of that its record is dropped. */
  stable(ownerUid: string, childId: string): void {
    const now = this.#clock.now();
    this.#maybeSweep(now);
    const children = this.#owners.get(ownerUid);
    const record = children?.get(childId);
    if (children == null || record == null) return;
    if (record.blockedUntil != null) {
      // Nothing to correct any more: the wait is moot, and stability counts from now.
      record.blockedUntil = undefined;
      record.lastDriftAt = now;
      return;
    }
    if (this.#expired(record, now)) this.#delete(ownerUid, children, childId);
  }

  /** forget drops the record of one child (pruned), or of every child of an owner (deleted) when `childId` is left out. */
  forget(ownerUid: string, childId?: string): void {
    if (childId == null) {
      this.#owners.delete(ownerUid);
      return;
    }
    const children = this.#owners.get(ownerUid);
    if (children != null) this.#delete(ownerUid, children, childId);
  }

  /** #expired: no correction was needed for a window and nothing is blocked. */
  #expired(record: DriftRecord, now: number): boolean {
    return record.blockedUntil == null && now - record.lastDriftAt >= this.#windowMs;
  }

  #delete(ownerUid: string, children: Map<string, DriftRecord>, childId: string): void {
    children.delete(childId);
    if (children.size === 0) this.#owners.delete(ownerUid);
  }

  /** #maybeSweep drops, at most once a window, records idle for a window (children nobody reconciles any more). */
  #maybeSweep(now: number): void {
    if (now - this.#lastSweep < this.#windowMs) return;
    this.#lastSweep = now;
    for (const [ownerUid, children] of this.#owners) {
      for (const [childId, record] of children) {
        const idleSince =
          record.blockedUntil == null
            ? record.lastDriftAt
            : Math.max(record.lastDriftAt, record.blockedUntil);
        if (now - idleSince >= this.#windowMs) children.delete(childId);
      }
      if (children.size === 0) this.#owners.delete(ownerUid);
    }
  }
}
