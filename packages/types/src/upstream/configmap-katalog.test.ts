import { describe, expect, it } from 'vitest';
import { katalogInConfigMap } from './configmap-katalog.js';
import { migrateKatalog } from './migrate.js';
import { loadKatalog } from '../load-katalog.js';

/** A Katalog deployed the upstream way, in a ConfigMap (written here from upstream's docs). */
const configMap = (katalog: string, extra = '') => `# deploy with kubectl apply
apiVersion: v1
kind: ConfigMap
metadata:
  name: website-katalog
  namespace: orkestra
data:
${extra}  katalog.yaml: |
    apiVersion: orkestra.orkspace.io/v1
    kind: Katalog
    metadata:
      name: website
    spec:
      crds:
        website:
          apiTypes: {group: demo.example.io, version: v1, kind: Website, plural: websites}
${katalog}`;

describe('a Katalog in a ConfigMap', () => {
  it('is read in place, with errors at the line and column of the ConfigMap file', () => {
    const ok = loadKatalog({ text: configMap(''), file: 'cm.yaml' });
    expect(ok.ok && Object.keys(ok.katalog.spec.crds)).toEqual(['website']);
    expect(ok.warnings[0]).toMatchObject({
      line: 8,
      column: 3,
      message: expect.stringContaining('data key katalog.yaml of ConfigMap website-katalog'),
    });
    const bad = loadKatalog({ text: configMap('          workers: many\n'), file: 'cm.yaml' });
    expect(bad.ok ? [] : bad.errors.map((e) => [e.line, e.column, e.path])).toEqual([
      [17, 20, 'spec.crds.website.workers'],
    ]);
  });

  it('is migrated to a Katalog file', () => {
    const migrated = migrateKatalog(configMap(''));
    expect(migrated.text.startsWith('apiVersion: orkestra.konductor.io/v1alpha1\nkind: Katalog\n')).toBe(
      true,
    );
    expect(migrated.text).not.toContain('ConfigMap');
    expect(migrated.changes[0]).toMatchObject({ path: 'data.katalog.yaml', line: 8 });
  });

  it('refuses a ConfigMap holding two Katalogs, and a folded block', () => {
    const two = configMap('', '  other.yaml: |\n    kind: Katalog\n');
    expect(katalogInConfigMap(two)).toMatchObject({
      ok: false,
      message: expect.stringContaining('holds 2 Katalogs'),
    });
    const folded = configMap('').replace('katalog.yaml: |', 'katalog.yaml: >');
    expect(katalogInConfigMap(folded)).toMatchObject({
      ok: false,
      message: expect.stringContaining('literal block'),
    });
  });

  it('leaves other files alone', () => {
    expect(katalogInConfigMap('apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n')).toBeUndefined();
    expect(katalogInConfigMap('kind: Katalog\n')).toBeUndefined();
  });
});
