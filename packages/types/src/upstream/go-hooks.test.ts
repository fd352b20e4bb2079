import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { migrateKatalog } from './migrate.js';
import { goModuleToNpm } from './go-hooks.js';
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

/** inrun's form: `hooks` under `operatorBox.reconcile` with `alias`, `runHooksFirst` and `managedResources` of `{kind}`. */
const inrunHooks = `${head()}      operatorBox:
        reconcile:
          default: true
          hooks:
            location: github.com/myorg/webapp/hooks
            function: WebAppHooks
            alias: webhooks
            runHooksFirst: true
            managedResources:
              - kind: Deployment
              - kind: Service
          onCreate:
            deployments:
              - name: "{{ .metadata.name }}"
                image: nginx
`;
const INRUN_KINDS = [
  { group: 'apps', plural: 'deployments' },
  { group: '', plural: 'services' },
];

/** G2's documented constructor: `managedResources` items with `kind`, `group`, `version`, `plural`. */
const g2Constructor = `${head()}      operatorBox:
        reconciler:
          default: false
          constructor:
            location: github.com/myorg/pipeline/reconciler
            function: NewPipelineReconciler
            managedResources:
              - kind: Job
                group: batch
                version: v1
                plural: jobs
              - kind: Build
                group: ci.example.io
                version: v1beta1
                plural: builds
`;
const G2_KINDS = [
  { group: 'batch', plural: 'jobs' },
  { group: 'ci.example.io', version: 'v1beta1', kind: 'Build', plural: 'builds' },
];

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
      "`operatorBox.hooks: [{module: '@myorg/database-operator-hooks', function: DatabaseHooks}]`",
    );
    expect(result.errors[0]?.message).toContain('defineHook (@orkestra/provider-kit)');
  });

  it('refuses a G3 constructor once, at `location`; `default: false` beside it is not a second refusal', () => {
    const result = load(g3Constructor);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.errors.map((e) => e.path);
    expect(paths).toContain('spec.crds.website.operatorBox.reconcile.constructor.location');
    expect(paths).not.toContain('spec.crds.website.operatorBox.reconcile.default');
    const atLocation = result.errors.find((e) => e.path.endsWith('constructor.location'));
    expect(atLocation?.message).toContain(
      "the TypeScript counterpart is a module reconciler (a constructor owns the loop): an npm package whose export NewPipelineReconciler is made with defineReconciler (@orkestra/provider-kit), named in `operatorBox.remote: {module: '@myorg/pipeline-operator-reconciler', function: NewPipelineReconciler, managedResources: [{group: apps, plural: deployments}]}`",
    );
    expect(atLocation?.message).toContain('this one is an example');
    expect(atLocation?.message).toContain('dropping `default: false` with it');
    // Without a constructor, `default: false` is still refused on its own.
    const alone = load(g3Constructor.replace(/ {10}constructor:\n(?: {12}.*\n)+/, ''));
    expect(alone.ok ? [] : alone.errors.map((e) => e.path)).toContain(
      'spec.crds.website.operatorBox.reconcile.default',
    );
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
    // `fetch` has no place in a module reference: a change line says so; `version` is the pin.
    expect(migrated.changes.map((c) => `${c.path}: ${c.message}`)).toContain(
      'spec.crds.website.reconciler.hooks.fetch: removed: Go fetches the package at build time; the npm package is installed in the provider directory',
    );
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
      '# ork migrate: github.com/myorg/pipeline-operator/reconciler@v2.0.0 is Go code (a constructor block), which Orkestra does not run. Port NewPipelineReconciler to TypeScript with defineReconciler',
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
      "list the kinds NewPipelineReconciler creates in the constructor's `managedResources`",
    );
    const custom = migrateKatalog(
      g3Constructor.replace('            args:\n', '            resources: [Widget]\n            args:\n'),
    );
    expect(custom.problems[0]).toMatchObject({
      path: 'spec.crds.website.operatorBox.reconcile.constructor.resources[0]',
    });
    expect(custom.problems[0]?.message).toContain('`Widget`: it is not a built-in kind');
  });

  // Every reference a refusal names must work when pasted under `operatorBox` of a canonical Katalog.
  const hinted: readonly { name: string; text: string; kinds?: readonly object[] }[] = [
    { name: 'G1 hooks (a module hook)', text: g1Hooks },
    {
      name: 'G1 hooks with `resources` (a module reconciler)',
      text: g1Hooks.replace(
        '          function: DatabaseHooks\n',
        '          function: DatabaseHooks\n          resources:\n            - kind: StatefulSet\n',
      ),
      kinds: [{ group: 'apps', plural: 'statefulsets' }],
    },
    { name: 'G3 inrun hooks with managedResources and alias', text: inrunHooks, kinds: INRUN_KINDS },
    {
      name: 'G3 constructor without kinds (an example)',
      text: g3Constructor,
      kinds: [{ group: 'apps', plural: 'deployments' }],
    },
    { name: 'G2 constructor with upstream’s full managedResources', text: g2Constructor, kinds: G2_KINDS },
  ];

  it.each(hinted)('the reference in the refusal of $name parses, loads and validates', ({ text, kinds }) => {
    const refused = load(text);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    const hint = refused.errors
      .map((e) => /`operatorBox\.(hooks|remote): (.+?)`/.exec(e.message))
      .find((m) => m != null);
    expect(hint).toBeDefined();
    if (hint == null) return;
    const pasted = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata:
  name: demo
spec:
  crds:
    website:
      apiTypes: { group: demo.example.io, version: v1alpha1, kind: Website, plural: websites }
      operatorBox:
        ${hint[1]}: ${hint[2]}
`;
    const box = ok(loadKatalog({ text: pasted, file: 'pasted.yaml' })).katalog.spec.crds['website']
      ?.operatorBox;
    if (hint[1] === 'hooks') expect(box?.hooks).toHaveLength(1);
    else expect(box?.remote?.managedResources).toEqual(kinds);
  });

  it('ork migrate turns a Go hook that lists managedResources into a module reconciler, with a change line for every key it drops', () => {
    const migrated = migrateKatalog(inrunHooks);
    expect(migrated.problems).toEqual([]);
    const box = ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox;
    expect(box?.hooks).toEqual([]);
    expect(box?.remote).toMatchObject({
      module: '@myorg/webapp-hooks',
      function: 'WebAppHooks',
      managedResources: INRUN_KINDS,
    });
    expect(box?.onCreate.deployments).toHaveLength(1);
    expect(migrated.text).toContain('Port WebAppHooks to TypeScript with defineReconciler');
    const lines = migrated.changes.map((c) => `${c.line}:${c.column} ${c.path}: ${c.message}`);
    const lineOf = (needle: string): number =>
      inrunHooks.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(lines).toContain(
      `${lineOf('hooks:')}:11 spec.crds.website.operatorBox.reconcile.hooks: Go hooks rewritten to the module reconciler @myorg/webapp-hooks#WebAppHooks (operatorBox.remote, managedResources from the hooks block’s \`managedResources\`: a module hook cannot write to the cluster); publish its TypeScript port`,
    );
    expect(lines).toContain(
      `${lineOf('alias:')}:13 spec.crds.website.operatorBox.reconcile.hooks.alias: removed: the Go import alias of the package; a module is imported by its npm name`,
    );
    expect(lines).toContain(
      `${lineOf('runHooksFirst:')}:13 spec.crds.website.operatorBox.reconcile.hooks.runHooksFirst: removed: module hooks and a module reconciler already run at step 12, before the declared children are applied`,
    );
  });

  it('ork migrate reads a constructor’s `managedResources` in both of upstream’s forms', () => {
    const migrated = migrateKatalog(g2Constructor);
    expect(migrated.problems).toEqual([]);
    expect(ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox.remote).toMatchObject({
      module: '@myorg/pipeline-reconciler',
      managedResources: G2_KINDS,
    });
    expect(migrated.changes.map((c) => c.message)).toContain(
      'removed: the Go constructor becomes a module reconciler (operatorBox.remote)',
    );
    const kindsOnly = migrateKatalog(
      g3Constructor.replace(
        '            args:\n',
        '            managedResources:\n              - kind: Deployment\n              - kind: Service\n            args:\n',
      ),
    );
    expect(kindsOnly.problems).toEqual([]);
    expect(
      ok(load(kindsOnly.text)).katalog.spec.crds['website']?.operatorBox.remote?.managedResources,
    ).toEqual(INRUN_KINDS);
  });

  it('ork migrate writes Kubernetes’ own kinds outside the kind table with all four fields', () => {
    const migrated = migrateKatalog(
      g3Constructor.replace(
        '            args:\n',
        '            managedResources:\n              - kind: ClusterRole\n              - kind: Job\n            args:\n',
      ),
    );
    expect(migrated.problems).toEqual([]);
    expect(
      ok(load(migrated.text)).katalog.spec.crds['website']?.operatorBox.remote?.managedResources,
    ).toEqual([
      { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles' },
      { group: 'batch', plural: 'jobs' },
    ]);
  });

  it('ork migrate refuses a Go hook that writes when the entry already has a remote reconciler', () => {
    const both = migrateKatalog(
      inrunHooks.replace(
        '        reconcile:\n',
        '        remote:\n          endpoint: http://reconciler.apps.svc/reconcile\n        reconcile:\n',
      ),
    );
    expect(both.problems.map((p) => p.path)).toEqual(['spec.crds.website.operatorBox.reconcile.hooks']);
    expect(both.problems[0]?.message).toContain('port the Go hooks to a module reconciler, not both');
  });

  it('suggests an npm name for a Go package path', () => {
    expect(goModuleToNpm('github.com/Acme/DB_operator/hooks@v1.0.0')).toBe('@acme/db-operator-hooks');
    expect(goModuleToNpm('example.com/hooks')).toBe('hooks');
  });
});
