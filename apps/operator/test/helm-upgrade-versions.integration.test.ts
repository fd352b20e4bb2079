import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { V1Deployment } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentsOf } from './apply.js';
import { buildOrk, spawnOrk, tempDir, tokenKubeConfig, uniqueSuffix, waitFor } from './e2e/ork-process.js';
import type { OrkProcess } from './e2e/ork-process.js';
import { kubeRequest } from './kube-raw.js';
import { REPO_ROOT, runOrk } from './run-ork.js';
import { mustRun, writeKubeconfig } from './tools.js';

// `helm upgrade` from a Katalog whose entry serves one version to one that serves two, done as a
// user does it (docs/reference/runtime.md §26, docs/reference/katalog.md §3.4, ADR 0056, ADR 0057):
// `ork generate crd … | kubectl apply` (the CRDs are not part of the chart), then `helm install` /
// `helm upgrade` with `ork generate helm-values` values, real Helm and kubectl (tools/testenv/build.sh).
// Every CR created at v1alpha1 survives: it reads at both versions as the conversion rules say,
// the stored objects are rewritten so `status.storedVersions` ends at [v1], and the children follow
// a spec change made through v1.
//
// The operator runs as a local process, not in a pod: there is no kubelet here (and no kube-proxy, so
// the API server cannot reach a Service's ClusterIP). Each "pod" is `ork run` with the arguments and
// environment of the Deployment Helm installed, the Katalog read back from the chart's ConfigMap,
// credentials from a token of the chart's ServiceAccount (so the chart's RBAC is what it has), and
// two substitutions: ports on 127.0.0.1, and the webhook Service replaced by the https URL of the
// process's endpoint (the CRDs are generated with `--webhook-service` at that URL). `helm upgrade`
// changes the pod template (the webhook is enabled), so the old "pod" stops and a new one starts, as
// a Deployment rollout does. The image itself, installed by Helm, is test/image/install.integration.test.ts.

const env = useControlPlane();
const suffix = uniqueSuffix();
const group = `hu${suffix}.example.com`;
const katalogName = `widgets-${suffix}`;
const release = `up-${suffix}`;
const chartDir = join(REPO_ROOT, 'apps/operator/deploy/helm/orkestra');
const dir = tempDir();
const kubeconfig = join(dir, 'admin.kubeconfig');
const names = ['w1', 'w2', 'w3', 'w4'];
let operator: OrkProcess | undefined;
let webhookPort = 0;

const SCHEMA_V1ALPHA1 = `
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    size: { type: integer }
                    colour: { type: string }
                status: { type: object, x-kubernetes-preserve-unknown-fields: true }`;

/** The first release: one version, v1alpha1. */
const KATALOG_ONE = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: ${katalogName}, version: 1.0.0 }
spec:
  crds:
    widget:
      apiTypes: { group: ${group}, version: v1alpha1, kind: Widget, plural: widgets }
      schema:${SCHEMA_V1ALPHA1.replaceAll('\n    ', '\n')}
      operatorBox:
        onReconcile:
          configMaps:
            - name: '{{ metadata.name }}-widget'
              data:
                size: '{{ spec.size }}'
                colour: '{{ spec.colour }}'
`;

/** The second release: v1alpha1 and v1 (storage), converted by declarative rules. */
const KATALOG_TWO = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: ${katalogName}, version: 2.0.0 }
spec:
  crds:
    widget:
      apiTypes: { group: ${group}, version: v1, kind: Widget, plural: widgets }
      versions:
        - name: v1alpha1
          schema:${SCHEMA_V1ALPHA1}
        - name: v1
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    replicas: { type: integer }
                    color: { type: string }
                    tier: { type: string }
                status: { type: object, x-kubernetes-preserve-unknown-fields: true }
      conversion:
        storageVersion: v1
        paths:
          - from: v1alpha1
            to: v1
            rules:
              - rename: { from: spec.size, to: spec.replicas }
              - rename: { from: spec.colour, to: spec.color }
              - default: { field: spec.tier, value: standard }
      operatorBox:
        onReconcile:
          configMaps:
            - name: '{{ metadata.name }}-widget'
              data:
                size: '{{ spec.replicas }}'
                colour: '{{ spec.color }}'
                tier: '{{ spec.tier }}'
`;

const helmEnv = {
  HELM_CACHE_HOME: join(dir, 'helm/cache'),
  HELM_CONFIG_HOME: join(dir, 'helm/config'),
  HELM_DATA_HOME: join(dir, 'helm/data'),
};
const helm = (...args: string[]) =>
  mustRun('helm', [...args, '--kubeconfig', kubeconfig, '--namespace', env.namespace], {
    timeoutMs: 180_000,
    env: helmEnv,
  });

