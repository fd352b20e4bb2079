import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadKatalog, loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { generateHelmValues } from './generate-helm-values.js';
import { generateRbac } from './generate-rbac.js';

const repo = join(import.meta.dirname, '../../../..');

describe('generateHelmValues', () => {
  it('holds the Katalog verbatim, its name and the rules of ork generate rbac (ClusterRole)', () => {
    const file = join(repo, 'examples/website/katalog.yaml');
    const text = readFileSync(file, 'utf8');
    const katalog = loadKatalogOrThrow({ path: file });
    const values = generateHelmValues(katalog, { katalogText: text, namespace: 'ops' });
    expect(values.katalog.inline).toBe(text);
    expect(values.katalogName).toBe('website-operator');
    expect(values.rbac).toEqual({
      clusterScoped: true,
      namespace: '',
      rules: generateRbac(katalog, { namespace: 'ops' }).rules,
      namespaceRoles: [],
    });
  });

  it('asks for a Role in the pinned namespace when every entry is pinned to one', () => {
    const text = [
      'apiVersion: orkestra.konductor.io/v1alpha1',
      'kind: Katalog',
      'metadata: { name: pinned }',
      'spec:',
      '  crds:',
      '    a:',
      '      apiTypes: { group: a.example.com, version: v1, kind: A, plural: as }',
      '      allowedNamespaces: [team-a]',
      '',
    ].join('\n');
    const loaded = loadKatalog({ text });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const values = generateHelmValues(loaded.katalog, { katalogText: text, namespace: 'ops' });
    expect(values.rbac.clusterScoped).toBe(false);
    expect(values.rbac.namespace).toBe('team-a');
  });
});
