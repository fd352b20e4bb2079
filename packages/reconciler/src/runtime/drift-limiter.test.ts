import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { DRIFT_LIMIT_DEFAULTS, DriftLimiter } from './drift-limiter.js';
import type { DriftDecision } from './drift-limiter.js';

const OWNER = 'uid-1';
const CHILD = 'v1/ConfigMap/ns/shop';

function setup(): { clock: ManualClock; limiter: DriftLimiter } {
  const clock = new ManualClock(1_000_000);
  return { clock, limiter: new DriftLimiter({ clock }) };
}

/** fight admits corrections every `everyMs` until `untilMs` of clock time passed; returns the allowed ones' times. */
function fight(clock: ManualClock, limiter: DriftLimiter, everyMs: number, untilMs: number): number[] {
  const start = clock.now();
  const allowed: number[] = [];
  while (clock.now() - start < untilMs) {
    if (limiter.admit(OWNER, CHILD).allowed) allowed.push(clock.now() - start);
    clock.advance(everyMs);
  }
  return allowed;
}

describe('DriftLimiter', () => {
  it('documents its defaults', () => {
    expect(DRIFT_LIMIT_DEFAULTS).toEqual({
      maxCorrections: 5,
      windowMs: 60_000,
      initialBackoffMs: 1000,
      maxBackoffMs: 300_000,
    });
  });

  it('lets a single correction (a manual edit) through at once', () => {
    const { limiter } = setup();
    expect(limiter.tracks(OWNER, CHILD)).toBe(false);
    expect(limiter.admit(OWNER, CHILD)).toEqual({ allowed: true });
    expect(limiter.tracks(OWNER, CHILD)).toBe(true);
  });

  it('allows maxCorrections within the window, then blocks for 1 s and warns once', () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 5; i++) {
      expect(limiter.admit(OWNER, CHILD).allowed).toBe(true);
      clock.advance(40);
    }
    const blocked = limiter.admit(OWNER, CHILD);
    expect(blocked).toEqual({ allowed: false, retryAt: clock.now() + 1000, episodeStarted: true });
    clock.advance(500);
    // Still blocked, same retry time, no second warning.
    expect(limiter.admit(OWNER, CHILD)).toEqual({
      allowed: false,
      retryAt: clock.now() + 500,
      episodeStarted: false,
    });
  });

  it('backs off exponentially: one correction per expired wait, doubling up to the cap', () => {
    const clock = new ManualClock(0);
    const limiter = new DriftLimiter({
      clock,
      maxCorrections: 2,
      initialBackoffMs: 1000,
      maxBackoffMs: 4000,
    });
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(true);
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(true);
    const waits: number[] = [];
    for (let round = 0; round < 5; round++) {
      const decision: DriftDecision = limiter.admit(OWNER, CHILD);
      if (decision.allowed) throw new Error('expected a block');
      expect(decision.episodeStarted).toBe(round === 0);
      waits.push(decision.retryAt - clock.now());
      clock.advance(decision.retryAt - clock.now());
      expect(limiter.admit(OWNER, CHILD).allowed).toBe(true); // the one correction after the wait
    }
    expect(waits).toEqual([1000, 2000, 4000, 4000, 4000]);
  });

  it('bounds a hot-looping peer far below its rate', () => {
    const { clock, limiter } = setup();
    // A peer reverting every 40 ms (25/s) for 10 s: 5 at once, then one after each wait of 1, 2
    // and 4 s (each wait starts at the peer's next revert); the next wait (8 s) outlasts the fight.
    const allowed = fight(clock, limiter, 40, 10_000);
    expect(allowed).toEqual([0, 40, 80, 120, 160, 1200, 3240, 7280]);
  });

  it('does not count corrections that fell out of the window', () => {
    const { clock, limiter } = setup();
    // 5 corrections, 15 s apart: never more than 5 within 60 s, so never blocked.
    for (let i = 0; i < 10; i++) {
      expect(limiter.admit(OWNER, CHILD).allowed).toBe(true);
      clock.advance(15_000);
    }
  });

  it('ends the episode after a window in sync, and starts afresh', () => {
    const { clock, limiter } = setup();
    fight(clock, limiter, 40, 2000); // into the episode: blocked until 3240
    clock.advance(2000);
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(true); // the wait is over
    limiter.stable(OWNER, CHILD);
    clock.advance(59_999);
    limiter.stable(OWNER, CHILD);
    expect(limiter.tracks(OWNER, CHILD)).toBe(true);
    clock.advance(1);
    limiter.stable(OWNER, CHILD);
    expect(limiter.tracks(OWNER, CHILD)).toBe(false);
    // A new fight gets its 5 immediate corrections again, and a new warning.
    expect(fight(clock, limiter, 40, 200)).toEqual([0, 40, 80, 120, 160]);
    const decision = limiter.admit(OWNER, CHILD);
    expect(decision).toMatchObject({ allowed: false, episodeStarted: true });
  });

  it('stays in the episode while the drift persists through a long wait', () => {
    const clock = new ManualClock(0);
    const limiter = new DriftLimiter({ clock, maxCorrections: 1, windowMs: 1000, initialBackoffMs: 5000 });
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(true);
    expect(limiter.admit(OWNER, CHILD)).toMatchObject({ allowed: false, episodeStarted: true });
    clock.advance(5000); // longer than the window, but the child was never in sync
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(true);
    expect(limiter.admit(OWNER, CHILD)).toMatchObject({
      allowed: false,
      retryAt: 15_000,
      episodeStarted: false,
    });
  });

  it('lifts a block when the child is seen in sync, counting stability from then', () => {
    const clock = new ManualClock(0);
    const limiter = new DriftLimiter({ clock, maxCorrections: 1 });
    limiter.admit(OWNER, CHILD);
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(false);
    clock.advance(100);
    limiter.stable(OWNER, CHILD); // the peer gave up within the wait
    expect(limiter.tracks(OWNER, CHILD)).toBe(true);
    clock.advance(60_000);
    limiter.stable(OWNER, CHILD);
    expect(limiter.tracks(OWNER, CHILD)).toBe(false);
  });

  it('keeps children and owners apart, and forgets them', () => {
    const { limiter } = setup();
    for (let i = 0; i < 5; i++) limiter.admit(OWNER, CHILD);
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(false);
    expect(limiter.admit(OWNER, 'v1/ConfigMap/ns/other').allowed).toBe(true);
    expect(limiter.admit('uid-2', CHILD).allowed).toBe(true);
    expect(limiter.size).toBe(3);
    limiter.forget(OWNER, CHILD);
    expect(limiter.admit(OWNER, CHILD).allowed).toBe(true);
    limiter.forget(OWNER);
    expect(limiter.size).toBe(1);
    expect(limiter.tracks('uid-2', CHILD)).toBe(true);
  });

  it('sweeps records nobody touches any more, so the map stays bounded', () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 100; i++) limiter.admit(`owner-${String(i)}`, CHILD);
    expect(limiter.size).toBe(100);
    clock.advance(60_000);
    limiter.admit(OWNER, CHILD); // any call sweeps, at most once a window
    expect(limiter.size).toBe(1);
  });

  it('keeps a blocked record until a window after its wait, even when idle', () => {
    const clock = new ManualClock(0);
    const limiter = new DriftLimiter({ clock, maxCorrections: 1, windowMs: 1000, initialBackoffMs: 5000 });
    limiter.admit(OWNER, CHILD);
    limiter.admit(OWNER, CHILD); // blocked until 5000
    clock.advance(2000);
    limiter.stable('other', CHILD); // triggers a sweep
    expect(limiter.tracks(OWNER, CHILD)).toBe(true);
    clock.advance(4000);
    limiter.stable('other', CHILD);
    expect(limiter.tracks(OWNER, CHILD)).toBe(false);
  });

  it('rejects thresholds that cannot work', () => {
    const clock = new ManualClock();
    expect(() => new DriftLimiter({ clock, maxCorrections: 0 })).toThrow(RangeError);
    expect(() => new DriftLimiter({ clock, windowMs: 0 })).toThrow(RangeError);
    expect(() => new DriftLimiter({ clock, initialBackoffMs: 10, maxBackoffMs: 5 })).toThrow(RangeError);
  });
});
