import { describe, expect, it } from 'vitest';
import { areaOf, summarizeProfile } from './profile-summary.js';

describe('areaOf', () => {
  it('names workspace files, dependencies and Node internals', () => {
    expect(areaOf('file:///w/packages/reconciler/src/cache.ts', 'f')).toBe('@orkestra/reconciler cache.ts');
    expect(areaOf('file:///w/node_modules/.pnpm/yaml@2.8.0/node_modules/yaml/dist/a.js', 'f')).toBe('yaml');
    expect(
      areaOf('file:///w/node_modules/.pnpm/@k+c@1/node_modules/@kubernetes/client-node/dist/a.js', 'f'),
    ).toBe('@kubernetes/client-node');
    expect(areaOf('node:internal/streams', 'f')).toBe('node internals');
    expect(areaOf('', '(garbage collector)')).toBe('(garbage collector)');
  });
});

describe('summarizeProfile', () => {
  it('attributes each interval to the leaf function sampled and ranks by self time', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
    const summary = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('render', 'file:///w/packages/template/src/render.ts') },
        { id: 3, callFrame: frame('(idle)', '') },
      ],
      startTime: 0,
      endTime: 100,
      samples: [2, 2, 3, 2],
      timeDeltas: [0, 10_000, 20_000, 30_000],
    });
    expect(summary.totalMs).toBe(60);
    expect(summary.busyMs).toBe(30);
    expect(summary.functions[0]).toEqual({
      name: 'render @orkestra/template render.ts:10',
      selfMs: 30,
      share: 0.5,
    });
    expect(summary.areas.map((a) => a.name)).toEqual(['@orkestra/template render.ts', '(idle)']);
  });
});