async function ork(args: string[], file: string): Promise<string> {
  const run = await runOrk(args);
  if (run.code !== 0) throw new Error(`ork ${args.join(' ')} failed: ${run.stderr}`);
  const out = join(dir, file);
  writeFileSync(out, run.stdout);
  return out;
}

/** release installs or upgrades the chart with the Katalog's CRDs and values, as the chart README says. */
async function helmRelease(verb: 'install' | 'upgrade', text: string, tag: string): Promise<void> {
  const katalogFile = join(dir, `${tag}.katalog.yaml`);
  writeFileSync(katalogFile, text);
  const crds = await ork(
    [
      'generate',
      'crd',
      katalogFile,
      '-n',
      env.namespace,
      '--webhook-service',
      `https://127.0.0.1:${webhookPort}`,
    ],
    `${tag}.crds.yaml`,
  );
  await mustRun('kubectl', ['apply', '--server-side', '-f', crds, '--kubeconfig', kubeconfig]);
  const values = await ork(
    ['generate', 'helm-values', katalogFile, '-n', env.namespace],
    `${tag}.values.yaml`,
  );
  await helm(verb, release, chartDir, '-f', values, '--set', 'replicaCount=1');
}

/** serviceAccountKubeconfig: a token of the chart's ServiceAccount, and nothing else. */
function serviceAccountKubeconfig(serviceAccount: string): Promise<string> {
  return tokenKubeConfig(env.kubeConfig, serviceAccount, env.namespace, dir);
}

/** startPod runs the release's Deployment as a local `ork run` (see the header for what is substituted). */
async function startPod(tag: string): Promise<OrkProcess> {
  const manifest = documentsOf(await helm('get', 'manifest', release));
  const deployment = manifest.find((o) => o.kind === 'Deployment') as V1Deployment | undefined;
  const pod = deployment?.spec?.template.spec;
  const container = pod?.containers[0];
  if (pod == null || container == null) throw new Error('the release has no Deployment');
  const configMapName = pod.volumes?.find((v) => v.configMap != null)?.configMap?.name ?? '';
  const configMap = await env.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNamespacedConfigMap({ name: configMapName, namespace: env.namespace });
  const katalogFile = join(dir, `${tag}.mounted.katalog.yaml`);
  const args = (container.args ?? []).map((arg) => {
    const [flag] = arg.split('=');
    switch (flag) {
      case '--katalog': {
        const key = arg.slice(arg.lastIndexOf('/') + 1);
        writeFileSync(katalogFile, configMap.data?.[key] ?? '');
        return `--katalog=${katalogFile}`;
      }
      case '--metrics-bind-address':
      case '--health-probe-bind-address':
        return `${String(flag)}=127.0.0.1:0`;
      case '--webhook-bind-address':
        return arg === '--webhook-bind-address=0' ? arg : `${flag}=127.0.0.1:${webhookPort}`;
      case '--webhook-service':
        return `${flag}=https://127.0.0.1:${webhookPort}`;
      default:
        return arg;
    }
  });
  const podEnv: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace')
      podEnv[variable.name] = env.namespace;
    else if (variable.value != null) podEnv[variable.name] = variable.value;
  }
  const credentials = await serviceAccountKubeconfig(pod.serviceAccountName ?? 'default');
  return spawnOrk([...args, '--kubeconfig', credentials, '--work-dir', join(dir, `work-${tag}`)], podEnv);
}

async function stopPod(): Promise<void> {
  if (operator == null || operator.child.exitCode != null) return;
  operator.child.kill('SIGTERM');
  await operator.exited;
}

const path = (version: string, name = ''): string =>
  `/apis/${group}/${version}/namespaces/${env.namespace}/widgets${name === '' ? '' : `/${name}`}`;
