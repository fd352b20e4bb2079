import { getDefaultEngine } from '@orkestra/template';
import {
  ConditionReason,
  HOOK_MODULE_MARK,
  RECONCILER_MODULE_MARK,
  loadKatalogOrThrow,
} from '@orkestra/types';
import type { KubeObject } from '@orkestra/registry';
import { describe, expect, it } from 'vitest';
import { compileKatalog } from '../../runtime/compile-katalog.js';
import type { HookInput, HookServices } from '../hook-unit.js';
import { moduleHookKey } from '../modules/index.js';
import { remoteHook, runModuleReconcilerDeletion } from './index.js';
import type { RemoteResult } from './index.js';

/** A module reconciler (ADR 0064): `operatorBox.remote` with `module` + `function`, run in process. */
const katalog = loadKatalogOrThrow({
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: demo }
spec:
  crds:
    site:
      apiTypes: { group: demo.example.io, version: v1, kind: Site, plural: sites }
      operatorBox:
        remote:
          module: "@acme/site-reconciler@^1.0.0"
          function: reconcile
          timeout: 100ms
          args: { greeting: "hello {{ .spec.title }}" }
          managedResources: [{ group: "", plural: configmaps }]
`,
  file: 'katalog.yaml',
});
const crd = compileKatalog(katalog).crds.get('site');
if (crd == null) throw new Error('no entry');
const compiled = remoteHook.compile(crd.entry, 'spec.crds.site', getDefaultEngine());
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

const child: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'shop-page', namespace: 'ns' },
  data: { title: 'old' },
};

function services(
  run: (request: never) => unknown,
  mark: string = RECONCILER_MODULE_MARK,
  onDelete?: (request: never) => unknown,
): HookServices {
  const exports: Record<string, unknown> = {
    [moduleHookKey('@acme/site-reconciler', 'reconcile')]: {
      orkestra: mark,
      run,
      ...(onDelete == null ? {} : { onDelete }),
    },
  };
  return {
    moduleHook: (module: string, name: string) => exports[moduleHookKey(module, name)],
    ownedChildren: () => [child],
  } as unknown as HookServices;
}

function input(written: unknown[]): HookInput {
  return {
    crd: crd?.entry,
    cr: {
      apiVersion: 'demo.example.io/v1',
      kind: 'Site',
      metadata: { name: 'shop', namespace: 'ns', uid: 'u1', generation: 2 },
      spec: { title: 'Shop' },
    },
    context: { spec: { title: 'Shop' }, cross: {}, external: {} },
    signal: new AbortController().signal,
    logger: silent,
    effects: { writeStatus: (status: unknown) => written.push(status) },
  } as unknown as HookInput;
}

const run = (s: HookServices, written: unknown[] = []): Promise<RemoteResult> =>
  remoteHook.run(s, undefined, compiled, input(written)) as Promise<RemoteResult>;

describe('a module reconciler (operatorBox.remote module + function)', () => {
  it('loads the reference with its range split off', () => {
    expect(crd.entry.operatorBox.remote).toMatchObject({
      module: '@acme/site-reconciler',
      version: '^1.0.0',
      function: 'reconcile',
    });
  });

  it('gets the frozen CR, rendered args and its children; its resources become children and its status is written', async () => {
    const written: unknown[] = [];
    const seen: Record<string, unknown> = {};
    const result = await run(
      services(
        (request: {
          key: string;
          cr: { spec: unknown };
          args: unknown;
          prepared: { children: Record<string, unknown> };
        }) => {
          Object.assign(seen, {
            key: request.key,
            args: request.args,
            frozen: Object.isFrozen(request.cr.spec),
          });
          seen['children'] = request.prepared.children;
          return {
            resources: [{ type: 'configmap', fields: { name: 'shop-page', data: { title: 'Shop' } } }],
            status: { phase: 'Ready' },
            requeueAfter: 60_000,
          };
        },
      ),
      written,
    );
    expect(seen).toMatchObject({ key: 'ns/shop', args: { greeting: 'hello Shop' }, frozen: true });
    expect(seen['children']).toMatchObject({ configmap: { 'shop-page': { data: { title: 'old' } } } });
    expect(result).toMatchObject({ called: true, result: 'requeue', requeueAfter: '60000ms' });
    expect(result.resources).toEqual([
      {
        listKey: 'configMaps',
        entry: expect.objectContaining({ name: 'shop-page', data: { title: 'Shop' } }),
      },
    ]);
    expect(written).toEqual([{ phase: 'Ready' }]);
    expect(remoteHook.settle(result).requeueAfterMs).toBe(60_000);
  });

  const failures: [string, (request: never) => unknown, RegExp][] = [
    [
      'a thrown error',
      () => {
        throw new Error('database down');
      },
      /module @acme\/site-reconciler#reconcile failed: database down/,
    ],
    ['a timeout', () => new Promise(() => undefined), /timed out after 100ms/],
    ['an unknown result key', () => ({ result: 'ok' }), /unknown key result/],
    [
      'a kind outside managedResources',
      () => ({ resources: [{ type: 'deployment', fields: { name: 'x', image: 'nginx' } }] }),
      /resources\[0\]: apps\/Deployment is not in managedResources \(configmaps\)/,
    ],
    ['a result that is not JSON', () => ({ status: { n: 1n } }), /not JSON/],
  ];
  for (const [what, body, message] of failures)
    it(`turns ${what} into RemoteReconcileFailed, writing nothing`, async () => {
      const written: unknown[] = [];
      const error = await run(services(body), written).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: ConditionReason.RemoteReconcileFailed, message });
      expect(written).toEqual([]);
    });

  it('refuses a hook named as a reconciler', async () => {
    const error = await run(services(() => ({}), HOOK_MODULE_MARK)).catch((e: unknown) => e);
    expect(error).toMatchObject({ message: /not a reconciler: make it with defineReconciler/ });
  });

  describe('its onDelete step (ADR 0109)', () => {
    const remove = (s: HookServices): Promise<void> =>
      runModuleReconcilerDeletion(s, compiled as NonNullable<typeof compiled>, input([]));
    const never = (): never => {
      throw new Error('the run step is not called on the deletion path');
    };

    it('gets the frozen CR, its key and args rendered on the CR, without prepared', async () => {
      const seen: Record<string, unknown>[] = [];
      await remove(
        services(never, RECONCILER_MODULE_MARK, (request: Record<string, unknown>) => {
          seen.push({
            keys: Object.keys(request).sort(),
            key: request['key'],
            args: request['args'],
            frozen: Object.isFrozen((request['cr'] as { spec: unknown }).spec),
          });
        }),
      );
      expect(seen).toEqual([
        {
          keys: ['args', 'cr', 'entry', 'key', 'kube', 'logger', 'signal'],
          key: 'ns/shop',
          args: { greeting: 'hello Shop' },
          frozen: true,
        },
      ]);
    });

    it('has nothing to call for an export without onDelete', async () => {
      await expect(remove(services(never))).resolves.toBeUndefined();
    });

    const deleteFailures: [string, HookServices, RegExp][] = [
      [
        'a thrown error',
        services(never, RECONCILER_MODULE_MARK, () => {
          throw new Error('cdn busy');
        }),
        /spec\.crds\.site\.operatorBox\.remote: remote reconciler module @acme\/site-reconciler#reconcile onDelete failed: cdn busy/,
      ],
      [
        'a timeout',
        services(never, RECONCILER_MODULE_MARK, () => new Promise(() => undefined)),
        /onDelete failed: timed out after 100ms/,
      ],
      [
        'an export that is not loaded',
        { moduleHook: () => undefined } as unknown as HookServices,
        /not loaded/,
      ],
      [
        'a hook named as a reconciler',
        services(never, HOOK_MODULE_MARK, () => undefined),
        /not a reconciler/,
      ],
    ];
    for (const [what, s, message] of deleteFailures)
      it(`turns ${what} into RemoteReconcileFailed`, async () => {
        const error = await remove(s).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: ConditionReason.RemoteReconcileFailed, message });
      });

    it('is recorded, not called, offline', async () => {
      const recorded: string[] = [];
      const offline = {
        ...services(never, RECONCILER_MODULE_MARK, never),
        scriptedReconcilerOnDelete: (name: string) => void recorded.push(name),
      } as HookServices;
      await remove(offline);
      expect(recorded).toEqual(['@acme/site-reconciler#reconcile']);
    });

    it('fails offline as scripted, with the message and reason a module’s own throw gives (ADR 0116)', async () => {
      const offline = {
        ...services(never, RECONCILER_MODULE_MARK, never),
        scriptedReconcilerOnDelete: () => {
          throw new Error('the DNS zone is locked');
        },
      } as HookServices;
      const error = await remove(offline).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: ConditionReason.RemoteReconcileFailed,
        message: expect.stringMatching(
          /remote reconciler module @acme\/site-reconciler#reconcile onDelete failed: the DNS zone is locked$/,
        ) as unknown,
      });
    });
  });
});
