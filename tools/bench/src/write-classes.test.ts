import { describe, expect, it } from 'vitest';
import { classifyWrites, netOfBackground, perEdit, totalWrites } from './write-classes.js';
import { ORKESTRA_RESOURCE } from './workload.js';

const delta = new Map([
  ['APPLY /configmaps', 10],
  ['GET /configmaps', 4],
  ['PATCH bench.orkestra.dev/benchapps/status', 12],
  ['PATCH bench.orkestra.dev/benchapps', 10],
  ['APPLY bench.orkestra.dev/benchapps', 3],
  ['POST /events', 10],
  ['POST /namespaces', 1],
  ['WATCH /configmaps', 5],
]);

describe('classifyWrites', () => {
  it('sorts writes and leaves out the benchmark’s own edits and all reads', () => {
    expect(classifyWrites(delta, ORKESTRA_RESOURCE, 10)).toEqual({
      child: 10,
      status: 12,
      cr: 3,
      events: 10,
      other: 1,
    });
  });
});

describe('netOfBackground', () => {
  it('removes what the idle rate predicts for the window, never below zero', () => {
    const observed = { child: 10, status: 12, cr: 3, events: 10, other: 1 };
    const idle = { child: 0, status: 6, cr: 0, events: 0, other: 4 };
    // The edit window is half as long as the idle window: half of the idle writes are expected.
    expect(netOfBackground(observed, 30_000, idle, 60_000)).toEqual({
      child: 10,
      status: 9,
      cr: 3,
      events: 10,
      other: 0,
    });
  });

  it('changes nothing when the idle window saw no writes', () => {
    const observed = { child: 1, status: 1, cr: 0, events: 1, other: 0 };
    const none = { child: 0, status: 0, cr: 0, events: 0, other: 0 };
    expect(netOfBackground(observed, 10_000, none, 60_000)).toEqual(observed);
  });
});

describe('totalWrites', () => {
  it('adds every class', () => {
    expect(totalWrites({ child: 1, status: 2, cr: 3, events: 4, other: 5 })).toBe(15);
  });
});

describe('perEdit', () => {
  it('divides by the number of edits', () => {
    expect(perEdit({ child: 10, status: 5, cr: 0, events: 10, other: 0 }, 10)).toEqual({
      child: 1,
      status: 0.5,
      cr: 0,
      events: 1,
      other: 0,
    });
  });
});
