/**
 * The interval gate of team notifications (docs/reference/katalog.md §15.4, ADR 0060): at most one
 * message per key (Katalog, entry, condition and team, upstream's key) per interval. In process
 * only: a restart clears it, as upstream's does. The map is bounded; the oldest key goes first.
 */
import type { Clock } from '../clock.js';

/** IntervalGateOptions configures the gate. */
export interface IntervalGateOptions {
  readonly clock: Pick<Clock, 'now'>;
  /** Keys remembered; the least recently sent is forgotten first. Default 10 000. */
  readonly maxKeys?: number;
}

/** IntervalGate admits a key once per interval. */
export class IntervalGate {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #max: number;
  readonly #last = new Map<string, number>();

  constructor(options: IntervalGateOptions) {
    this.#clock = options.clock;
    this.#max = options.maxKeys ?? 10_000;
  }

  /**
   * admit tells whether a message for `key` may go now and, when it may, records it as sent: the
   * next one is admitted `intervalMs` later at the earliest.
   */
  admit(key: string, intervalMs: number): boolean {
    const now = this.#clock.now();
    const last = this.#last.get(key);
    if (last != null && now - last < intervalMs) return false;
    this.#last.delete(key);
    this.#last.set(key, now);
    if (this.#last.size > this.#max) {
      const oldest = this.#last.keys().next().value;
      if (oldest != null) this.#last.delete(oldest);
    }
    return true;
  }
}
