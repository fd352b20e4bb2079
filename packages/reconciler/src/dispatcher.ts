import { randomUUID } from 'node:crypto';
import { systemClock } from './clock.js';
import type { Clock, TimerHandle } from './clock.js';
import {
  DispatcherStoppedError,
  ReconcileErrorClass,
  ReconcileTimeoutError,
  classifyReconcileError,
  retryAfterMsOf,
} from './reconcile-error.js';
import type { WorkQueue } from './work-queue.js';

/** ReconcileRequest names the object to reconcile: `namespace` is absent for cluster-scoped kinds. */
export interface ReconcileRequest {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * ReconcileResult is what a successful reconcile returns: `requeueAfterMs` asks for a timed
 * re-queue (the earlier of two wins); `requeueMs` is the entry's `requeue` (docs/reference/katalog.md §20.2),
 * which replaces the key's requeue timer and is cancelled by the next event for the key.
 */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
  readonly requeueMs?: number;
}

/** ReconcileContext is passed to every reconcile: its id, its queue key and a signal aborted on timeout or stop. */
export interface ReconcileContext {
  readonly reconcileId: string;
  readonly key: string;
  readonly signal: AbortSignal;
}

/**
 * Reconciler is the controller-runtime contract: read current state, converge, and resolve; throw
 * to retry with backoff, throw a terminal error (`retryable: false`) to stop retrying.
 */
export type Reconciler = (request: ReconcileRequest, ctx: ReconcileContext) => Promise<ReconcileResult>;

/**
 * ReconcileOutcome is how one reconcile ended, matching docs/reference/runtime.md §5.4 plus the two error kinds
 * §6 names: `timeout` (exceeded `reconcileTimeoutMs`) and `panic` (threw something that is not an
 * Orkestra error). Both are retried.
 */
export const ReconcileOutcome = {
  Success: 'success',
  RequeueAfter: 'requeue_after',
  Error: 'error',
  Terminal: 'terminal',
  Timeout: 'timeout',
  Panic: 'panic',
} as const;
export type ReconcileOutcome = (typeof ReconcileOutcome)[keyof typeof ReconcileOutcome];

/** ReconcileReport describes one finished reconcile, for logging and metrics. */
export interface ReconcileReport {
  readonly key: string;
  readonly reconcileId: string;
  readonly outcome: ReconcileOutcome;
  readonly durationMs: number;
  /** The delay of the timed re-queue, for `requeue_after`. */
  readonly requeueAfterMs?: number;
  /** What was thrown, for the error outcomes. */
  readonly error?: unknown;
  /** True when the failure used the key's last attempt: no retry was scheduled (docs/reference/katalog.md §20.1). */
  readonly retriesExhausted?: boolean;
}

/** DispatcherQueue is the part of WorkQueue a Dispatcher uses. */
export type DispatcherQueue = Pick<
  WorkQueue,
  'tryGet' | 'onReady' | 'done' | 'forget' | 'addAfter' | 'addRateLimited' | 'requeueAfter'
>;

/** DispatcherOptions configures a Dispatcher. */
export interface DispatcherOptions {
  /** The queue to take keys from. */
  readonly queue: DispatcherQueue;
  /** The reconcile function. */
  readonly reconcile: Reconciler;
  /** Capacity W, clamped to [1, 50]. Default 1. */
  readonly workers?: number;
  /** A reconcile running longer has its signal aborted and is retried. Default 300 000 ms (5 min). */
  readonly reconcileTimeoutMs?: number;
  /** Default window of `stats().busyRatio`. Default 15 000 ms (the autoscaler's default interval). */
  readonly busyWindowMs?: number;
  /** How much in-flight history is kept for `busyRatio(windowMs)`. Default 300 000 ms. */
  readonly statsHistoryMs?: number;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
  /** Generates reconcile ids. Default `crypto.randomUUID`. */
  readonly newReconcileId?: () => string;
  /** Called after each reconcile's outcome is handled and its key released; exceptions are ignored. */
  readonly onReconciled?: (report: ReconcileReport) => void;
}

/** DispatcherStats are the dispatcher's measurements for metrics and the autoscaler. */
export interface DispatcherStats {
  readonly inFlight: number;
  readonly capacity: number;
  /** Time-weighted in-flight ÷ capacity over the default busy window, in [0, 1]. */
  readonly busyRatio: number;
  /** Finished reconciles by outcome, cumulative. */
  readonly outcomes: Readonly<Record<ReconcileOutcome, number>>;
  /** Finished reconciles, cumulative. */
  readonly finished: number;
  /** Retryable failures (`error`, `timeout`, `panic`), cumulative: the autoscaler's errRate numerator. */
  readonly retryableErrors: number;
  /** Age of the oldest running reconcile in ms, 0 when idle (`workqueue_longest_running_processor_seconds`). */
  readonly longestRunningMs: number;
  /** Summed age of the running reconciles in ms (`workqueue_unfinished_work_seconds`). */
  readonly unfinishedWorkMs: number;
}

