import { describe, expect, it } from 'vitest';
import { convergenceChart, lineChart, niceTicks } from './chart.js';
import { fakeRound } from './fixtures.js';
import { sizeDocument } from './size-document.js';

describe('niceTicks', () => {
  it('uses 1-2-5 steps per decade on a log axis and round steps on a linear one', () => {
    expect(niceTicks(100, 10_000, true)).toEqual([100, 200, 500, 1000, 2000, 5000, 10_000]);
    expect(niceTicks(0, 50, false)).toEqual([0, 10, 20, 30, 40, 50]);
  });
});

describe('lineChart', () => {
  it('draws one marker and one range bar per point and a legend entry per series', () => {
    const svg = lineChart({
      title: 't',
      xLabel: 'N',
      yLabel: 'ms',
      series: [
        {
          name: 'a',
          color: '#000',
          points: [
            { x: 100, y: 10, lo: 8, hi: 12 },
            { x: 1000, y: 100, lo: 90, hi: 130 },
          ],
        },
        { name: 'b <floor>', color: '#f00', dashed: true, points: [{ x: 100, y: 5, lo: 5, hi: 5 }] },
      ],
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg.match(/<path /g)).toHaveLength(1);
    expect(svg).toContain('b &lt;floor&gt;');
    expect(svg).toContain('(log scale)');
  });

  it('says so when there is nothing to draw', () => {
    expect(lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [] })).toContain('no data');
  });
});

describe('convergenceChart', () => {
  it('plots the systems that ran, the medians as markers', () => {
    const doc = sizeDocument({
      size: 1000,
      rounds: [fakeRound(1100, 1000, 1000)],
      settings: {},
      environment: {},
    });
    const svg = convergenceChart([doc]);
    expect(svg).toContain('Orkestra: 1.1k [1.1k–1.1k] at N = 1000');
    expect(svg).toContain('full floor');
    expect(svg).not.toContain('kro, default resync');
  });
});