const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`;

async function childData(name: string): Promise<Record<string, string> | undefined> {
  const child = await kubeRequest(
    env.kubeConfig,
    'GET',
    `/api/v1/namespaces/${env.namespace}/configmaps/${name}-widget`,
  );
  return child.status === 200 ? (child.body['data'] as Record<string, string>) : undefined;
}

const spec = (i: number) => ({ size: i + 1, colour: ['red', 'green', 'blue', 'amber'][i] ?? 'grey' });

beforeAll(() => {
  buildOrk();
  writeKubeconfig(env.kubeConfig, kubeconfig);
  webhookPort = Number(
    execFileSync(process.execPath, [
      '-e',
      "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
    ])
      .toString()
      .trim(),
  );
}, 600_000);

afterAll(async () => {
  await stopPod();
  await kubeRequest(env.kubeConfig, 'DELETE', crdPath).catch(() => undefined);
});

describe('helm upgrade from a one-version Katalog to a two-version one', () => {
  it('installs the chart with v1alpha1 only; the operator reconciles the CRs', async () => {
    await helmRelease('install', KATALOG_ONE, 'one');
    const crd = await kubeRequest(env.kubeConfig, 'GET', crdPath);
    expect((crd.body['spec'] as { versions: { name: string }[] }).versions.map((v) => v.name)).toEqual([
      'v1alpha1',
    ]);
    operator = await startPod('one');
    for (const [i, name] of names.entries()) {
      const created = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), {
        apiVersion: `${group}/v1alpha1`,
        kind: 'Widget',
        metadata: { name },
        spec: spec(i),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    for (const [i, name] of names.entries()) {
      await waitFor(
        `child of ${name} (operator stderr: ${operator.stderr().slice(-500)})`,
        async () => ((await childData(name))?.['size'] === String(i + 1) ? true : undefined),
        90_000,
      );
    }
  }, 300_000);

  it('upgrades to v1alpha1 + v1 (storage v1): every CR kept, converted, migrated; children follow v1', async () => {
    await helmRelease('upgrade', KATALOG_TWO, 'two');
    // The pod template changed (the webhook is enabled): the rollout replaces the pod.
    await stopPod();
    operator = await startPod('two');
    const running = operator;
    await running.waitForLog('the conversion webhook serving', (l) => l.msg === 'conversion webhook serving');

    // The caBundle is patched in, and the stored objects are rewritten at v1: storedVersions ends at [v1].
    const crdStatus = await waitFor(
      `storedVersions [v1] (operator stdout: ${JSON.stringify(running.logs.slice(-8))})`,
      async () => {
        const crd = await kubeRequest(env.kubeConfig, 'GET', crdPath);
        const stored = (crd.body['status'] as { storedVersions?: string[] }).storedVersions;
        return JSON.stringify(stored) === '["v1"]' ? crd.body : undefined;
      },
      120_000,
    );
    const crdSpec = crdStatus['spec'] as {
      versions: { name: string; storage: boolean; served: boolean }[];
      conversion: { strategy: string; webhook: { clientConfig: { caBundle?: string } } };
    };
    expect(crdSpec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ['v1alpha1', true, false],
      ['v1', true, true],
    ]);
    expect(crdSpec.conversion.strategy).toBe('Webhook');
    expect(crdSpec.conversion.webhook.clientConfig.caBundle ?? '').not.toBe('');
    expect(running.logs.some((l) => l.msg === 'storage version migrated')).toBe(true);

    // Every CR is still there, and reads at both versions as the rules say.
    for (const version of ['v1alpha1', 'v1']) {
      const list = await kubeRequest(env.kubeConfig, 'GET', path(version));
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      const items = list.body['items'] as { metadata: { name: string } }[];
      expect(items.map((o) => o.metadata.name).sort()).toEqual(names);
    }
    for (const [i, name] of names.entries()) {
      const v1 = await kubeRequest(env.kubeConfig, 'GET', path('v1', name));
      expect(v1.status, JSON.stringify(v1.body)).toBe(200);
      expect(v1.body['apiVersion']).toBe(`${group}/v1`);
      expect(v1.body['spec']).toEqual({ replicas: i + 1, color: spec(i).colour, tier: 'standard' });
      const v1alpha1 = await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', name));
      expect(v1alpha1.body['apiVersion']).toBe(`${group}/v1alpha1`);
      expect(v1alpha1.body['spec']).toEqual(spec(i));
      // The new Katalog's templates read v1 fields: every child is rendered from them.
      await waitFor(
        `child of ${name} rendered by the v1 templates`,
        async () => ((await childData(name))?.['tier'] === 'standard' ? true : undefined),
        90_000,
      );
    }

    // A spec change made through v1 reaches the child, and reads back at v1alpha1.
    const patched = await kubeRequest(env.kubeConfig, 'PATCH', path('v1', 'w2'), {
      spec: { replicas: 7, color: 'violet' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await waitFor(
      'the child of w2 following the v1 change',
      async () => {
        const data = await childData('w2');
        return data?.['size'] === '7' && data['colour'] === 'violet' ? true : undefined;
      },
      90_000,
    );
    expect((await kubeRequest(env.kubeConfig, 'GET', path('v1alpha1', 'w2'))).body['spec']).toEqual({
      size: 7,
      colour: 'violet',
    });

    // A CR created at the old version after the upgrade gets its child too.
    const late = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Widget',
      metadata: { name: 'late' },
      spec: { size: 9, colour: 'black' },
    });
    expect(late.status, JSON.stringify(late.body)).toBe(201);
    await waitFor(
      'the child of a CR created at v1alpha1 after the upgrade',
      async () => ((await childData('late'))?.['size'] === '9' ? true : undefined),
      90_000,
    );
    expect(running.child.exitCode).toBeNull();
  }, 600_000);
});