/** DispatcherStopResult says how `stop` ended: whether every in-flight reconcile finished in time. */
export interface DispatcherStopResult {
  readonly drained: boolean;
  /** Reconciles whose signal was aborted because the timeout passed first. */
  readonly aborted: number;
}

/** MIN_WORKERS and MAX_WORKERS bound a Dispatcher's capacity (docs/reference/runtime.md §6). */
const MIN_WORKERS = 1;
const MAX_WORKERS = 50;
const RECENT_DURATIONS = 1000;

interface Running {
  readonly key: string;
  readonly controller: AbortController;
  readonly reconcileId: string;
  readonly startedAt: number;
  readonly timer: TimerHandle;
  timedOut: boolean;
}

type Settled = { readonly result: ReconcileResult } | { readonly error: unknown };

interface BusyPoint {
  readonly at: number;
  readonly inFlight: number;
  readonly capacity: number;
}

interface FinishedDuration {
  readonly finishedAt: number;
  readonly durationMs: number;
}

/**
 * Dispatcher runs reconciles for one queue with a resizable capacity W (docs/reference/runtime.md §6). It takes a
 * key only when fewer than W reconciles are in flight, so it never holds a dequeued key while
 * waiting for capacity, and it has no worker loops: each reconcile is a promise, and when it
 * settles its outcome is handled (runtime.md §5.4), `done` is called and the dispatcher looks for more work.
 *
 * A timed-out reconcile has its signal aborted; the key stays held until the reconcile settles, so
 * a key is never reconciled twice at once, and the outcome is `timeout` (retried) however it settles.
 *
 * @example
 * const dispatcher = new Dispatcher({ queue, reconcile, workers: 4 });
 * dispatcher.start();
 * dispatcher.resize(8);
 * await dispatcher.stop({ timeoutMs: 30_000 });
 */
export class Dispatcher {
  readonly #queue: DispatcherQueue;
  readonly #reconcile: Reconciler;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #busyWindowMs: number;
  readonly #historyMs: number;
  readonly #newReconcileId: () => string;
  readonly #onReconciled: ((report: ReconcileReport) => void) | undefined;

