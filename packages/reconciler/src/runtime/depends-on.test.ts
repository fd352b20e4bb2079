import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { HEALTHY_MAX_CONSECUTIVE_FAILURES, StartGate, dependencyMet } from './depends-on.js';
import type { DependencyStats, GatedEntry } from './depends-on.js';

const base: DependencyStats = {
  synced: true,
  workersStarted: true,
  objects: 0,
  successes: 0,
  consecutiveFailures: 0,
};

describe('dependencyMet', () => {
  it('started needs a synced cache and running workers', () => {
    expect(dependencyMet('started', base)).toBe(true);
    expect(dependencyMet('started', { ...base, synced: false })).toBe(false);
    expect(dependencyMet('started', { ...base, workersStarted: false })).toBe(false);
  });

  it('healthy needs started, no CRs or a success, and fewer than 5 failures in a row', () => {
    expect(dependencyMet('healthy', base)).toBe(true); // no CRs
    expect(dependencyMet('healthy', { ...base, objects: 2 })).toBe(false); // CRs, no success yet
    expect(dependencyMet('healthy', { ...base, objects: 2, successes: 1 })).toBe(true);
    expect(
      dependencyMet('healthy', {
        ...base,
        objects: 2,
        successes: 1,
        consecutiveFailures: HEALTHY_MAX_CONSECUTIVE_FAILURES,
      }),
    ).toBe(false);
    expect(dependencyMet('healthy', { ...base, workersStarted: false })).toBe(false);
  });
});

interface FakeEntry extends GatedEntry {
  stats: () => DependencyStats;
  current: DependencyStats;
  starts: number;
}

function fakeEntry(
  name: string,
  dependsOn: GatedEntry['dependsOn'],
  stats: Partial<DependencyStats> = {},
): FakeEntry {
  const entry: FakeEntry = {
    name,
    dependsOn,
    current: { ...base, workersStarted: false, ...stats },
    starts: 0,
    stats: () => entry.current,
    start: () => {
      entry.starts++;
      entry.current = { ...entry.current, workersStarted: true };
    },
  };
  return entry;
}

describe('StartGate', () => {
  it('starts a chain of started-dependencies at once', () => {
    const clock = new ManualClock();
    const database = fakeEntry('database', []);
    const api = fakeEntry('api', [{ name: 'database', condition: 'started' }]);
    const web = fakeEntry('web', [{ name: 'api', condition: 'started' }]);
    const gate = new StartGate({ entries: [web, api, database], clock });
    gate.start();
    expect([database.starts, api.starts, web.starts]).toEqual([1, 1, 1]);
    expect(gate.waiting()).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('holds an entry until its dependency is healthy, checking every 5 s without blocking', async () => {
    const clock = new ManualClock();
    const database = fakeEntry('database', [], { objects: 3 });
    const shop = fakeEntry('shop', [{ name: 'database', condition: 'healthy' }]);
    const waitingReports: string[][] = [];
    const gate = new StartGate({
      entries: [database, shop],
      clock,
      onWaiting: (_name, unmet) => waitingReports.push([...unmet]),
    });
    gate.start();
    expect(database.starts).toBe(1);
    expect(shop.starts).toBe(0);
    expect(gate.waiting()).toEqual(['shop']);
    expect(waitingReports).toEqual([['database (healthy)']]);

    clock.advance(4999);
    expect(shop.starts).toBe(0);
    clock.advance(1); // first background check: still no successful reconcile
    expect(shop.starts).toBe(0);

    database.current = { ...database.current, successes: 1 };
    clock.advance(4999);
    expect(shop.starts).toBe(0); // only checked on the 5 s tick
    clock.advance(1);
    expect(shop.starts).toBe(1);
    expect(gate.waiting()).toEqual([]);
    expect(clock.pendingTimers).toBe(0);

    // After start there is no further gating: the dependency failing later changes nothing.
    database.current = { ...database.current, consecutiveFailures: 10 };
    clock.advance(60_000);
    expect(shop.starts).toBe(1);
  });

  it('stop cancels the background check', () => {
    const clock = new ManualClock();
    const database = fakeEntry('database', [], { synced: false });
    const shop = fakeEntry('shop', [{ name: 'database', condition: 'started' }]);
    const gate = new StartGate({ entries: [database, shop], clock });
    gate.start();
    expect(database.starts).toBe(1);
    expect(shop.starts).toBe(0);
    gate.stop();
    database.current = { ...database.current, synced: true };
    clock.advance(10_000);
    expect(shop.starts).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });
});
