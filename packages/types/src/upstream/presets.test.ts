import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import type { LoadKatalogResult } from '../load-katalog.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('resourceQuotas and limitRanges with a profile', () => {
  const base = 'spec.crds.website.operatorBox.onReconcile';
  const onReconcile = (body: string): string => `${head()}      operatorBox:\n        onReconcile:\n${body}`;
  // A refused profile leaves its item without `hard`/`limits`, which the schema reports as well.
  const errors = (result: LoadKatalogResult) =>
    result.ok ? [] : result.errors.filter((e) => e.path.endsWith('.profile'));

  it('expands a built-in ResourceQuota preset (any case) into its hard limits', () => {
    const text = onReconcile(`          resourceQuotas:
            - name: "{{ .metadata.name }}-quota"
              profile: Small
            - name: big
              # sized for the whole team
              profile: xlarge
`);
    const quotas = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile.resourceQuotas ?? [];
    expect(quotas.map((q) => q.hard)).toEqual([
      {
        pods: '10',
        cpu: '2',
        memory: '4Gi',
        'requests.cpu': '1',
        'requests.memory': '2Gi',
        'limits.cpu': '2',
        'limits.memory': '4Gi',
      },
      {
        pods: '100',
        cpu: '16',
        memory: '32Gi',
        'requests.cpu': '8',
        'requests.memory': '16Gi',
        'limits.cpu': '16',
        'limits.memory': '32Gi',
      },
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.text).toContain('hard:');
    expect(migrated.text).not.toContain('profile:');
    expect(migrated.text).toContain('# sized for the whole team\n              hard:');
    expect(
      migrated.changes.filter((c) => c.path.endsWith('.profile')).map((c) => [c.path, c.line, c.message]),
    ).toEqual([
      [`${base}.resourceQuotas[0].profile`, 17, 'the Small preset became its hard limits'],
      [`${base}.resourceQuotas[1].profile`, 20, 'the xlarge preset became its hard limits'],
    ]);
  });

  it('refuses an unknown, a templated or a mixed ResourceQuota profile at the key, naming it', () => {
    const result = load(
      onReconcile(`          resourceQuotas:
            - name: a
              profile: huge
            - name: b
              profile: '{{ .spec.size }}'
            - name: c
              profile: small
              hard: {pods: "3"}
`),
    );
    expect(errors(result).map((e) => [e.line, e.column, e.path])).toEqual([
      [17, 15, `${base}.resourceQuotas[0].profile`],
      [19, 15, `${base}.resourceQuotas[1].profile`],
      [21, 15, `${base}.resourceQuotas[2].profile`],
    ]);
    expect(errors(result)[0]?.message).toContain(
      '`profile: huge` is neither a preset of `profiles.resourceQuotas`',
    );
    expect(errors(result)[0]?.message).toContain('small, medium, large, xlarge');
    expect(errors(result)[1]?.message).toContain('is chosen per CR');
    expect(errors(result)[2]?.message).toContain('beside `hard`');
  });

  it('expands the presets of the profiles registry (before a built-in of the same name) and removes the registry', () => {
    const text = onReconcile(`          resourceQuotas:
            - name: q
              profile: small
          limitRanges:
            - name: lr
              profile: standard
`).replace(
      'spec:\n',
      `profiles:
  resourceQuotas:
    - name: small
      description: our own small
      hard: {pods: "3", cpu: "1"}
  limitRanges:
    - name: standard
      limits:
        - type: Container
          default: {cpu: 500m, memory: 256Mi}
  probes:
    - name: fast
      periodSeconds: 2
spec:
`,
    );
    const result = ok(load(text));
    const group = result.katalog.spec.crds['website']?.operatorBox.onReconcile;
    expect(group?.resourceQuotas[0]?.hard).toEqual({ pods: '3', cpu: '1' });
    expect(group?.limitRanges[0]?.limits).toEqual([
      { type: 'Container', default: { cpu: '500m', memory: '256Mi' } },
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).not.toContain('profiles:');
    expect(migrated.text).not.toContain('profile:');
    expect(migrated.changes.map((c) => c.message)).toContain(
      'removed: probes presets are not read (only resourceQuotas and limitRanges presets are expanded); a `profile:` that names one is refused where it is used',
    );
    const again = ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox.onReconcile;
    expect(again?.limitRanges).toEqual(group?.limitRanges);
    expect(again?.resourceQuotas).toEqual(group?.resourceQuotas);
  });

  it('points an error inside a registry preset at the preset, and refuses profiles.include', () => {
    const text = onReconcile(`          limitRanges:
            - name: lr
              profile: standard
`).replace(
      'spec:\n',
      `profiles:
  include: ./profiles.yaml
  limitRanges:
    - name: standard
      limits:
        - type: Container
          bogus: 1
spec:
`,
    );
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(result.errors.find((e) => e.path === 'profiles.include')).toMatchObject({
      line: line('include:'),
    });
    expect(result.errors.find((e) => e.message.includes('bogus'))).toMatchObject({ line: line('bogus') });
  });

  it('refuses a LimitRange profile (upstream has no built-in presets) at the key, naming it', () => {
    const result = load(
      onReconcile(`          limitRanges:
            - name: lr
              profile: standard
`),
    );
    expect(errors(result).map((e) => [e.line, e.column, e.path])).toEqual([
      [17, 15, `${base}.limitRanges[0].profile`],
    ]);
    expect(errors(result)[0]?.message).toContain(
      '`profile: standard` names no preset of `profiles.limitRanges`',
    );
  });
});

describe('a limitRanges item without limits', () => {
  const onReconcile = (body: string): string => `${head()}      operatorBox:\n        onReconcile:\n${body}`;

  it('becomes a LimitRange with an empty limits list, as upstream makes it', () => {
    const text = onReconcile(`          limitRanges:
            - name: "{{ .metadata.name }}-limits"
              namespace: team
`);
    const group = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile;
    expect(group?.limitRanges.map((l) => [l.name, l.limits])).toEqual([['{{ .metadata.name }}-limits', []]]);
    const migrated = migrateKatalog(text);
    expect(migrated.text).toContain('limits: []');
    expect(migrated.changes.filter((c) => c.path.endsWith('.limits')).map((c) => c.line)).toEqual([16]);
  });

  it('keeps the required key in a native Katalog and leaves a refused profile refused', () => {
    const native = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata:
  name: k
spec:
  crds:
    website:
      apiTypes: {group: example.com, version: v1, kind: Website}
      operatorBox:
        onReconcile:
          limitRanges:
            - name: lr
`;
    const result = load(native);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.message).join('\n')).toContain('limits');
    const profiled = load(
      onReconcile(`          limitRanges:
            - name: lr
              profile: standard
`),
    );
    expect(profiled.ok).toBe(false);
  });
});
