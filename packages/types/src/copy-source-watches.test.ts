import { describe, expect, it } from 'vitest';
import { copySourceWatches } from './copy-source-watches.js';

const boxWith = (copyFrom: { name: string; namespace?: string }) =>
  ({ operatorBox: { onReconcile: { secrets: [{ copyFrom }] } } }) as unknown as Parameters<
    typeof copySourceWatches
  >[0];

describe('copySourceWatches', () => {
  it('watches a literal source by name, and no source whose name or namespace is a template', () => {
    expect(copySourceWatches(boxWith({ name: 'shared', namespace: 'platform' }))).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: 'platform',
        name: 'shared',
        on: ['create', 'update', 'delete'],
      },
    ]);
    expect(copySourceWatches(boxWith({ name: '{{ .spec.secret }}' }))).toEqual([]);
    expect(copySourceWatches(boxWith({ name: 'shared', namespace: '{{ .spec.from }}' }))).toEqual([]);
  });
});
