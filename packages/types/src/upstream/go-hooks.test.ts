import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { goModuleToNpm } from './upgrader.js';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's Go hooks and constructors (`location`, `function`), written here from upstream's
 * documentation (typed-operators: hooks, constructor): refused at the key with the TypeScript
 * counterpart named; `ork migrate` rewrites them to module hooks (docs/reference/katalog.md §14.5).
 */

const g1Hooks = `${head()}      reconciler:
        hooks:
          location: github.com/myorg/database-operator/hooks
          version: v1.3.0
          fetch: true
          function: DatabaseHooks
          resources:
            - kind: StatefulSet
        onReconcile:
          deployments:
            - name: "{{ .metadata.name }}"
              image: nginx
`;

const g3Constructor = `${head()}      operatorBox:
        reconcile:
          default: false
          workers: 5
          constructor:
            location: github.com/myorg/pipeline-operator/reconciler@v2.0.0
            function: NewPipelineReconciler
            args:
              maxRetries: 3
`;

describe('Go hooks and constructors', () => {
  it('refuses `hooks.location` at its line and column, naming the TypeScript counterpart', () => {
    const result = load(g1Hooks);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = g1Hooks.split('\n').findIndex((l) => l.includes('location:')) + 1;
    expect(result.errors[0]).toMatchObject({
      file: 'katalog.yaml',
      line,
      column: 11,
      path: 'spec.crds.website.reconciler.hooks.location',
    });
    expect(result.errors[0]?.message).toContain('(github.com/myorg/database-operator/hooks)');
    expect(result.errors[0]?.message).toContain(
      '`operatorBox.hooks: [{module: @myorg/database-operator-hooks, function: DatabaseHooks}]`',
    );
    expect(result.errors[0]?.message).toContain('defineHook (@orkestra/provider-kit)');
  });

  it('refuses a G3 constructor at `location` (and default: false with it)', () => {
    const result = load(g3Constructor);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.errors.map((e) => e.path);
    expect(paths).toContain('spec.crds.website.operatorBox.reconcile.constructor.location');
    expect(paths).toContain('spec.crds.website.operatorBox.reconcile.default');
    const atLocation = result.errors.find((e) => e.path.endsWith('constructor.location'));
    expect(atLocation?.message).toContain(
      'the TypeScript counterpart is a module reconciler: an npm package whose export NewPipelineReconciler is made with defineReconciler (@orkestra/provider-kit), named in `operatorBox.remote: {module: @myorg/pipeline-operator-reconciler, function: NewPipelineReconciler, managedResources: [...]}`',
    );
    expect(result.errors.find((e) => e.path.endsWith('.default'))?.message).toContain('defineReconciler');
  });

  it('ork migrate rewrites Go hooks into operatorBox.hooks with a comment, and the result validates', () => {
    const migrated = migrateKatalog(g1Hooks);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).toContain(
      '# ork migrate: github.com/myorg/database-operator/hooks is Go code, which Orkestra does not run. Port DatabaseHooks',
    );
    const box = ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox;
    expect(box?.hooks).toEqual([
      expect.objectContaining({
        name: 'DatabaseHooks',
        module: '@myorg/database-operator-hooks',
        version: '1.3.0',
        function: 'DatabaseHooks',
      }),
    ]);
    expect(box?.onReconcile.deployments).toHaveLength(1);
  });

  it('ork migrate turns a constructor into a module reconciler with managedResources from its `resources`', () => {
    const withResources = g3Constructor.replace(
      '            args:\n',
      '            resources:\n              - statefulsets\n              - kind: Job\n              - services\n            args:\n',
    );
    const migrated = migrateKatalog(withResources);
    expect(migrated.problems).toEqual([]);
    const box = ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox;
    expect(box?.hooks).toEqual([]);
    expect(box?.remote).toMatchObject({
      module: '@myorg/pipeline-operator-reconciler',
      version: '2.0.0',
      function: 'NewPipelineReconciler',
      // remote args are templates (strings), as for an HTTP remote reconciler.
      args: { maxRetries: '3' },
      managedResources: [
        { group: 'apps', plural: 'statefulsets' },
        { group: 'batch', plural: 'jobs' },
        { group: '', plural: 'services' },
      ],
    });
    expect(migrated.text).toContain(
      '# ork migrate: github.com/myorg/pipeline-operator/reconciler@v2.0.0 is Go code, which Orkestra does not run. Port NewPipelineReconciler to TypeScript with defineReconciler',
    );
    expect(migrated.text).toContain('come from the constructor’s `resources`');
    expect(migrated.text).not.toMatch(/default: false|TODO/);
  });

  it('ork migrate derives managedResources from the entry’s declared children when the constructor lists none', () => {
    const withChildren = `${head()}      reconciler:
        default: false
        constructor:
          location: github.com/myorg/reconcilers
          function: NewAppReconciler
        onCreate:
          secrets:
            - name: "{{ .metadata.name }}-creds"
        onReconcile:
          deployments:
            - name: "{{ .metadata.name }}"
              image: nginx
          services:
            - name: "{{ .metadata.name }}"
              port: 80
`;
    const migrated = migrateKatalog(withChildren);
    expect(migrated.problems).toEqual([]);
    const remote = ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox.remote;
    expect(remote?.managedResources).toEqual(
      expect.arrayContaining([
        { group: '', plural: 'secrets' },
        { group: 'apps', plural: 'deployments' },
        { group: '', plural: 'services' },
      ]),
    );
    expect(remote?.managedResources).toHaveLength(3);
    expect(migrated.text).toContain('come from the entry’s declared children');
  });

  it('reads a constructor written straight under the operatorBox (upstream’s documented form) the same way', () => {
    const flat = `${head()}      operatorBox:
        default: false
        constructor:
          location: github.com/myorg/reconcilers
          function: NewAppReconciler
          resources: [deployments]
`;
    const refused = load(flat);
    expect(refused.ok ? [] : refused.errors.map((e) => e.path)).toContain(
      'spec.crds.website.operatorBox.constructor.location',
    );
    const migrated = migrateKatalog(flat);
    expect(migrated.problems).toEqual([]);
    expect(ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox.remote).toMatchObject({
      module: '@myorg/reconcilers',
      function: 'NewAppReconciler',
      managedResources: [{ group: 'apps', plural: 'deployments' }],
    });
  });

  it('ork migrate refuses a constructor whose kinds it cannot know, at a position, saying what to fill', () => {
    const migrated = migrateKatalog(g3Constructor);
    expect(migrated.problems).toHaveLength(1);
    const line =
      g3Constructor.split('\n').findIndex((l) => l.includes('function: NewPipelineReconciler')) + 1;
    expect(migrated.problems[0]).toMatchObject({
      line,
      path: 'spec.crds.website.operatorBox.reconcile.constructor.function',
    });
    expect(migrated.problems[0]?.message).toContain(
      'ork migrate cannot tell which kinds NewPipelineReconciler returns',
    );
    expect(migrated.problems[0]?.message).toContain(
      "list the kinds NewPipelineReconciler creates in the constructor's `resources`",
    );
    const custom = migrateKatalog(
      g3Constructor.replace('            args:\n', '            resources: [Widget]\n            args:\n'),
    );
    expect(custom.problems[0]).toMatchObject({
      path: 'spec.crds.website.operatorBox.reconcile.constructor.resources[0]',
    });
    expect(custom.problems[0]?.message).toContain('`Widget`: it is not a built-in kind');
  });

  it('suggests an npm name for a Go package path', () => {
    expect(goModuleToNpm('github.com/Acme/DB_operator/hooks@v1.0.0')).toBe('@acme/db-operator-hooks');
    expect(goModuleToNpm('example.com/hooks')).toBe('hooks');
  });
});
