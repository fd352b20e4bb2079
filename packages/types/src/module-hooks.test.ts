import { describe, expect, it } from 'vitest';
import { loadKatalog } from './load-katalog.js';
import { katalogSourceOf } from './source.js';

// operatorBox.hooks (docs/reference/katalog.md §14.5): module and export, the version range in one
// place, errors positioned at the key.

const katalog = (hooks: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: demo }
spec:
  crds:
    site:
      apiTypes: { group: demo.example.io, version: v1, kind: Site, plural: sites }
      operatorBox:
        hooks:
${hooks}
`;

const load = (hooks: string) => loadKatalog({ text: katalog(hooks), file: 'katalog.yaml' });

describe('operatorBox.hooks', () => {
  it('splits the range off the module, defaults the name to the export and tags the source', () => {
    const result = load(
      `          - module: "@acme/hooks@^1.2.0"
            function: ensureDns
            args: { zone: example.com }
          - { name: second, module: plain-hooks, version: "1.0.0" }`,
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const [first, second] = result.katalog.spec.crds['site']?.operatorBox.hooks ?? [];
    expect(first).toMatchObject({
      name: 'ensureDns',
      module: '@acme/hooks',
      version: '^1.2.0',
      function: 'ensureDns',
      args: { zone: 'example.com' },
      timeout: '30s',
      continueOnError: false,
    });
    expect(second).toMatchObject({
      name: 'second',
      module: 'plain-hooks',
      version: '1.0.0',
      function: 'default',
    });
    expect(first && katalogSourceOf(first)).toMatchObject({
      file: 'katalog.yaml',
      line: 10,
      katalogPath: 'site.operatorBox.hooks[0]',
    });
  });

  it('positions a Go module path at `module` and names the TypeScript counterpart', () => {
    const result = load(`          - { module: github.com/acme/hooks, function: DatabaseHooks }`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 10, path: 'spec.crds.site.operatorBox.hooks[0].module' });
    expect(result.errors[0]?.message).toContain('defineHook (@orkestra/provider-kit)');
  });

  it('refuses two ranges and two hooks of one name', () => {
    const twice = load(`          - { module: "@acme/hooks@1.2.3", version: "1.2.4", function: a }`);
    expect(twice.ok ? [] : twice.errors.map((e) => e.path)).toEqual([
      'spec.crds.site.operatorBox.hooks[0].version',
    ]);
    const same = load(`          - { module: a, function: f }\n          - { module: b, function: f }`);
    expect(same.ok ? [] : same.errors.map((e) => e.path)).toEqual([
      'spec.crds.site.operatorBox.hooks[1].function',
    ]);
  });
});
