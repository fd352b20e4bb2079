import { describe, expect, it } from 'vitest';
import { settled } from './settled.js';

describe('settled', () => {
  it('waits until busy has read false for the quiet period, a busy moment starting it again', async () => {
    // Busy at the first three looks, quiet at the fourth, busy at the fifth and sixth, then quiet.
    let looks = 0;
    let lastBusyAt = 0;
    const busy = (): boolean => {
      looks++;
      const now = looks <= 3 || looks === 5 || looks === 6;
      if (now) lastBusyAt = Date.now();
      return now;
    };
    await settled(busy, { quietMs: 100, maxMs: 5_000 });
    expect(looks).toBeGreaterThan(6);
    expect(Date.now() - lastBusyAt).toBeGreaterThanOrEqual(100);
  });

  it('a quiet part still waits the quiet period (a death noticed a moment later)', async () => {
    const start = Date.now();
    await settled(() => false, { quietMs: 120, maxMs: 5_000 });
    expect(Date.now() - start).toBeGreaterThanOrEqual(120);
  });

  it('gives up after maxMs, and at once on an aborted signal', async () => {
    let start = Date.now();
    await settled(() => true, { quietMs: 100, maxMs: 200 });
    expect(Date.now() - start).toBeGreaterThanOrEqual(200);
    expect(Date.now() - start).toBeLessThan(2_000);
    start = Date.now();
    await settled(() => true, { quietMs: 100, maxMs: 60_000, signal: AbortSignal.abort() });
    expect(Date.now() - start).toBeLessThan(1_000);
  });
});
