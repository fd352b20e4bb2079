import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { loadKatalog } from '@orkestra/types';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installCrds } from '../../src/process/install-crds.js';
import {
  buildOrk,
  forbiddenLines,
  serviceAccountKubeConfig,
  spawnOrk,
  tempDir,
  uniqueSuffix,
  waitFor,
  websiteKatalog,
} from './ork-process.js';
import type { OrkProcess } from './ork-process.js';
import { createKubeClient } from '@orkestra/registry';

// The whole website scenario through the real binary: `ork run` as a child process, authenticated
// as a ServiceAccount bound only to what `ork generate rbac` produced, with leader election on.

const env = useControlPlane();
const suffix = uniqueSuffix();
const website = websiteKatalog(suffix);
const dir = tempDir();
const katalogFile = join(dir, 'katalog.yaml');
let ork: OrkProcess | undefined;

/** WebsiteView is the part of a Website CR the test reads. */
interface WebsiteView {
  readonly metadata: { readonly generation?: number };
  readonly status?: {
    readonly conditions?: readonly { type: string; status: string; observedGeneration?: number }[];
  } & Record<string, unknown>;
}

function notFound(error: unknown): boolean {
  return (error as { code?: unknown }).code === 404;
}

async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (error) {
    if (notFound(error)) return false;
    throw error;
  }
}

beforeAll(async () => {
  buildOrk();
  writeFileSync(katalogFile, website.text);
  const loaded = loadKatalog({ text: website.text });
  if (!loaded.ok) throw new Error('the derived website Katalog does not load');
  await installCrds(createKubeClient({ kubeConfig: env.kubeConfig }), loaded.katalog); // as admin: the operator's role cannot create CRDs
}, 600_000);

afterAll(async () => {
  if (ork != null && ork.child.exitCode == null) ork.child.kill('SIGKILL');
});

