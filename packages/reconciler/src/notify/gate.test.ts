import { describe, expect, it } from 'vitest';
import { IntervalGate } from './gate.js';

describe('IntervalGate', () => {
  it('admits a key once per interval, by the injected clock', () => {
    let now = 1_000_000;
    const gate = new IntervalGate({ clock: { now: () => now } });
    expect(gate.admit('k|ops', 60_000)).toBe(true);
    now += 59_999;
    expect(gate.admit('k|ops', 60_000)).toBe(false);
    // Another team (or condition) has its own clock.
    expect(gate.admit('k|sre', 60_000)).toBe(true);
    now += 1;
    expect(gate.admit('k|ops', 60_000)).toBe(true);
    // A refused attempt does not restart the interval.
    now += 30_000;
    expect(gate.admit('k|ops', 60_000)).toBe(false);
    now += 30_000;
    expect(gate.admit('k|ops', 60_000)).toBe(true);
  });

  it('forgets the oldest key past its bound', () => {
    const gate = new IntervalGate({ clock: { now: () => 0 }, maxKeys: 2 });
    expect(gate.admit('a', 1000)).toBe(true);
    expect(gate.admit('b', 1000)).toBe(true);
    expect(gate.admit('c', 1000)).toBe(true);
    expect(gate.admit('a', 1000)).toBe(true);
    expect(gate.admit('c', 1000)).toBe(false);
  });
});
