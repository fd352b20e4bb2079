import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine, renderTemplate } from '@orkestra/template';
import { HOOK_MODULE_MARK, RECONCILER_MODULE_MARK, loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { isPending } from '../hooks/hook-unit.js';
import type { HookInput } from '../hooks/hook-unit.js';
import { compileKatalog } from './compile-katalog.js';
import { KatalogHooks } from './katalog-hooks.js';

const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };
const katalog = loadKatalogOrThrow({
  text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    site:
      apiTypes: {group: a.example.com, version: v1, kind: Site, plural: sites}
      operatorBox:
        git: {repo: 'https://example.com/r.git', branch: '{{ spec.branch }}'}
        docker: {image: 'registry.example.com/app:1', workingDirectory: /src}
    plain:
      apiTypes: {group: a.example.com, version: v1, kind: Plain, plural: plains}
    hooked:
      apiTypes: {group: a.example.com, version: v1, kind: Hooked, plural: hookeds}
      operatorBox:
        hooks: [{module: '@acme/dns', function: record}]
    reconciled:
      apiTypes: {group: a.example.com, version: v1, kind: Reconciled, plural: reconcileds}
      operatorBox:
        hooks: [{module: '@acme/dns', function: record}, {module: '@acme/dns', function: cert}]
        remote: {module: '@acme/site', function: reconcile, managedResources: [{group: "", plural: configmaps}]}
    remoteOnly:
      apiTypes: {group: a.example.com, version: v1, kind: RemoteOnly, plural: remoteonlies}
      operatorBox:
        remote: {endpoint: 'http://reconciler.example/reconcile', managedResources: [{group: "", plural: configmaps}]}
`,
});
const crds = compileKatalog(katalog, { engine: createTemplateEngine({ clock }) }).crds;

function services(forgotten: string[]): ConstructorParameters<typeof KatalogHooks>[0] {
  return {
    conditions: { renderTemplate, now: () => new Date(0) },
    external: { runAll: async () => ({ results: {} }) },
    crossHttp: { read: async () => ({ result: {} as never, url: '' }) },
    crossReaders: { record: () => undefined, forget: (id: string) => void forgotten.push(id) },
    lookup: () => undefined,
    git: () => ({
      sync: async (d: { branch: string }) => ({
        called: true,
        commit: 'c1',
        shortCommit: 'c1',
        branch: d.branch,
        dir: '/git/r',
        changed: true,
        error: '',
      }),
    }),
    docker: () => ({ request: (d: { image: string }) => ({ pending: true as const, image: d.image }) }),
  } as ConstructorParameters<typeof KatalogHooks>[0];
}

function input(crd: string, cr: KubeObject): HookInput {
  const compiled = crds.get(crd);
  if (compiled == null) throw new Error(crd);
  return {
    crd: compiled,
    cr,
    context: { spec: cr['spec'] ?? {}, metadata: cr.metadata, git: {}, docker: {} },
    signal: new AbortController().signal,
    logger: {} as never,
    effects: {
      requeueAt: () => undefined,
      annotate: () => undefined,
      recordProviders: () => undefined,
      crossUnavailable: () => undefined,
      writeStatus: () => undefined,
    },
  };
}

describe('KatalogHooks', () => {
  const site: KubeObject = {
    apiVersion: 'a.example.com/v1',
    kind: 'Site',
    metadata: { name: 's', namespace: 'web' },
    spec: { branch: 'dev' },
  };

  it('makes a slot per declared hook with a built-in run step, and none for an entry without hooks', () => {
    const hooks = new KatalogHooks(services([]));
    const site = crds.get('site');
    const plain = crds.get('plain');
    if (site == null || plain == null) throw new Error('entries');
    expect(Object.keys(hooks.hooksFor(site)).sort()).toEqual(['docker', 'git']);
    expect(Object.keys(hooks.hooksFor(plain))).toEqual([]);
  });

  it('remembers what a CR checked out for the poller and forgets it with the CR', async () => {
    const forgotten: string[] = [];
    const hooks = new KatalogHooks(services(forgotten));
    const slots = hooks.hooksFor(crds.get('site') ?? (undefined as never));
    await slots.git?.(input('site', site));
    expect(hooks.gitReadersOf({ repo: 'https://example.com/r.git', branch: 'dev' })).toEqual([
      { crd: 'site', key: 'web/s', repo: 'https://example.com/r.git', branch: 'dev', path: '' },
    ]);
    expect(hooks.gitReadersOf({ repo: 'https://example.com/r.git', branch: 'main' })).toEqual([]);
    hooks.forget('site', 'web/s');
    expect(hooks.gitReadersOf({ repo: 'https://example.com/r.git', branch: 'dev' })).toEqual([]);
    expect(forgotten).toEqual(['site:web/s']);
  });

  it('returns a running docker build as a pending outcome, not a throw', async () => {
    const hooks = new KatalogHooks(services([]));
    const slots = hooks.hooksFor(crds.get('site') ?? (undefined as never));
    const outcome = await slots.docker?.(input('site', site));
    expect(isPending(outcome)).toBe(true);
    expect(outcome).toMatchObject({ reason: 'DockerBuildPending', requeueAfterMs: 60_000 });
  });

  it('gives an entry with module hooks the deletion path’s onDelete slot, which calls the loaded hook (ADR 0099)', async () => {
    const deleted: string[] = [];
    const dns = {
      orkestra: HOOK_MODULE_MARK,
      run: () => undefined,
      onDelete: ({ cr }: { cr: KubeObject }) => void deleted.push(cr.metadata.name ?? ''),
    };
    const hooks = new KatalogHooks({
      ...services([]),
      moduleHook: (module: string, name: string) =>
        `${module}#${name}` === '@acme/dns#record' ? dns : undefined,
    } as ConstructorParameters<typeof KatalogHooks>[0]);
    const hooked = crds.get('hooked');
    if (hooked == null) throw new Error('entry');
    const slots = hooks.hooksFor(hooked);
    expect(Object.keys(slots).sort()).toEqual(['deleteModuleHooks', 'hooks']);
    expect(hooks.hooksFor(crds.get('site') ?? (undefined as never)).deleteModuleHooks).toBeUndefined();
    const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
    await slots.deleteModuleHooks?.({
      ...input('hooked', { ...site, kind: 'Hooked' }),
      logger: silent as never,
    });
    expect(deleted).toEqual(['s']);
  });

  it('runs a module reconciler’s onDelete before the module hooks’, last declared hook first (ADR 0109)', async () => {
    const order: string[] = [];
    const step = (name: string) => () => void order.push(name);
    const exports: Record<string, unknown> = {
      '@acme/dns#record': { orkestra: HOOK_MODULE_MARK, run: () => undefined, onDelete: step('hook record') },
      '@acme/dns#cert': { orkestra: HOOK_MODULE_MARK, run: () => undefined, onDelete: step('hook cert') },
      '@acme/site#reconcile': {
        orkestra: RECONCILER_MODULE_MARK,
        run: () => undefined,
        onDelete: step('reconciler'),
      },
    };
    const hooks = new KatalogHooks({
      ...services([]),
      moduleHook: (module: string, name: string) => exports[`${module}#${name}`],
    } as ConstructorParameters<typeof KatalogHooks>[0]);
    const entry = crds.get('reconciled');
    if (entry == null) throw new Error('entry');
    const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
    await hooks.hooksFor(entry).deleteModuleHooks?.({
      ...input('reconciled', { ...site, kind: 'Reconciled' }),
      logger: silent as never,
    });
    expect(order).toEqual(['reconciler', 'hook cert', 'hook record']);
    // An HTTP reconciler has no deletion step.
    expect(hooks.hooksFor(crds.get('remoteOnly') ?? (undefined as never)).deleteModuleHooks).toBeUndefined();
  });
});
