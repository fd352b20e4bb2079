import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { createKubeClient } from '@orkestra/registry';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyAll, documentsOf } from './apply.js';
import { mustRun } from './tools.js';
import { REPO_ROOT, runOrk } from './run-ork.js';

// What this proves (docs/security.md §2): a Secret the Katalog names in a literal namespace
// (`auth.secretRef.namespace`) is granted by a Role in that namespace only. The RBAC of
// `ork generate rbac`, and the chart rendered with `ork generate helm-values`, are applied for
// real; the operator's own client, authenticated as the ServiceAccount they bind, reads the Secret
// in that namespace and gets 403 for a Secret of the same name in another namespace.

const env = useControlPlane();
const work = mkdtempSync(join(tmpdir(), 'ork-secret-reads-'));
const cleanup: KubernetesObject[] = [];
let vault = '';
let other = '';

function katalogFile(namespace: string): string {
  const file = join(work, 'katalog.yaml');
  writeFileSync(
    file,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: secret-reads }
spec:
  crds:
    quota:
      apiTypes: { group: secretreads.example.com, version: v1, kind: Quota, plural: quotas }
      operatorBox:
        onReconcile: { configMaps: [{}] }
        external:
          - name: check
            url: https://quota.example.com/v1/check
            auth: { secretRef: { name: quota-token, key: token, namespace: ${namespace} } }
`,
  );
  return file;
}

/** clientAs is the operator's kube client (createKubeClient) authenticated as a ServiceAccount of the test namespace. */
async function clientAs(serviceAccount: string): Promise<ReturnType<typeof createKubeClient>> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const answer = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace: env.namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = env.kubeConfig.getCurrentCluster();
  if (cluster == null) throw new Error('no cluster in the test kubeconfig');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ name: serviceAccount, token: answer.status?.token ?? '' }],
    contexts: [{ name: serviceAccount, cluster: cluster.name, user: serviceAccount }],
    currentContext: serviceAccount,
  });
  return createKubeClient({ kubeConfig });
}

/** statusOf is the HTTP status of the operator's GET of the Secret (200 when it reads it). */
async function statusOf(client: ReturnType<typeof createKubeClient>, namespace: string): Promise<number> {
  try {
    await client.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'quota-token' });
    return 200;
  } catch (error) {
    return (error as { status?: number }).status ?? 0;
  }
}

beforeAll(async () => {
  try {
    void env.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test
  }
  vault = `${env.namespace}-vault`;
  other = `${env.namespace}-other`;
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  for (const namespace of [vault, other]) {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    cleanup.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'quota-token' }, stringData: { token: `token-of-${namespace}` } },
    });
  }
});

afterAll(async () => {
  const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  for (const object of cleanup.reverse()) await api.delete(object).catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

/** applyRbac applies the RBAC objects of a manifest stream for real; cluster-scoped ones are removed afterwards. */
async function applyRbac(text: string): Promise<KubernetesObject[]> {
  const objects = documentsOf(text).filter((o) =>
    ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind ?? ''),
  );
  const applied = await applyAll(env.kubeConfig, objects, { dryRun: false });
  cleanup.push(...applied.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding'));
  return objects;
}

/** RBAC is evaluated from an informer cache in the API server: wait until the grant is visible. */
async function eventually(read: () => Promise<number>, want: number): Promise<number> {
  let last = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    last = await read();
    if (last === want) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

describe('a Secret in a namespace the Katalog names literally', () => {
  it('ork generate rbac: the operator reads it there, and gets 403 for the same name in another namespace', async () => {
    const run = await runOrk(['generate', 'rbac', katalogFile(vault), '-n', env.namespace]);
    expect(run.code, run.stderr).toBe(0);
    const objects = await applyRbac(run.stdout);
    const clusterRole = objects.find((o) => o.kind === 'ClusterRole');
    expect(JSON.stringify(clusterRole)).not.toContain('secrets');
    const client = await clientAs('secret-reads');
    expect(await eventually(() => statusOf(client, vault), 200)).toBe(200);
    expect(await statusOf(client, other)).toBe(403);
    expect(await statusOf(client, env.namespace)).toBe(403);
  });

  it('the chart with ork generate helm-values: the same Role in that namespace, and the same 403 elsewhere', async () => {
    const values = await runOrk(['generate', 'helm-values', katalogFile(vault), '-n', env.namespace]);
    expect(values.code, values.stderr).toBe(0);
    const valuesFile = join(work, 'values.yaml');
    writeFileSync(valuesFile, values.stdout);
    const chart = join(REPO_ROOT, 'apps/operator/deploy/helm/orkestra');
    const rendered = await mustRun(
      'helm',
      ['template', 'chart-reads', chart, '--namespace', env.namespace, '-f', valuesFile],
      {
        env: {
          HELM_CACHE_HOME: join(work, 'cache'),
          HELM_CONFIG_HOME: join(work, 'config'),
          HELM_DATA_HOME: join(work, 'data'),
        },
      },
    );
    const objects = await applyRbac(rendered);
    const reads = objects.filter((o) => o.metadata?.name === 'orkestra:chart-reads:reads');
    expect(reads.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}`)).toEqual([
      `Role/${vault}`,
      `RoleBinding/${vault}`,
    ]);
    const serviceAccount = objects.find((o) => o.kind === 'ServiceAccount')?.metadata?.name ?? '';
    const client = await clientAs(serviceAccount);
    expect(await eventually(() => statusOf(client, vault), 200)).toBe(200);
    expect(await statusOf(client, other)).toBe(403);
  });
});
