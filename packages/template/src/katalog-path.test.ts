import { getPath, stringForm as conditionStringForm, typeName as conditionTypeName } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { joinPath, resolveDotPath } from './katalog-path.js';
import { stringForm, typeName } from './string-form.js';

describe('joinPath', () => {
  it('adds keys with a dot, indexes in brackets and quotes keys that are not identifiers', () => {
    expect(joinPath(undefined, 'spec')).toBe('spec');
    expect(joinPath('', 0)).toBe('[0]');
    expect(joinPath('onReconcile.deployments', 0)).toBe('onReconcile.deployments[0]');
    expect(joinPath('onReconcile.deployments[0]', 'replicas')).toBe('onReconcile.deployments[0].replicas');
    expect(joinPath('nodeSelector', 'topology.kubernetes.io/region')).toBe(
      'nodeSelector["topology.kubernetes.io/region"]',
    );
    expect(joinPath('data', 'my-key_1')).toBe('data.my-key_1');
  });
});

describe('resolveDotPath', () => {
  const root = { spec: { ports: [{ port: 80 }], 'a-b': 1 }, list: ['x'] };

  it('resolves paths as conditions do (section 8.4 rule 2)', () => {
    for (const path of [
      'spec.ports.0.port',
      '.spec.a-b',
      'list.0',
      'list.01',
      'list.1',
      'spec.toString',
      '',
    ]) {
      expect(resolveDotPath(root, path), path).toBe(getPath(root, path));
    }
    expect(resolveDotPath(root, 'spec.ports.0.port')).toBe(80);
    expect(resolveDotPath(root, 'list.01')).toBeUndefined();
  });
});

describe('shared value semantics', () => {
  it('renders and compares with the same string form and type names as conditions', () => {
    const values = [undefined, null, 'a', 3, 1.5e21, 1e-7, true, { a: [1] }, []];
    expect(values.map(stringForm)).toEqual(values.map(conditionStringForm));
    expect(values.map(typeName)).toEqual(values.map(conditionTypeName));
  });
});
