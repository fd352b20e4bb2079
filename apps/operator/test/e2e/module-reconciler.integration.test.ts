import { CoreV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildOrk, tempDir, uniqueSuffix, waitFor } from './ork-process.js';
import { installModulePackage, runOrkWithModules, siteClient, writeSiteKatalog } from './module-package.js';
import type { OrkProcess } from './ork-process.js';

// A module reconciler (docs/reference/katalog.md §15.3, ADR 0064) written outside the workspace —
// its own package.json, the kit a peer — packed and installed with plain npm into a provider
// directory, run by `ork run` (the built binary) on the local control plane: the ConfigMap it
// returns is created as the CR's child, the status it returns is written, and a reconciler that
// throws is a RemoteReconcileFailed condition on its CR, not a crash. Its onDelete step (ADR 0109)
// runs when the CR is deleted, before the finalizer goes and while its child still exists.

const env = useControlPlane();
const suffix = uniqueSuffix();
const group = `recs${suffix}.example.com`;
const work = tempDir();
let ork: OrkProcess | undefined;

beforeAll(async () => {
  buildOrk();
  // The module's own project, outside the workspace, installed into the image's provider directory.
  const modules = await installModulePackage(
    work,
    'site-reconciler',
    `import { defineReconciler } from '@orkestra/provider-kit';
const busy = new Set();
export const reconcile = defineReconciler(
  async ({ cr, args, prepared }) => {
    if (cr.spec.host === 'locked') throw new Error('zone ' + args.zone + ' is locked');
    const name = cr.metadata.name + '-page';
    const seen = prepared.children.configmap?.[name] != null;
    return {
      resources: [{ type: 'configmap', fields: { name, data: { host: cr.spec.host + '.' + args.zone } } }],
      status: { phase: seen ? 'Ready' : 'Creating', page: name },
    };
  },
  {
    // The deletion step (ADR 0109): busy the first time for one CR, to show the finalizer is kept.
    onDelete: async ({ cr, key, args, kube, logger }) => {
      if (cr.spec.host === 'sticky' && !busy.has(cr.metadata.uid)) {
        busy.add(cr.metadata.uid);
        throw new Error('purge of ' + cr.spec.host + ' is busy');
      }
      logger.info({ key, purged: cr.spec.host + '.' + args.zone }, 'site purged');
    },
  },
);
`,
  );

  const katalogFile = writeSiteKatalog({
    work,
    name: `recs-${suffix}`,
    group,
    box: `        remote:
          module: "@acme/site-reconciler@^1.2.0"
          function: reconcile
          args: { zone: example.com }
          managedResources: [{ group: "", plural: configmaps }]
`,
  });
  ork = await runOrkWithModules({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    work,
    katalogFile,
    modules,
    loaded: 'module reconciler loaded',
  });
}, 600_000);

afterAll(() => {
  if (ork != null && ork.child.exitCode == null) ork.child.kill('SIGKILL');
});

it('runs a reconciler installed from outside the workspace: its child is created, its status written, its failure a condition', async () => {
  const loaded = ork?.logs.find((l) => l.msg === 'module reconciler loaded');
  expect(loaded).toMatchObject({ module: '@acme/site-reconciler', version: '1.2.3', export: 'reconcile' });
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const { create, read } = siteClient<{ readonly phase?: string; readonly page?: string }>(
    env.kubeConfig,
    env.namespace,
    group,
  );
  await create('shop', 'shop');
  await create('locked', 'locked');
  const page = await waitFor('ConfigMap shop-page', async () =>
    core.readNamespacedConfigMap({ name: 'shop-page', namespace: env.namespace }).catch(() => undefined),
  );
  expect(page.data).toEqual({ host: 'shop.example.com' });
  expect(page.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Site', name: 'shop' });
  // The child in its prepared children on a later run: the status says Ready.
  const status = await waitFor('status.phase Ready', async () => {
    const s = (await read('shop')).status;
    return s?.phase === 'Ready' ? s : undefined;
  });
  expect(status.page).toBe('shop-page');
  const failed = await waitFor('Ready=False RemoteReconcileFailed', async () =>
    (await read('locked')).status?.conditions?.find(
      (c) => c.type === 'Ready' && c.reason === 'RemoteReconcileFailed',
    ),
  );
  expect(failed.message).toContain(
    'module @acme/site-reconciler#reconcile failed: zone example.com is locked',
  );
  expect(ork?.child.exitCode).toBeNull();
});

it('calls the reconciler’s onDelete before the finalizer is released, keeping it while the step fails', async () => {
  const { create, read, remove } = siteClient<{ readonly phase?: string }>(
    env.kubeConfig,
    env.namespace,
    group,
  );
  await create('sticky', 'sticky');
  await waitFor('status.phase Ready', async () =>
    (await read('sticky')).status?.phase === 'Ready' ? true : undefined,
  );
  await remove('sticky');
  await waitFor('the CR gone', async () =>
    read('sticky').then(
      () => undefined,
      (error: unknown) => ((error as { code?: number }).code === 404 ? true : undefined),
    ),
  );
  const lines = ork?.logs ?? [];
  const failed = lines.findIndex(
    (l) => l.msg === 'remote reconciler module @acme/site-reconciler#reconcile onDelete failed',
  );
  const purged = lines.filter((l) => l.msg === 'site purged');
  expect(failed).toBeGreaterThanOrEqual(0);
  expect(purged).toEqual([
    expect.objectContaining({
      key: `${env.namespace}/sticky`,
      purged: 'sticky.example.com',
      step: 'onDelete',
    }),
  ]);
  expect(lines.indexOf(purged[0] as never)).toBeGreaterThan(failed);
});
