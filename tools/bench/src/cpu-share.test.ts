import { describe, expect, it } from 'vitest';
import { cpuShare, parseProcStat } from './cpu-share.js';

describe('cpuShare', () => {
  it('splits the window into busy, reniced and idle time from the aggregate cpu line', () => {
    const start = parseProcStat('cpu  100 50 100 700 50 0 0 0 0 0\ncpu0 1 1 1 1 1 0 0 0 0 0\n');
    const end = parseProcStat('cpu  400 150 200 1100 150 0 0 0 0 0\n');
    // busy 300 + 100 = 400, niced 100, idle 400 + 100 = 500 of 1000.
    expect(cpuShare(start, end)).toEqual({ busy: 0.4, niced: 0.1, idle: 0.5 });
  });

  it('says nothing without both readings or without elapsed time', () => {
    const a = parseProcStat('cpu  1 2 3 4 5 6 7 8 0 0');
    expect(parseProcStat('intr 1 2 3')).toBeNull();
    expect(cpuShare(null, a)).toBeNull();
    expect(cpuShare(a, a)).toBeNull();
  });
});