it('runs the website scenario as a least-privilege ServiceAccount with 0 forbidden requests', async () => {
  const ns = env.namespace;
  const { file: kubeconfig } = await serviceAccountKubeConfig(env.kubeConfig, katalogFile, ns, dir);
  ork = spawnOrk([
    'run',
    '--katalog',
    katalogFile,
    '--kubeconfig',
    kubeconfig,
    '--namespace',
    ns,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    // debug also shows failed event writes, so the forbidden scan below sees every refused request
    '--log-level',
    'debug',
  ]);
  const proc = ork;
  await proc.waitForLog('leadership', (l) => l.msg === 'became leader');
  const health = await proc.healthUrl();
  await waitFor('/readyz 200', async () => ((await fetch(`${health}/readyz`)).ok ? true : undefined));
  expect((await fetch(`${health}/healthz`)).status).toBe(200);

  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  const policy = env.kubeConfig.makeApiClient(PolicyV1Api);
  const cr = { group: website.group, version: 'v1alpha1', namespace: ns, plural: 'websites' };
  const readCr = () => custom.getNamespacedCustomObject({ ...cr, name: 'hello' }) as Promise<WebsiteView>;
  // Synced: the reconcile applied everything (no workload controllers here, so Ready stays False on the Deployment).
  const ready = (object: WebsiteView) => object.status?.conditions?.find((c) => c.type === 'Synced');

  // Create.
  await custom.createNamespacedCustomObject({
    ...cr,
    body: {
      apiVersion: `${website.group}/v1alpha1`,
      kind: 'Website',
      metadata: { name: 'hello', namespace: ns },
      spec: { image: 'nginx:1.27', replicas: 2, title: 'Hello', tier: 'gold' },
    },
  });
  const created = await waitFor('Synced=True', async () => {
    const object = await readCr();
    return ready(object)?.status === 'True' &&
      ready(object)?.observedGeneration === object['metadata'].generation
      ? object
      : undefined;
  });
  expect(created.status).toMatchObject({
    phase: 'Pending',
    url: `http://hello.${ns}.svc`,
    replicas: { ready: 0 },
  });
  expect((await core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns })).data).toEqual({
    'index.html': '<h1>Hello</h1>',
    TIER: 'gold',
  });
  expect((await apps.readNamespacedDeployment({ name: 'hello-web', namespace: ns })).spec?.replicas).toBe(2);
  expect(await exists(() => core.readNamespacedService({ name: 'hello', namespace: ns }))).toBe(true);
  expect(
    await exists(() => policy.readNamespacedPodDisruptionBudget({ name: 'hello-pdb', namespace: ns })),
  ).toBe(true);

  // The metrics server: /katalog and /metrics.
  const metrics = await proc.metricsUrl();
  const katalogView = (await (await fetch(`${metrics}/katalog`)).json()) as {
    entries: Record<string, unknown>[];
  };
  expect(katalogView).toMatchObject({ name: website.name, leader: true, ready: true });
  expect(katalogView.entries[0]).toMatchObject({
    name: 'website',
    workers: 3,
    apiTypes: { group: website.group },
  });
  // Cross reads are not on the metrics port (docs/adr/0030): the website Katalog does not opt in.
  expect((await fetch(`${metrics}/katalog/crds/website/objects/${ns}/hello`)).status).toBe(404);
  const exposition = await (await fetch(`${metrics}/metrics`)).text();
  expect(exposition).toContain(`leader_election_master_status{name="orkestra-${website.name}"} 1`);
  expect(exposition).toContain('workqueue_depth{controller="website",name="website"}');

  // Update: more replicas, a tier without a PodDisruptionBudget.
  await custom.patchNamespacedCustomObject(
    { ...cr, name: 'hello', body: { spec: { replicas: 3, tier: 'free' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await waitFor('the Deployment to scale to 3', async () =>
    (await apps.readNamespacedDeployment({ name: 'hello-web', namespace: ns })).spec?.replicas === 3
      ? true
      : undefined,
  );
  await waitFor('the ConfigMap to follow the tier', async () =>
    (await core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns })).data?.['TIER'] === 'free'
      ? true
      : undefined,
  );
  await waitFor('the PodDisruptionBudget to be pruned', async () =>
    (await exists(() => policy.readNamespacedPodDisruptionBudget({ name: 'hello-pdb', namespace: ns })))
      ? undefined
      : true,
  );

  // Drift: an edited ConfigMap and a deleted Service are restored.
  await core.patchNamespacedConfigMap(
    { name: 'hello-content', namespace: ns, body: { data: { TIER: 'edited-by-hand' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await core.deleteNamespacedService({ name: 'hello', namespace: ns });
  await waitFor('the ConfigMap to be restored', async () =>
    (await core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns })).data?.['TIER'] === 'free'
      ? true
      : undefined,
  );
  await waitFor('the Service to be recreated', async () =>
    (await exists(() => core.readNamespacedService({ name: 'hello', namespace: ns }))) ? true : undefined,
  );

  // Hot reload: an invalid Katalog is rejected and the running one stays; a valid change applies.
  writeFileSync(katalogFile, website.text.replace('workers: 3', 'workers: many'));
  await proc.waitForLog('the rejected reload', (l) => String(l.msg).startsWith('katalog reload rejected'));
  expect((await fetch(`${health}/readyz`)).status).toBe(200);
  writeFileSync(
    katalogFile,
    website.text.replace(
      "'<h1>{{ default spec.title metadata.name }}</h1>'",
      "'<h2>{{ default spec.title metadata.name }}</h2>'",
    ),
  );
  await proc.waitForLog('the reload', (l) => l.msg === 'katalog reloaded');
  await waitFor('the ConfigMap to follow the reloaded Katalog', async () =>
    (await core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns })).data?.['index.html'] ===
    '<h2>Hello</h2>'
      ? true
      : undefined,
  );

  // Delete: the finalizer runs and the CR goes; the children carry owner references for the GC.
  const configMap = await core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns });
  expect(configMap.metadata?.ownerReferences?.[0]).toMatchObject({
    kind: 'Website',
    name: 'hello',
    controller: true,
  });
  await custom.deleteNamespacedCustomObject({ ...cr, name: 'hello' });
  await waitFor('the CR to be gone', async () => ((await exists(readCr)) ? undefined : true));
  await waitFor(
    'the children to be garbage-collected',
    async () =>
      (await exists(() => core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns }))) ||
      (await exists(() => apps.readNamespacedDeployment({ name: 'hello-web', namespace: ns })))
        ? undefined
        : true,
    120_000,
  );

  // Graceful shutdown: exit 0, Lease released.
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
  const lease = await env.kubeConfig
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ name: `orkestra-${website.name}`, namespace: ns });
  expect(lease.spec?.holderIdentity ?? '').toBe('');
  expect(proc.logs.some((l) => l.msg === 'leader lease released')).toBe(true);

  // Least privilege held: no request was refused, and every log line is JSON.
  expect(forbiddenLines(proc.logs)).toEqual([]);
  expect(proc.otherStdout).toEqual([]);
  const unexpectedErrors = proc.logs.filter(
    (l) => l.level === 'error' && !String(l.msg).startsWith('katalog reload rejected'),
  );
  expect(unexpectedErrors).toEqual([]);
  expect(proc.logs.every((l) => l['katalog'] === website.name && typeof l['time'] === 'string')).toBe(true);
}, 300_000);
