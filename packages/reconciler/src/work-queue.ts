import { systemClock } from './clock.js';
import type { Clock, TimerHandle } from './clock.js';

/**
 * Priority is the lane a key waits in: `high` for a child whose readiness state changed (it may
 * flip the owner's Ready, ADR 0014); `normal` for watch events, other child events, retries and
 * timers; `low` for an entry's initial list and resync, so fresh changes are served ahead of a
 * backlog (docs/reference/runtime.md §5.3).
 */
export const Priority = {
  High: 'high',
  Normal: 'normal',
  Low: 'low',
} as const;
export type Priority = (typeof Priority)[keyof typeof Priority];

/** LANE_ORDER is the order lanes are served in. */
const LANE_ORDER: readonly Priority[] = [Priority.High, Priority.Normal, Priority.Low];
/** RANK orders priorities: a higher rank is served first. */
const RANK: Readonly<Record<Priority, number>> = { high: 2, normal: 1, low: 0 };

/** WorkQueueOptions configures a WorkQueue; every field has a default. */
export interface WorkQueueOptions {
  /** First retry delay of `addRateLimited`; multiplied by `backoffMultiplier` per consecutive failure. Default 5 ms. */
  readonly initialBackoffMs?: number;
  /** Retry delay cap of `addRateLimited`. Default 1 000 000 ms (1000 s). */
  readonly maxBackoffMs?: number;
  /** Factor between consecutive retry delays (at least 1). Default 2. */
  readonly backoffMultiplier?: number;
  /**
   * Attempts in all (the first included) before `addRateLimited` stops scheduling retries for a
   * key (docs/reference/katalog.md §20.1); 0 = unlimited. Default 0.
   */
  readonly maxAttempts?: number;
  /** Drop new keys once this many keys are dirty; 0 = unlimited. Default 0. */
  readonly maxDepth?: number;
  /**
   * Decides, with maxDepth above 0, whether a new key is dropped given the dirty keys and maxDepth
   * (the entry's `queue.behaviour`, docs/reference/katalog.md §20.7). Default: dropped once `dirty >= maxDepth`.
   */
  readonly dropPolicy?: (dirty: number, maxDepth: number) => boolean;
  /** Source of time and timers; tests pass a ManualClock. Default `systemClock`. */
  readonly clock?: Clock;
  /**
   * Called when a worker takes a key, with how long it waited since it became dirty (for
   * `workqueue_queue_duration_seconds`) and the lane it was taken from. Exceptions are not caught. Default: none.
   */
  readonly onTake?: (key: string, queuedMs: number, priority: Priority) => void;
  /** Called for every accepted add, including adds that only deduplicated (`workqueue_adds_total`). Default: none. */
  readonly onAdd?: (key: string) => void;
  /** Called for every `addRateLimited` (`workqueue_retries_total`). Default: none. */
  readonly onRetry?: (key: string) => void;
  /** Called for every add dropped by the maxDepth policy (`orkestra_workqueue_dropped_total`). Default: none. */
  readonly onDrop?: (key: string) => void;
}

/** WorkQueueStats are the queue's counters and gauges, for metrics and the autoscaler. */
export interface WorkQueueStats {
  /** Ready keys (dirty and not being processed): the autoscaler's `depth`. */
  readonly depth: number;
  /** Dirty keys, including those that are dirty again while being processed. */
  readonly dirty: number;
  /** Keys held by a worker. */
  readonly processing: number;
  /** Keys with a pending `addAfter` timer. */
  readonly delayed: number;
  /** Keys with a pending `requeueAfter` timer (the entry's `requeue`). */
  readonly requeues: number;
  /** Accepted adds (including adds that only deduplicated), cumulative. */
  readonly adds: number;
  /** `addRateLimited` calls, cumulative (`workqueue_retries_total`). */
  readonly retries: number;
  /** Adds dropped by the maxDepth policy, cumulative (`orkestra_workqueue_dropped_total`). */
  readonly dropped: number;
  /** The current maxDepth (0 = unlimited). */
  readonly maxDepth: number;
}

interface Waiter {
  readonly resolve: (key: string | undefined) => void;
}

interface DelayedAdd {
  readonly dueAt: number;
  readonly handle: TimerHandle;
}

const DEFAULT_INITIAL_BACKOFF_MS = 5;
const DEFAULT_MAX_BACKOFF_MS = 1_000_000;

