import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY_MS, systemClock } from './clock.js';

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('chains delays beyond the 32-bit timer limit instead of firing at once', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const ninetyDays = 90 * 24 * 3600 * 1000;
    systemClock.setTimeout(fired, ninetyDays);
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ninetyDays - MAX_TIMER_DELAY_MS - 1000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('cancels a chained timer in any of its steps', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const handle = systemClock.setTimeout(fired, 2 * MAX_TIMER_DELAY_MS);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS + 10);
    systemClock.clearTimeout(handle);
    vi.advanceTimersByTime(2 * MAX_TIMER_DELAY_MS);
    expect(fired).not.toHaveBeenCalled();
  });

  it('fires short timers after their delay', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    systemClock.setTimeout(fired, 50);
    vi.advanceTimersByTime(49);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });
});
