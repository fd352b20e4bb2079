import { describe, expect, it } from 'vitest';
import { RequestCounter } from './request-counter.js';

describe('RequestCounter', () => {
  it('counts by verb and kind and diffs against a snapshot', () => {
    const counter = new RequestCounter();
    counter.record('get', 'Deployment');
    const before = counter.snapshot();
    counter.record('apply', 'Deployment');
    counter.record('apply', 'Deployment');
    expect(counter.since(before)).toEqual({ 'apply Deployment': 2 });
    expect(counter.totalSince(before)).toBe(2);
    expect(counter.total).toBe(3);
    expect(before).toEqual({ 'get Deployment': 1 });
  });
});