  #capacity: number;
  #running = false;
  #pumpScheduled = false;
  #unsubscribe: (() => void) | undefined;
  readonly #inFlight = new Set<Running>();
  readonly #idleWaiters: (() => void)[] = [];
  #busyPoints: BusyPoint[] = [];
  readonly #durations: FinishedDuration[] = [];
  #durationsNext = 0;
  readonly #outcomes: Record<ReconcileOutcome, number> = {
    success: 0,
    requeue_after: 0,
    error: 0,
    terminal: 0,
    timeout: 0,
    panic: 0,
  };

  constructor(options: DispatcherOptions) {
    this.#queue = options.queue;
    this.#reconcile = options.reconcile;
    this.#clock = options.clock ?? systemClock;
    this.#timeoutMs = options.reconcileTimeoutMs ?? 300_000;
    this.#busyWindowMs = options.busyWindowMs ?? 15_000;
    this.#historyMs = Math.max(options.statsHistoryMs ?? 300_000, this.#busyWindowMs);
    this.#newReconcileId = options.newReconcileId ?? randomUUID;
    this.#onReconciled = options.onReconciled;
    this.#capacity = clampWorkers(options.workers ?? 1);
    this.#recordBusy();
  }

  /** start begins taking keys from the queue; calling it again does nothing. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#unsubscribe = this.#queue.onReady(() => this.#schedulePump());
    this.#schedulePump();
  }

  /** capacity is the current W. */
  get capacity(): number {
    return this.#capacity;
  }

  /** inFlight is the number of reconciles running now (it can exceed capacity briefly after a shrink). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * resize sets W to `workers` clamped to [1, 50] and returns the new W. Growing takes effect at
   * once; shrinking never interrupts a running reconcile, new ones start only below the new W.
   */
  resize(workers: number): number {
    const next = clampWorkers(workers);
    if (next === this.#capacity) return next;
    const grew = next > this.#capacity;
    this.#capacity = next;
    this.#recordBusy();
    if (grew) this.#schedulePump();
    return next;
  }

  /**
   * stop stops taking keys, waits up to `timeoutMs` (default 30 000 ms) for in-flight reconciles,
   * then aborts the signals of those still running. Their keys are released when they settle.
   */
  async stop(options: { readonly timeoutMs?: number } = {}): Promise<DispatcherStopResult> {
    this.#running = false;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#inFlight.size === 0) return { drained: true, aborted: 0 };
    const timeoutMs = options.timeoutMs ?? 30_000;
    let timer: TimerHandle | undefined;
    const timedOut = await new Promise<boolean>((resolve) => {
      timer = this.#clock.setTimeout(() => resolve(true), timeoutMs);
      this.#idleWaiters.push(() => resolve(false));
    });
    if (timer != null) this.#clock.clearTimeout(timer);
    if (!timedOut) return { drained: true, aborted: 0 };
    const reason = new DispatcherStoppedError();
    const running = [...this.#inFlight];
    for (const run of running) run.controller.abort(reason);
    return { drained: false, aborted: running.length };
  }

  /** whenIdle resolves once no reconcile is in flight. */
  whenIdle(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** busyRatio is the time-weighted in-flight ÷ capacity over the last `windowMs` (at most the kept history), in [0, 1]. */
  busyRatio(windowMs: number = this.#busyWindowMs): number {
    const now = this.#clock.now();
    const from = now - Math.min(windowMs, this.#historyMs);
    let busy = 0;
    let capacity = 0;
    let end = now;
    for (let i = this.#busyPoints.length - 1; i >= 0 && end > from; i--) {
      const point = this.#busyPoints[i];
      if (point == null) break;
      const start = Math.max(point.at, from);
      const span = end - start;
      if (span > 0) {
        busy += Math.min(point.inFlight, point.capacity) * span;
        capacity += point.capacity * span;
      }
      end = start;
    }
    if (capacity === 0) {
      const last = this.#busyPoints[this.#busyPoints.length - 1];
      return last == null ? 0 : Math.min(1, last.inFlight / last.capacity);
    }
    return busy / capacity;
  }

  /**
   * recentDurations returns the durations (ms) of at most the last 1000 finished reconciles,
   * oldest first, optionally only those finished at or after `sinceMs` (clock time).
   */
  recentDurations(sinceMs?: number): number[] {
    const ordered =
      this.#durations.length < RECENT_DURATIONS
        ? this.#durations
        : [...this.#durations.slice(this.#durationsNext), ...this.#durations.slice(0, this.#durationsNext)];
    return ordered.filter((d) => sinceMs == null || d.finishedAt >= sinceMs).map((d) => d.durationMs);
  }

  /** stats returns the current measurements. */
  stats(): DispatcherStats {
    const o = this.#outcomes;
    const now = this.#clock.now();
    let longestRunningMs = 0;
    let unfinishedWorkMs = 0;
    for (const run of this.#inFlight) {
      const age = now - run.startedAt;
      longestRunningMs = Math.max(longestRunningMs, age);
      unfinishedWorkMs += age;
    }
    return {
      inFlight: this.#inFlight.size,
      capacity: this.#capacity,
      busyRatio: this.busyRatio(),
      outcomes: { ...o },
      finished: o.success + o.requeue_after + o.error + o.terminal + o.timeout + o.panic,
      retryableErrors: o.error + o.timeout + o.panic,
      longestRunningMs,
      unfinishedWorkMs,
    };
  }

  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    queueMicrotask(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running && this.#inFlight.size < this.#capacity) {
      const key = this.#queue.tryGet();
      if (key === undefined) return;
      this.#run(key);
    }
  }

  #run(key: string): void {
    const controller = new AbortController();
    const run: Running = {
      key,
      controller,
      reconcileId: this.#newReconcileId(),
      startedAt: this.#clock.now(),
      timer: this.#clock.setTimeout(() => {
        run.timedOut = true;
        controller.abort(new ReconcileTimeoutError(this.#timeoutMs));
      }, this.#timeoutMs),
      timedOut: false,
    };
    this.#inFlight.add(run);
    this.#recordBusy();
    let promise: Promise<ReconcileResult>;
    try {
      promise = Promise.resolve(
        this.#reconcile(requestFromKey(key), {
          reconcileId: run.reconcileId,
          key,
          signal: controller.signal,
        }),
      );
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.then(
      (result) => this.#finish(run, { result }),
      (error: unknown) => this.#finish(run, { error }),
    );
  }

  #finish(run: Running, settled: Settled): void {
    this.#clock.clearTimeout(run.timer);
    const durationMs = this.#clock.now() - run.startedAt;
    let report: ReconcileReport;
    try {
      report = this.#handleOutcome(run, durationMs, settled);
    } finally {
      // done always follows, whatever happened (runtime.md §5.4).
      this.#queue.done(run.key);
      this.#inFlight.delete(run);
      this.#recordBusy();
    }
    this.#outcomes[report.outcome]++;
    this.#recordDuration(durationMs);
    if (this.#inFlight.size === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    if (this.#onReconciled != null) {
      try {
        this.#onReconciled(report);
      } catch {
        // A reporting hook must not break the dispatcher.
      }
    }
    this.#schedulePump();
  }

  #handleOutcome(run: Running, durationMs: number, settled: Settled): ReconcileReport {
    const { key } = run;
    const base = { key, reconcileId: run.reconcileId, durationMs };
    // The entry's `requeue` follows a success only; a failure is retried on the backoff (katalog.md §20).
    this.#queue.requeueAfter(key, 'error' in settled || run.timedOut ? undefined : settled.result?.requeueMs);
    if (run.timedOut) {
      return {
        ...base,
        outcome: ReconcileOutcome.Timeout,
        error: new ReconcileTimeoutError(this.#timeoutMs),
        ...exhausted(!this.#queue.addRateLimited(key)),
      };
    }
    if (!('error' in settled)) {
      const requeueAfterMs = settled.result?.requeueAfterMs;
      const requeueMs = settled.result?.requeueMs;
      this.#queue.forget(key);
      if (requeueAfterMs != null && requeueAfterMs > 0) {
        this.#queue.addAfter(key, requeueAfterMs);
        return { ...base, outcome: ReconcileOutcome.RequeueAfter, requeueAfterMs };
      }
      if (requeueMs != null && requeueMs > 0)
        return { ...base, outcome: ReconcileOutcome.RequeueAfter, requeueAfterMs: requeueMs };
      return { ...base, outcome: ReconcileOutcome.Success };
    }
    const { error } = settled;
    switch (classifyReconcileError(error)) {
      case ReconcileErrorClass.Terminal:
        this.#queue.forget(key);
        return { ...base, outcome: ReconcileOutcome.Terminal, error };
      case ReconcileErrorClass.Retryable: {
        // A 429 with Retry-After is retried when the server asked, not on the backoff (docs/reference/runtime.md §9.5).
        const retryAfterMs = retryAfterMsOf(error);
        if (retryAfterMs == null)
          return {
            ...base,
            outcome: ReconcileOutcome.Error,
            error,
            ...exhausted(!this.#queue.addRateLimited(key)),
          };
        this.#queue.addAfter(key, retryAfterMs);
        return { ...base, outcome: ReconcileOutcome.Error, error };
      }
      case ReconcileErrorClass.Unexpected:
        return {
          ...base,
          outcome: ReconcileOutcome.Panic,
          error,
          ...exhausted(!this.#queue.addRateLimited(key)),
        };
    }
  }

  #recordDuration(durationMs: number): void {
    const entry = { finishedAt: this.#clock.now(), durationMs };
    if (this.#durations.length < RECENT_DURATIONS) {
      this.#durations.push(entry);
    } else {
      this.#durations[this.#durationsNext] = entry;
      this.#durationsNext = (this.#durationsNext + 1) % RECENT_DURATIONS;
    }
  }

  #recordBusy(): void {
    const now = this.#clock.now();
    const point = { at: now, inFlight: this.#inFlight.size, capacity: this.#capacity };
    const last = this.#busyPoints[this.#busyPoints.length - 1];
    if (last != null && last.at === now) this.#busyPoints[this.#busyPoints.length - 1] = point;
    else this.#busyPoints.push(point);
    // Keep the history bounded: drop points that ended before the history window.
    const cutoff = now - this.#historyMs;
    let drop = 0;
    while (drop + 1 < this.#busyPoints.length && (this.#busyPoints[drop + 1]?.at ?? now) <= cutoff) drop++;
    if (drop > 0) this.#busyPoints = this.#busyPoints.slice(drop);
  }
}

function exhausted(yes: boolean): { retriesExhausted?: true } {
  return yes ? { retriesExhausted: true } : {};
}

/** requestFromKey turns a queue key (`namespace/name` or `name`) into a ReconcileRequest. */
export function requestFromKey(key: string): ReconcileRequest {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function clampWorkers(workers: number): number {
  if (!Number.isFinite(workers)) return MIN_WORKERS;
  return Math.min(MAX_WORKERS, Math.max(MIN_WORKERS, Math.floor(workers)));
}
