import { describe, expect, it } from 'vitest';
import { copiesOf, copyKindOf, copySourceWatches } from './copies.js';

type Box = Parameters<typeof copySourceWatches>[0];
const boxWith = (copyFrom: { name: string; namespace?: string }, listKey = 'secrets'): Box =>
  ({ operatorBox: { onReconcile: { [listKey]: [{ copyFrom }] } } }) as unknown as Box;

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

  it('watches the literal source of a ConfigMap copy as a ConfigMap (ADR 0115)', () => {
    expect(copySourceWatches(boxWith({ name: 'base', namespace: 'platform' }, 'configMaps'))).toEqual([
      expect.objectContaining({ kind: 'ConfigMap', namespace: 'platform', name: 'base' }),
    ]);
    expect(copySourceWatches(boxWith({ name: '{{ .spec.base }}' }, 'configMaps'))).toEqual([]);
  });
});

describe('copy kinds', () => {
  it('know Secrets and ConfigMaps by list key and kind, each with its own missing reason', () => {
    expect(copyKindOf('configMaps')).toBe(copyKindOf('ConfigMap'));
    expect(copyKindOf('ConfigMap')?.missing).toBe('SourceConfigMapMissing');
    expect(copyKindOf('Secret')?.missing).toBe('SourceSecretMissing');
    expect(copyKindOf('deployments')).toBeUndefined();
    const group = {
      secrets: [{ copyFrom: { name: 'a' } }, {}],
      configMaps: [{ copyFrom: { name: 'b', namespace: 'p' } }],
    } as unknown as Parameters<typeof copiesOf>[0];
    expect(copiesOf(group).map(({ copy, from }) => [copy.resource, from.name])).toEqual([
      ['secrets', 'a'],
      ['configmaps', 'b'],
    ]);
  });
});
