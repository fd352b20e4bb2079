/**
 * settled waits for a busy part to go quiet: the new leader holds its own start-up reads back while
 * its sharder relabels a dead shard's CRs (docs/adr/0105-a-new-leader-reads-after-the-relabel.md).
 */

/** SettledOptions bounds the wait. */
export interface SettledOptions {
  /** How long `busy` must read false without a break. */
  readonly quietMs: number;
  /** The longest wait in all. */
  readonly maxMs: number;
  readonly signal?: AbortSignal;
  /** Epoch milliseconds. Default Date.now. */
  readonly now?: () => number;
}

/** settled polls `busy` every 50 ms until it has read false for `quietMs`, at most `maxMs` in all. */
export function settled(busy: () => boolean, o: SettledOptions): Promise<void> {
  const clock = o.now ?? Date.now;
  const start = clock();
  let quietSince = start;
  return new Promise((resolve) => {
    const look = (): void => {
      const now = clock();
      if (busy()) quietSince = now;
      if (o.signal?.aborted === true || now - quietSince >= o.quietMs || now - start >= o.maxMs) {
        resolve();
        return;
      }
      setTimeout(look, 50).unref();
    };
    look();
  });
}
