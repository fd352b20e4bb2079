import type { WorkQueue } from '../work-queue.js';

/**
 * ExhaustedRetries remembers the CRs whose retries ran out (docs/reference/katalog.md §20.1) and the
 * generation that failed. Such a CR is not reconciled again until its generation changes (or it
 * is being deleted), or a watched input changes (`inputChanged`); either restarts its retry
 * budget (`WorkQueue.forget`). A resync or an echo of the runtime's own write does neither.
 */
export class ExhaustedRetries {
  readonly #queue: Pick<WorkQueue, 'forget'>;
  readonly #failedGeneration = new Map<string, unknown>();

  constructor(queue: Pick<WorkQueue, 'forget'>) {
    this.#queue = queue;
  }

  /** exhausted records that `key`'s last attempt failed at `generation`. */
  exhausted(key: string, generation: unknown): void {
    this.#failedGeneration.set(key, generation);
  }

  /**
   * holds tells whether a reconcile of `key` must be skipped: its retries are exhausted and the CR
   * still has the generation that failed and is not being deleted. Otherwise the record is dropped
   * and the budget restarts.
   */
  holds(key: string, generation: unknown, deleting: boolean): boolean {
    if (!this.#failedGeneration.has(key)) return false;
    if (!deleting && this.#failedGeneration.get(key) === generation) return true;
    this.#restart(key);
    return false;
  }

  /** inputChanged restarts `key`'s retries after a watched input (child, watch item, cross target) changed. */
  inputChanged(key: string): void {
    if (this.#failedGeneration.has(key)) this.#restart(key);
  }

  /** forget drops a deleted CR. */
  forget(key: string): void {
    this.#failedGeneration.delete(key);
  }

  #restart(key: string): void {
    this.#failedGeneration.delete(key);
    this.#queue.forget(key);
  }
}
