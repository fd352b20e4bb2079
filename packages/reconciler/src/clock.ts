/**
 * Time for the engine: the real clock for production and a manual clock for tests, so queues,
 * dispatchers, resync and informers never read `Date.now()` or call timers directly.
 */

/** TimerHandle is the opaque value a Clock returns from `setTimeout`, to pass to `clearTimeout`. */
export type TimerHandle = object;

/** Clock gives the current time in milliseconds and one-shot timers. */
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences are meaningful. */
  now(): number;
  /** Runs `callback` once after `delayMs` (negative or zero means "as soon as possible"). */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; cancelling a fired or unknown timer does nothing. */
  clearTimeout(handle: TimerHandle): void;
}

/** MAX_TIMER_DELAY_MS is the longest delay Node's timers accept (2^31 − 1 ms, about 24.8 days). */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

interface SystemTimer {
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * systemClock is the production Clock: `Date.now()` and the global timers. Delays longer than
 * Node accepts (a 90-day rotation, say) are chained in steps of MAX_TIMER_DELAY_MS instead of
 * overflowing into a 1 ms timer.
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (callback: () => void, delayMs: number): TimerHandle => {
    const handle: SystemTimer = { timer: undefined };
    const dueAt = Date.now() + Math.max(0, delayMs);
    const arm = (remainingMs: number): void => {
      if (remainingMs > MAX_TIMER_DELAY_MS) {
        handle.timer = setTimeout(() => arm(dueAt - Date.now()), MAX_TIMER_DELAY_MS);
      } else {
        handle.timer = setTimeout(callback, Math.max(0, remainingMs));
      }
    };
    arm(Math.max(0, delayMs));
    return handle;
  },
  clearTimeout: (handle: TimerHandle): void => {
    const { timer } = handle as SystemTimer;
    if (timer !== undefined) clearTimeout(timer);
  },
});

interface ManualTimer {
  readonly id: number;
  readonly dueAt: number;
  readonly callback: () => void;
}

/**
 * ManualClock is a Clock for tests: time only moves when `advance` or `advanceAsync` is called,
 * and timers fire in due-time order (ties in creation order) with `now()` set to their due time.
 */
export class ManualClock implements Clock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, ManualTimer>();

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, dueAt: this.#now + Math.max(0, delayMs), callback });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id?: unknown }).id;
    if (typeof id === 'number') this.#timers.delete(id);
  }

  /** pendingTimers is the number of timers that have not fired or been cancelled. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** nextDueAt is the due time of the earliest pending timer, or undefined when there is none. */
  get nextDueAt(): number | undefined {
    return this.#earliest()?.dueAt;
  }

  /**
   * advance moves time forward by `ms`, firing every timer due on the way (including timers that
   * fired callbacks schedule within the window). Promise continuations do not run in between; use
   * `advanceAsync` when callbacks resolve promises whose follow-ups matter.
   */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const timer = this.#earliest();
      if (timer == null || timer.dueAt > target) break;
      this.#timers.delete(timer.id);
      this.#now = Math.max(this.#now, timer.dueAt);
      timer.callback();
    }
    this.#now = target;
  }

  /**
   * advanceAsync is `advance` that lets pending promise continuations and I/O callbacks run
   * (one macrotask turn) before time moves and after each fired timer.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.#now + ms;
    await flushMacrotask();
    for (;;) {
      const timer = this.#earliest();
      if (timer == null || timer.dueAt > target) break;
      this.#timers.delete(timer.id);
      this.#now = Math.max(this.#now, timer.dueAt);
      timer.callback();
      await flushMacrotask();
    }
    this.#now = target;
    await flushMacrotask();
  }

  #earliest(): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of this.#timers.values()) {
      if (best == null || timer.dueAt < best.dueAt) best = timer;
    }
    return best;
  }
}

/** flushMacrotask resolves after every already-queued microtask and one macrotask turn have run. */
export function flushMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