/**
 * WorkQueue holds the keys of one CRD entry with controller-runtime semantics (docs/reference/runtime.md §5):
 * identical keys are deduplicated, a key is held by at most one worker at a time, and a key
 * added while it is being processed is processed exactly once more after `done`.
 *
 * Unlike client-go, `shutDown` does not hand out the remaining backlog: after shut-down `get`
 * resolves `undefined` at once and `tryGet` returns `undefined`; the next leader's initial list
 * covers abandoned keys.
 *
 * @example
 * const queue = new WorkQueue({ maxDepth: 1000 });
 * queue.add('shop/web');
 * const key = await queue.get(); // 'shop/web'
 * try { await reconcile(key); queue.forget(key); } catch { queue.addRateLimited(key); }
 * finally { queue.done(key); }
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #multiplier: number;
  readonly #maxAttempts: number;
  #maxDepth: number;
  readonly #dropPolicy: ((dirty: number, maxDepth: number) => boolean) | undefined;
  readonly #onTake: ((key: string, queuedMs: number, priority: Priority) => void) | undefined;
  readonly #onAdd: ((key: string) => void) | undefined;
  readonly #onRetry: ((key: string) => void) | undefined;
  readonly #onDrop: ((key: string) => void) | undefined;

  /** Dirty keys and the lane each waits (or will wait) in. */
  readonly #dirty = new Map<string, Priority>();
  /** When each dirty key became dirty. */
  readonly #dirtySince = new Map<string, number>();
  readonly #processing = new Set<string>();
  /** Ready lanes; a Set keeps insertion order and allows moving a key between lanes. */
  readonly #lanes: Record<Priority, Set<string>> = { high: new Set(), normal: new Set(), low: new Set() };
  readonly #delayed = new Map<string, DelayedAdd>();
  /** The `requeueAfter` timer of each key: at most one, replaced by the next, cancelled by `add`. */
  readonly #requeues = new Map<string, DelayedAdd>();
  readonly #failures = new Map<string, number>();
  readonly #waiters: Waiter[] = [];
  readonly #readyListeners = new Set<() => void>();
  readonly #drainWaiters: (() => void)[] = [];
  #shuttingDown = false;
  #adds = 0;
  #retries = 0;
  #dropped = 0;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#initialBackoffMs = options.initialBackoffMs ?? DEFAULT_INITIAL_BACKOFF_MS;
    this.#maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.#multiplier = options.backoffMultiplier ?? 2;
    this.#maxAttempts = Math.max(0, Math.floor(options.maxAttempts ?? 0));
    this.#maxDepth = normalizeDepth(options.maxDepth ?? 0);
    this.#dropPolicy = options.dropPolicy;
    this.#onTake = options.onTake;
    this.#onAdd = options.onAdd;
    this.#onRetry = options.onRetry;
    this.#onDrop = options.onDrop;
    if (!(this.#initialBackoffMs > 0) || !(this.#maxBackoffMs >= this.#initialBackoffMs)) {
      throw new RangeError('WorkQueue: need 0 < initialBackoffMs <= maxBackoffMs');
    }
    if (!(this.#multiplier >= 1)) throw new RangeError('WorkQueue: need backoffMultiplier >= 1');
  }

  /**
   * add marks `key` dirty in the given lane (default normal). A dirty key only has its priority
   * raised; a key being processed is queued again when `done` is called. When maxDepth is reached
   * a key that is neither dirty nor processing is dropped and counted. Returns false when the add
   * was dropped or the queue is shut down. An add is an event for the key: it cancels the key's
   * `requeueAfter` timer (the reconcile it causes sets the next one).
   */
  add(key: string, priority: Priority = Priority.Normal): boolean {
    this.#cancelRequeue(key);
    return this.#add(key, priority, false);
  }

  /**
   * requeueAfter sets the key's requeue timer (docs/reference/katalog.md §20.2): the key is added
   * after `delayMs`, replacing any timer set by an earlier `requeueAfter` (later or earlier);
   * `undefined` or a delay of 0 or less only cancels it. `add` cancels it too. Independent of
   * `addAfter`, whose timers keep the earlier due time.
   */
  requeueAfter(key: string, delayMs: number | undefined): void {
    this.#cancelRequeue(key);
    if (this.#shuttingDown || delayMs == null || !(delayMs > 0)) return;
    const handle = this.#clock.setTimeout(() => {
      this.#requeues.delete(key);
      this.#add(key, Priority.Normal, true);
    }, delayMs);
    this.#requeues.set(key, { dueAt: this.#clock.now() + delayMs, handle });
  }

  /** requeueDueAt is when the key's requeue timer fires (clock time), if one is set. */
  requeueDueAt(key: string): number | undefined {
    return this.#requeues.get(key)?.dueAt;
  }

  #cancelRequeue(key: string): void {
    const pending = this.#requeues.get(key);
    if (pending == null) return;
    this.#clock.clearTimeout(pending.handle);
    this.#requeues.delete(key);
  }

  /** get waits for a ready key (high lane first, then normal, then low) and moves it to processing; undefined after shut-down. */
  get(): Promise<string | undefined> {
    const key = this.tryGet();
    if (key !== undefined || this.#shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.#waiters.push({ resolve }));
  }

  /** tryGet is `get` without waiting: a ready key moved to processing, or undefined when none is ready. */
  tryGet(): string | undefined {
    if (this.#shuttingDown) return undefined;
    let key: string | undefined;
    for (const lane of LANE_ORDER) {
      key = first(this.#lanes[lane]);
      if (key !== undefined) break;
    }
    if (key === undefined) return undefined;
    this.#take(key);
    return key;
  }

  /**
   * onReady registers a listener called synchronously whenever a key becomes ready and no `get`
   * is waiting for it; returns the unsubscribe function. Listeners should defer their work (for
   * example with `queueMicrotask`) and then call `tryGet`.
   */
  onReady(listener: () => void): () => void {
    this.#readyListeners.add(listener);
    return () => {
      this.#readyListeners.delete(listener);
    };
  }

  /** done releases a key a worker held; if it became dirty meanwhile it is queued again. */
  done(key: string): void {
    if (!this.#processing.delete(key)) return;
    const priority = this.#dirty.get(key);
    if (priority !== undefined && !this.#shuttingDown) this.#makeReady(key, priority);
    if (this.#processing.size === 0) this.#resolveDrainWaiters();
  }

  /**
   * addAfter adds `key` (normal lane) after `delayMs`. A key has at most one pending timer: the
   * earlier due time wins. Timed adds bypass the maxDepth policy. A delay of 0 or less adds now.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (!(delayMs > 0)) {
      this.#add(key, Priority.Normal, true);
      return;
    }
    const dueAt = this.#clock.now() + delayMs;
    const existing = this.#delayed.get(key);
    if (existing != null) {
      if (existing.dueAt <= dueAt) return;
      this.#clock.clearTimeout(existing.handle);
    }
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.#add(key, Priority.Normal, true);
    }, delayMs);
    this.#delayed.set(key, { dueAt, handle });
  }

  /**
   * addRateLimited counts a failure of `key` and re-adds it after `min(initial × multiplier^failures, max)`
   * (failures before this one); retries are never dropped. Once the key has failed `maxAttempts`
   * times no retry is scheduled and false is returned (docs/reference/katalog.md §20.1); `forget`
   * restarts the count.
   */
  addRateLimited(key: string): boolean {
    if (this.#shuttingDown) return false;
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    if (this.#maxAttempts > 0 && failures + 1 >= this.#maxAttempts) return false;
    this.#retries++;
    this.#onRetry?.(key);
    this.addAfter(key, this.backoffFor(failures));
    return true;
  }

  /** isLastAttempt tells whether the next failure of `key` exhausts its `maxAttempts` (never when unlimited). */
  isLastAttempt(key: string): boolean {
    return this.#maxAttempts > 0 && (this.#failures.get(key) ?? 0) + 1 >= this.#maxAttempts;
  }

  /** maxAttempts is the attempt limit of `addRateLimited` (0 = unlimited). */
  get maxAttempts(): number {
    return this.#maxAttempts;
  }

  /** backoffFor is the delay `addRateLimited` uses for a key that has failed `failures` times. */
  backoffFor(failures: number): number {
    // Clamping the exponent keeps the product finite; any such delay is above every cap.
    const delay = this.#initialBackoffMs * this.#multiplier ** Math.min(failures, 60);
    return Math.min(Number.isFinite(delay) ? delay : this.#maxBackoffMs, this.#maxBackoffMs);
  }

  /** forget resets the failure count of a key, so its next retry starts at the initial delay. */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** numRequeues is the number of consecutive failures recorded for a key since its last `forget`. */
  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** len is the number of ready keys (dirty and not being processed). */
  len(): number {
    return this.#lanes.high.size + this.#lanes.normal.size + this.#lanes.low.size;
  }

  /** isProcessing tells whether a worker currently holds `key`. */
  isProcessing(key: string): boolean {
    return this.#processing.has(key);
  }

  /** setMaxDepth changes the drop threshold (0 = unlimited); keys already queued are never evicted. */
  setMaxDepth(maxDepth: number): void {
    this.#maxDepth = normalizeDepth(maxDepth);
  }

  /** maxDepth is the current drop threshold (0 = unlimited). */
  get maxDepth(): number {
    return this.#maxDepth;
  }

  /** shuttingDown tells whether `shutDown` or `shutDownWithDrain` has been called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** stats returns the queue's counters and gauges. */
  stats(): WorkQueueStats {
    return {
      depth: this.len(),
      dirty: this.#dirty.size,
      processing: this.#processing.size,
      delayed: this.#delayed.size,
      requeues: this.#requeues.size,
      adds: this.#adds,
      retries: this.#retries,
      dropped: this.#dropped,
      maxDepth: this.#maxDepth,
    };
  }

  /**
   * shutDown stops accepting adds, cancels pending timers and resolves every waiting `get` with
   * undefined. Keys being processed may still be released with `done`.
   */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const delayed of this.#delayed.values()) this.#clock.clearTimeout(delayed.handle);
    this.#delayed.clear();
    for (const requeue of this.#requeues.values()) this.#clock.clearTimeout(requeue.handle);
    this.#requeues.clear();
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(undefined);
    // Wake ready-listeners so consumers notice the shut-down.
    for (const listener of [...this.#readyListeners]) listener();
    if (this.#processing.size === 0) this.#resolveDrainWaiters();
  }

  /** shutDownWithDrain is `shutDown` whose promise resolves once every processing key is `done`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  #add(key: string, priority: Priority, bypassDepth: boolean): boolean {
    if (this.#shuttingDown) return false;
    const current = this.#dirty.get(key);
    if (current !== undefined) {
      this.#adds++;
      this.#onAdd?.(key);
      if (RANK[priority] > RANK[current]) {
        this.#dirty.set(key, priority);
        if (this.#lanes[current].delete(key)) this.#lanes[priority].add(key);
      }
      return true;
    }
    if (
      !bypassDepth &&
      this.#maxDepth > 0 &&
      !this.#processing.has(key) &&
      (this.#dropPolicy == null
        ? this.#dirty.size >= this.#maxDepth
        : this.#dropPolicy(this.#dirty.size, this.#maxDepth))
    ) {
      this.#dropped++;
      this.#onDrop?.(key);
      return false;
    }
    this.#adds++;
    this.#onAdd?.(key);
    this.#dirty.set(key, priority);
    this.#dirtySince.set(key, this.#clock.now());
    if (!this.#processing.has(key)) this.#makeReady(key, priority);
    return true;
  }

  /** Hands a ready key to the first waiting `get`, or appends it to its lane and notifies listeners. */
  #makeReady(key: string, priority: Priority): void {
    const waiter = this.#waiters.shift();
    if (waiter != null) {
      this.#take(key);
      waiter.resolve(key);
      return;
    }
    this.#lanes[priority].add(key);
    for (const listener of [...this.#readyListeners]) listener();
  }

  #take(key: string): void {
    for (const lane of LANE_ORDER) this.#lanes[lane].delete(key);
    const priority = this.#dirty.get(key) ?? Priority.Normal;
    this.#dirty.delete(key);
    this.#processing.add(key);
    const since = this.#dirtySince.get(key);
    this.#dirtySince.delete(key);
    if (this.#onTake != null && since != null) this.#onTake(key, this.#clock.now() - since, priority);
  }

  #resolveDrainWaiters(): void {
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
  }
}

function first(set: Set<string>): string | undefined {
  for (const value of set) return value;
  return undefined;
}

function normalizeDepth(maxDepth: number): number {
  if (!Number.isFinite(maxDepth) || maxDepth <= 0) return 0;
  return Math.floor(maxDepth);
}
