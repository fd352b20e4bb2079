import { systemClock } from './clock.js';
import type { Clock, TimerHandle } from './clock.js';
import { Priority } from './work-queue.js';
import type { WorkQueue } from './work-queue.js';

/** ResyncItem is one cached object to resync: its queue key and its UID (which fixes its phase). */
export interface ResyncItem {
  readonly key: string;
  readonly uid: string;
}

/** ResyncOptions configures a Resync. */
export interface ResyncOptions {
  /** Interval R in ms; 0 disables resync. */
  readonly intervalMs: number;
  /** The objects to resync, read at the start of every cycle (from the cache: no API request). */
  readonly items: () => Iterable<ResyncItem>;
  /** Where keys are added, at low priority. */
  readonly queue: Pick<WorkQueue, 'add'>;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
  /**
   * When the key's last successful reconcile caused by a change finished (clock time), or
   * undefined; reconciles the resync itself caused must not count. A key due for resync whose
   * last such success is younger than the interval is skipped: its creation, an edit or a child
   * change checked it within the interval, so a resync would repeat that work. Default: never skip.
   */
  readonly lastSuccessAt?: (key: string) => number | undefined;
}

interface Scheduled {
  readonly key: string;
  readonly dueAt: number;
}

/**
 * Resync re-adds every cached key once per interval R at low priority (docs/reference/runtime.md §16). Each key
 * has a fixed phase within the interval, derived from a hash of its UID, so adds are spread evenly
 * instead of arriving in one burst. `setInterval` applies from the next cycle; R = 0 disables.
 *
 * A key whose last successful reconcile caused by a change (not by a resync) is younger than R
 * when its turn comes is skipped (`lastSuccessAt`), so a busy operator (a burst of new CRs
 * converging for minutes) does not re-check what it has just written, and no CR goes longer than
 * 2 R without a reconcile. In steady state nothing changes, so nothing is skipped.
 *
 * A cycle snapshots the items when it starts: objects created during a cycle are first resynced in
 * the next one (their creation already enqueued them), objects deleted during a cycle may still be
 * added once (the reconcile finds nothing in the cache and stops).
 *
 * @example
 * const resync = new Resync({ intervalMs: 600_000, items: () => cacheItems(), queue });
 * resync.start();
 */
export class Resync {
  readonly #items: () => Iterable<ResyncItem>;
  readonly #queue: Pick<WorkQueue, 'add'>;
  readonly #clock: Clock;
  readonly #lastSuccessAt: ((key: string) => number | undefined) | undefined;
  #intervalMs: number;
  #running = false;
  #timer: TimerHandle | undefined;
  #cycleStart = 0;
  #cycleInterval = 0;
  #schedule: Scheduled[] = [];
  #next = 0;
  #cycles = 0;
  #added = 0;
  #skipped = 0;

  constructor(options: ResyncOptions) {
    this.#items = options.items;
    this.#queue = options.queue;
    this.#clock = options.clock ?? systemClock;
    this.#lastSuccessAt = options.lastSuccessAt;
    this.#intervalMs = normalizeInterval(options.intervalMs);
  }

  /** intervalMs is the interval that the next cycle will use (0 = disabled). */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** cycles is the number of cycles started so far. */
  get cycles(): number {
    return this.#cycles;
  }

  /** added is the number of keys added so far. */
  get added(): number {
    return this.#added;
  }

  /** skipped is the number of due keys not added because they had just been reconciled. */
  get skipped(): number {
    return this.#skipped;
  }

  /** start begins the first cycle now (when R > 0); calling it again does nothing. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#beginCycle();
  }

  /** stop cancels the pending timer; no key is added afterwards. */
  stop(): void {
    this.#running = false;
    this.#clearTimer();
    this.#schedule = [];
  }

  /**
   * setInterval changes R; the current cycle finishes with the old R and the next one uses the
   * new value. Setting 0 disables resync from the next cycle; setting a positive value while
   * disabled starts a cycle now.
   */
  setInterval(intervalMs: number): void {
    this.#intervalMs = normalizeInterval(intervalMs);
    if (this.#running && this.#timer == null && this.#intervalMs > 0) this.#beginCycle();
  }

  #beginCycle(): void {
    this.#clearTimer();
    this.#schedule = [];
    this.#next = 0;
    if (!this.#running || this.#intervalMs === 0) return;
    this.#cycles++;
    this.#cycleStart = this.#clock.now();
    this.#cycleInterval = this.#intervalMs;
    const schedule: Scheduled[] = [];
    for (const item of this.#items()) {
      schedule.push({ key: item.key, dueAt: this.#cycleStart + phaseOf(item.uid, this.#cycleInterval) });
    }
    schedule.sort((a, b) => a.dueAt - b.dueAt);
    this.#schedule = schedule;
    this.#arm();
  }

  /** Sets the timer for the next due key, or for the end of the cycle. */
  #arm(): void {
    const next = this.#schedule[this.#next];
    const at = next?.dueAt ?? this.#cycleStart + this.#cycleInterval;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), at - this.#clock.now());
  }

  #fire(): void {
    this.#timer = undefined;
    if (!this.#running) return;
    const now = this.#clock.now();
    if (this.#next >= this.#schedule.length) {
      this.#beginCycle();
      return;
    }
    for (
      let item = this.#schedule[this.#next];
      item != null && item.dueAt <= now;
      item = this.#schedule[this.#next]
    ) {
      this.#next++;
      const last = this.#lastSuccessAt?.(item.key);
      if (last != null && now - last < this.#cycleInterval) {
        this.#skipped++;
        continue;
      }
      this.#added++;
      this.#queue.add(item.key, Priority.Low);
    }
    this.#arm();
  }

  #clearTimer(): void {
    if (this.#timer != null) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * phaseOf is the fixed offset (ms, in [0, intervalMs)) at which the object with this UID is
 * resynced within each interval: the 32-bit FNV-1a hash of the UID scaled to the interval.
 */
export function phaseOf(uid: string, intervalMs: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    hash ^= uid.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // Final avalanche (murmur3 fmix32): FNV-1a alone clusters on UIDs differing only in the last characters.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return Math.floor(((hash >>> 0) / 2 ** 32) * intervalMs);
}

function normalizeInterval(intervalMs: number): number {
  return Number.isFinite(intervalMs) && intervalMs > 0 ? intervalMs : 0;
}
