import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrk } from '../run-ork.js';
import { mustRun, runTool, writeKubeconfig } from '../tools.js';
import {
  buildOrk,
  serviceAccountKubeConfig,
  spawnOrk,
  tempDir,
  uniqueSuffix,
  websiteKatalog,
} from './ork-process.js';
import type { OrkProcess } from './ork-process.js';

// What a user sees with real kubectl (built from the same Kubernetes source as kube-apiserver):
// `kubectl apply -f` of `ork generate bundle`, the printer columns of `kubectl get`,
// `kubectl wait --for=condition=Ready`, `kubectl explain` with the schema's descriptions and
// `kubectl describe` with the operator's Events. The operator runs as `ork run` (the bundle's
// Deployment has no kubelet here) with the bundle's ServiceAccount.

// Workloads run (kube-scheduler, workload controllers, kwok): Ready means the children are ready.
const env = useControlPlane({ workloads: true });
const suffix = uniqueSuffix();
const base = websiteKatalog(suffix);
// The website example with descriptions on its schema, which kubectl explain shows.
const katalogText = base.text
  .replace(
    'image: { type: string }',
    'image: { type: string, description: The nginx image that serves the site. }',
  )
  .replace(
    'replicas: { type: integer, minimum: 0, maximum: 20 }',
    'replicas: { type: integer, minimum: 0, maximum: 20, description: How many nginx Pods run. }',
  );
const dir = tempDir();
const katalogFile = join(dir, 'katalog.yaml');
const kubeconfig = join(dir, 'admin.kubeconfig');
let ork: OrkProcess | undefined;

const kubectl = (...args: string[]) =>
  runTool('kubectl', [...args, '--kubeconfig', kubeconfig], {
    env: { KUBECACHEDIR: join(dir, 'kube-cache') },
  });
const mustKubectl = (...args: string[]) =>
  mustRun('kubectl', [...args, '--kubeconfig', kubeconfig], {
    env: { KUBECACHEDIR: join(dir, 'kube-cache') },
  });

function websiteYaml(name: string, image: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `apiVersion: ${base.group}/v1alpha1`,
      'kind: Website',
      `metadata: { name: ${name}, namespace: ${env.namespace} }`,
      `spec: { image: '${image}', title: ${name} }`,
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(async () => {
  buildOrk();
  writeFileSync(katalogFile, katalogText);
  writeKubeconfig(env.kubeConfig, kubeconfig);
}, 600_000);

afterAll(() => {
  if (ork != null && ork.child.exitCode == null) ork.child.kill('SIGKILL');
});

describe('kubectl against the generated bundle', () => {
  it('kubectl apply -f the output of ork generate bundle', async () => {
    const bundle = await runOrk(['generate', 'bundle', katalogFile, '-n', env.namespace]);
    expect(bundle.code, bundle.stderr).toBe(0);
    const file = join(dir, 'bundle.yaml');
    // The operator runs outside the cluster here, with no webhook endpoint: the bundle's admission
    // webhook configuration (the in-cluster Service, failurePolicy Fail for deny rules, ADR 0089)
    // is left out, and the deny rule is judged at reconcile time.
    const documents = bundle.stdout
      .split(/^---$/m)
      .filter((doc) => !/^kind: ValidatingWebhookConfiguration$/m.test(doc));
    writeFileSync(file, documents.join('---'));
    const applied = await mustKubectl('apply', '-f', file);
    expect(applied).toContain(`customresourcedefinition.apiextensions.k8s.io/websites.${base.group} created`);
    expect(applied).toContain(`deployment.apps/${base.name} created`);
    await mustKubectl('wait', '--for=condition=Established', `crd/websites.${base.group}`, '--timeout=60s');
  });

  it('kubectl wait --for=condition=Ready returns once the operator reports Ready, not before', async () => {
    const { file } = await serviceAccountKubeConfig(env.kubeConfig, katalogFile, env.namespace, dir);
    ork = spawnOrk([
      'run',
      '--katalog',
      katalogFile,
      '--kubeconfig',
      file,
      '--namespace',
      env.namespace,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
    ]);
    await ork.waitForLog('leadership', (l) => l.msg === 'became leader');
    // Invalid per the Katalog's validation rule: never Ready, so wait must time out.
    await mustKubectl('apply', '-f', websiteYaml('broken', 'Not An Image!'));
    const neverReady = await kubectl(
      'wait',
      '--for=condition=Ready',
      'website/broken',
      '-n',
      env.namespace,
      '--timeout=3s',
    );
    expect(neverReady.code).not.toBe(0);
    expect(neverReady.stderr).toContain('timed out');
    await mustKubectl('apply', '-f', websiteYaml('hello', 'nginx:1.27'));
    const waited = await kubectl(
      'wait',
      '--for=condition=Ready',
      'website/hello',
      '-n',
      env.namespace,
      '--timeout=60s',
    );
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toContain(`website.${base.group}/hello condition met`);
  });

  it('kubectl get shows the Ready, Synced, Reason and Age printer columns', async () => {
    const out = await mustKubectl('get', 'websites', '-n', env.namespace);
    const [header, ...rows] = out.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'READY', 'SYNCED', 'REASON', 'AGE']);
    const hello = rows.find((r) => r.startsWith('hello '));
    expect(hello?.split(/\s+/).slice(0, 2)).toEqual(['hello', 'True']);
    const broken = rows.find((r) => r.startsWith('broken '));
    expect(broken?.split(/\s+/)[1]).toBe('False');
    // The short name from the Katalog works too.
    expect(await mustKubectl('get', 'ws', 'hello', '-n', env.namespace, '-o', 'name')).toBe(
      `website.${base.group}/hello\n`,
    );
  });

  it('kubectl explain shows the schema with its descriptions', async () => {
    const out = await mustKubectl('explain', `websites.spec`, `--api-version=${base.group}/v1alpha1`);
    expect(out).toMatch(/image\s+<string> -required-/);
    expect(out).toContain('The nginx image that serves the site.');
    expect(out).toMatch(/replicas\s+<integer>/);
    expect(out).toContain('How many nginx Pods run.');
  });

  it('kubectl describe shows the Events the operator recorded', async () => {
    const out = await mustKubectl('describe', 'website', 'hello', '-n', env.namespace);
    const events = out.slice(out.indexOf('Events:'));
    expect(out).toContain('Events:');
    expect(events).toContain('ReconcileSucceeded');
    expect(events).not.toContain('<none>');
  });
});
