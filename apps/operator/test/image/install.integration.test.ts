import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
} from '@kubernetes/client-node';
import type { KubernetesObject, V1Container, V1Deployment, V1PodSpec } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { OrkestraLabel, loadKatalogOrThrow } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { installCrds } from '../../src/process/install-crds.js';
import { SHARD_LEASE_LABEL } from '../../src/sharding/shard-lease.js';
import { documentsOf } from '../apply.js';
import { tempDir, uniqueSuffix, waitFor, websiteKatalog } from '../e2e/ork-process.js';
import { REPO_ROOT, runOrk } from '../run-ork.js';
import { mustRun, toolPath, writeKubeconfig } from '../tools.js';
import { projectConfigMap, runContainer } from './kubelet.js';
import type { Container, ImageConfig, Mount } from './kubelet.js';
import { createKubeClient } from '@orkestra/registry';

// The operator installed the way a user installs it: the image from `pnpm image` pushed to a
// registry on 127.0.0.1 and pulled back by digest, its rootfs run as the chart's pod would run
// (tools: crane, real Helm; the "kubelet" is test/image/kubelet.ts), the chart installed by
// `helm install` with `ork generate helm-values` values, upgraded with a changed Katalog, and
// uninstalled. What it does not prove: scheduling, image pulls by a real kubelet, probes run by a
// kubelet, or a network namespace of the pod's own (the container shares the host network).

// Workloads run (kube-scheduler, workload controllers, kwok), so the Website becomes truly Ready.
const env = useControlPlane({ workloads: true });
const suffix = uniqueSuffix();
const website = websiteKatalog(suffix);
const release = `ork-${suffix}`;
const chartDir = join(REPO_ROOT, 'apps/operator/deploy/helm/orkestra');
const layout = process.env['ORKESTRA_IMAGE_LAYOUT'] ?? join(REPO_ROOT, 'dist/image/orkestra-operator');
const dir = tempDir();
const kubeconfig = join(dir, 'admin.kubeconfig');
let registry: ChildProcess | undefined;
let registryHost = '';
let container: Container | undefined;
let imageRef = '';
let rootfs = '';
let imageConfig: ImageConfig = {};
let installed: KubernetesObject[] = [];
let healthPort = 0;
let metricsPort = 0;
/** The Katalog the release runs (the upgrade test changes it). */
let katalogText = website.text;
/** The pods of the sharded release. */
const shardPods: Container[] = [];

function freePortSync(): number {
  const out = execFileSync(process.execPath, [
    '-e',
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
  ]);
  return Number(out.toString().trim());
}

async function startRegistry(): Promise<string> {
  const port = freePortSync();
  registry = spawn(toolPath('crane'), ['registry', 'serve', '--address', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitFor('the registry on 127.0.0.1', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v2/`);
    return response.status === 200 ? true : undefined;
  });
  return `127.0.0.1:${port}`;
}

function layoutDigest(): string {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as {
    manifests: { digest: string }[];
  };
  const digest = index.manifests[0]?.digest;
  if (digest == null) throw new Error(`${layout}/index.json lists no manifest`);
  return digest;
}

const crane = (...args: string[]) => mustRun('crane', [...args, '--insecure'], { timeoutMs: 300_000 });
const helm = (...args: string[]) =>
  mustRun('helm', [...args, '--kubeconfig', kubeconfig, '--namespace', env.namespace], {
    timeoutMs: 180_000,
    env: {
      HELM_CACHE_HOME: join(dir, 'helm/cache'),
      HELM_CONFIG_HOME: join(dir, 'helm/config'),
      HELM_DATA_HOME: join(dir, 'helm/data'),
    },
  });

/**
 * valuesFor writes `ork generate helm-values` for the Katalog, less its admission webhook configurations:
 * the operator here runs as a process on this machine, not as a pod behind the chart's Service, and
 * the local control plane has no pod network, so the API server could not call the webhook (with
 * `failurePolicy: Fail` every CR write would be refused). The generated values must hold the
 * configuration; the webhook itself is tested by admission-webhook.integration.test.ts (and the
 * shard-assignment one, with `--sharding`, by shard-admission.integration.test.ts).
 */
function valuesFor(katalogText: string, file: string, flags: readonly string[] = []): Promise<string> {
  const katalogFile = join(dir, `${file}.katalog.yaml`);
  writeFileSync(katalogFile, katalogText);
  return runOrk(['generate', 'helm-values', katalogFile, '-n', env.namespace, ...flags]).then((run) => {
    if (run.code !== 0) throw new Error(`ork generate helm-values failed: ${run.stderr}`);
    const values = parse(run.stdout) as { admissionPolicies?: { kind?: string }[] };
    const policies = values.admissionPolicies ?? [];
    expect(policies.map((p) => p.kind)).toContain('ValidatingWebhookConfiguration');
    values.admissionPolicies = policies.filter((p) => p.kind?.endsWith('WebhookConfiguration') !== true);
    const valuesFile = join(dir, `${file}.values.yaml`);
    writeFileSync(valuesFile, stringify(values));
    return valuesFile;
  });
}

/**
 * podOfDeployment reads the release's Deployment and prepares its pod as a kubelet would, under
 * `podDir`: a ServiceAccount token volume from the TokenRequest API, the chart's ConfigMap volumes
 * projected, emptyDirs as tmpfs, the downward-API namespace. `run` starts the container with the
 * pod's args, passed through `args` first (the second pod of a sharded release moves its ports: the
 * pods here share the host's network, where a pod network would give each its own).
 */
async function podOfDeployment(
  podDir: string,
  args: (args: readonly string[]) => readonly string[] = (a) => a,
): Promise<{ pod: V1PodSpec; spec: V1Container; run: () => Container }> {
  const ns = env.namespace;
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const deployment: V1Deployment = await apps.readNamespacedDeployment({ name: release, namespace: ns });
  const pod = deployment.spec?.template.spec;
  const spec = pod?.containers[0];
  if (pod == null || spec == null) throw new Error('the Deployment has no container');

  // The ServiceAccount volume: a token from the TokenRequest API, ca.crt, namespace.
  const serviceAccount = pod.serviceAccountName ?? 'default';
  const token = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace: ns,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const saDir = join(podDir, 'serviceaccount');
  const cluster = env.kubeConfig.getCurrentCluster();
  const ca =
    cluster?.caData != null
      ? Buffer.from(cluster.caData, 'base64').toString('utf8')
      : readFileSync(String(cluster?.caFile), 'utf8');
  projectConfigMap(saDir, { token: String(token.status?.token), 'ca.crt': ca, namespace: ns }, '1');

  // The pod's volumes: the chart's ConfigMap as the kubelet projects it, emptyDirs as tmpfs.
  const volumeDirs = new Map<string, string>();
  for (const volume of pod.volumes ?? []) {
    if (volume.configMap != null) {
      const configMap = await core.readNamespacedConfigMap({
        name: volume.configMap.name ?? '',
        namespace: ns,
      });
      const volumeDir = join(podDir, `volume-${volume.name}`);
      projectConfigMap(volumeDir, configMap.data ?? {}, String(configMap.metadata?.resourceVersion));
      volumeDirs.set(volume.name, volumeDir);
    }
  }
  const mounts: Mount[] = (spec.volumeMounts ?? []).map((m) => {
    const source = volumeDirs.get(m.name);
    return source == null
      ? { kind: 'tmpfs', path: m.mountPath }
      : { kind: 'bind', source, path: m.mountPath, readOnly: m.readOnly === true };
  });
  mounts.push({
    kind: 'bind',
    source: saDir,
    path: '/var/run/secrets/kubernetes.io/serviceaccount',
    readOnly: true,
  });
  const containerEnv: Record<string, string> = {
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: new URL(env.server).port,
  };
  for (const variable of spec.env ?? []) {
    if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') containerEnv[variable.name] = ns;
    else if (variable.value != null) containerEnv[variable.name] = variable.value;
  }
  const run = (): Container =>
    runContainer(rootfs, imageConfig, {
      ...(spec.args == null ? {} : { args: [...args(spec.args)] }),
      env: containerEnv,
      mounts,
      runAsUser: pod.securityContext?.runAsUser ?? 0,
      runAsGroup: pod.securityContext?.runAsGroup ?? 0,
    });
  return { pod, spec, run };
}

beforeAll(async () => {
  writeKubeconfig(env.kubeConfig, kubeconfig);
  if (!existsSync(join(layout, 'index.json'))) {
    // CI runs `pnpm image` before the tests; a developer's first run builds it here.
    execFileSync('bash', [join(REPO_ROOT, 'tools/image/build.sh')], { cwd: REPO_ROOT, stdio: 'pipe' });
  }
  registryHost = await startRegistry();
  // The CRDs are not part of the chart (see the chart's README): installed as admin, kept on uninstall.
  await installCrds(
    createKubeClient({ kubeConfig: env.kubeConfig }),
    loadKatalogOrThrow({ text: website.text }),
  );
  healthPort = freePortSync();
  metricsPort = freePortSync();
}, 900_000);

afterAll(async () => {
  for (const running of [container, ...shardPods])
    if (running != null && running.child.exitCode == null) running.child.kill('SIGKILL');
  registry?.kill('SIGTERM');
});

describe('the operator image and chart, installed as a user installs them', () => {
  it('pushes the OCI layout to a registry on 127.0.0.1 and pulls it back by digest', async () => {
    const digest = layoutDigest();
    await crane('push', layout, `${registryHost}/orkestra/operator:test`);
    expect((await crane('digest', `${registryHost}/orkestra/operator:test`)).trim()).toBe(digest);
    imageRef = `${registryHost}/orkestra/operator@${digest}`;
    imageConfig = (JSON.parse(await crane('config', imageRef)) as { config: ImageConfig }).config;
    expect(imageConfig.User).toBe('65532:65532');
    rootfs = join(dir, 'rootfs');
    mkdirSync(rootfs);
    const tar = join(dir, 'rootfs.tar');
    await crane('export', imageRef, tar);
    execFileSync('tar', ['-xpf', tar, '--numeric-owner', '-C', rootfs]);
    // Distroless: the entrypoint exists, no shell does.
    expect(existsSync(join(rootfs, (imageConfig.Entrypoint ?? [])[0] ?? '/missing'))).toBe(true);
    expect(existsSync(join(rootfs, 'bin/sh'))).toBe(false);
    expect(existsSync(join(rootfs, 'app/node_modules/@orkestra/provider-aws/package.json'))).toBe(true);
    expect(existsSync(join(rootfs, 'app/node_modules/@orkestra/provider-mongodb/package.json'))).toBe(true);
    // The bundled providers import inside the image, as the operator's provider loader imports them.
    const imported = execFileSync('/usr/bin/unshare', [
      `--root=${rootfs}`,
      '--wd=/app',
      '--setuid=65532',
      '--setgid=65532',
      '/usr/local/bin/node',
      '--input-type=module',
      '-e',
      "for (const p of ['@orkestra/provider-aws', '@orkestra/provider-mongodb']) console.log(p, typeof (await import(p)).createProvider)",
    ]).toString();
    expect(imported).toBe('@orkestra/provider-aws function\n@orkestra/provider-mongodb function\n');
    // Nothing test-only in the image.
    expect(existsSync(join(rootfs, 'app/node_modules/.pnpm/node_modules/vitest'))).toBe(false);
  });

  it('has the config the Dockerfile declares (one recipe, two front ends)', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'apps/operator/deploy/Dockerfile'), 'utf8');
    const final = dockerfile.slice(dockerfile.lastIndexOf('FROM scratch'));
    const instruction = (name: string) => new RegExp(`^${name} (.*)$`, 'm').exec(final)?.[1];
    expect(instruction('USER')).toBe(imageConfig.User);
    expect(instruction('WORKDIR')).toBe(imageConfig.WorkingDir);
    expect(JSON.parse(String(instruction('ENTRYPOINT')))).toEqual(imageConfig.Entrypoint);
    expect(JSON.parse(String(instruction('CMD')))).toEqual(imageConfig.Cmd);
    expect(String(instruction('ENV')).split(' ')).toEqual(imageConfig.Env);
    expect(final).toContain('COPY --from=build /rootfs/ /');
    expect(dockerfile).toContain('bash tools/image/build.sh --rootfs /rootfs');
  });

  it('installs the chart with helm, with the values of `ork generate helm-values`', async () => {
    const values = await valuesFor(website.text, 'v1');
    const [repository, digest] = imageRef.split('@');
    await helm(
      'install',
      release,
      chartDir,
      '-f',
      values,
      '--set',
      `image.repository=${String(repository)},image.digest=${String(digest)},replicaCount=1`,
      '--set',
      `health.port=${healthPort},metrics.port=${metricsPort}`,
    );
    installed = documentsOf(await helm('get', 'manifest', release));
    expect(installed.map((o) => o.kind).sort()).toEqual(
      [
        'ClusterRole',
        'ClusterRoleBinding',
        'ConfigMap',
        'Deployment',
        'Lease',
        // On by default: metrics and health open, the cross port only to labelled peers.
        'NetworkPolicy',
        'Role',
        'RoleBinding',
        'Service',
        // The webhook endpoint's Service: the website example has rules the admission webhook judges.
        'Service',
        'ServiceAccount',
        // The website example's Warn rule is enforced at admission (docs/reference/katalog.md §12).
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ].sort(),
    );
  });

  it('runs the image as the pod would: reconciles a CR, serves /healthz, /readyz and /metrics', async () => {
    const ns = env.namespace;
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const { pod, spec, run } = await podOfDeployment(dir);
    expect(spec.image).toBe(imageRef);
    expect(spec.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(pod.securityContext?.runAsUser).toBe(65532);

    const started = performance.now();
    container = run();
    const running = container;
    const pid = await running.pid;
    const health = `http://127.0.0.1:${healthPort}`;
    await waitFor(
      `/readyz (stderr: ${running.stderr().slice(-1000)})`,
      async () => ((await fetch(`${health}/readyz`)).status === 200 ? true : undefined),
      120_000,
    );
    const readyMs = performance.now() - started;
    console.log(`[image] container start -> /readyz 200: ${Math.round(readyMs)} ms`);
    expect((await fetch(`${health}/healthz`)).status).toBe(200);

    // Confinement: PID 1 of its namespace, uid/gid 65532, no groups, no capabilities, no_new_privs,
    // and a read-only root filesystem.
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(status).toMatch(/^NSpid:\s+\d+\s+1$/m);
    expect(status).toMatch(/^Uid:\s+65532\s+65532\s+65532\s+65532$/m);
    expect(status).toMatch(/^Gid:\s+65532\s+65532\s+65532\s+65532$/m);
    expect(status).toMatch(/^Groups:\s*$/m);
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    const root = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[4] === '/');
    expect(root?.[5]?.split(',')).toContain('ro');

    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const cr = { group: website.group, version: 'v1alpha1', namespace: ns, plural: 'websites' };
    await custom.createNamespacedCustomObject({
      ...cr,
      body: {
        apiVersion: `${website.group}/v1alpha1`,
        kind: 'Website',
        metadata: { name: 'hello', namespace: ns },
        spec: { image: 'nginx:1.27', title: 'Hello' },
      },
    });
    await waitFor(
      `Website hello Ready=True (operator stdout: ${running.stdout().slice(-1500)})`,
      async () => {
        const object = (await custom.getNamespacedCustomObject({ ...cr, name: 'hello' })) as {
          status?: { conditions?: { type: string; status: string }[] };
        };
        return object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
          ? true
          : undefined;
      },
      90_000,
    );
    const content = await core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns });
    expect(content.data?.['index.html']).toBe('<h1>Hello</h1>');

    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain(
      `orkestra_katalog_info{katalog="${website.name}",version="1.0.0"} 1`,
    );
    const lease = await env.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: `orkestra-${website.name}`, namespace: ns });
    expect(lease.spec?.holderIdentity ?? '').not.toBe('');
  });

  it('helm upgrade with a changed Katalog: the running operator picks it up', async () => {
    const ns = env.namespace;
    const changed = website.text
      .replace('version: 1.0.0', 'version: 1.1.0')
      .replace(
        "index.html: '<h1>{{ default spec.title metadata.name }}</h1>'",
        "index.html: '<h2>{{ default spec.title metadata.name }}</h2>'",
      );
    expect(changed).not.toBe(website.text);
    const values = await valuesFor(changed, 'v2');
    katalogText = changed;
    await helm('upgrade', release, chartDir, '-f', values, '--reuse-values');
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    // The kubelet's ConfigMap sync: the new data is swapped into the mounted volume.
    const configMap = await core.readNamespacedConfigMap({ name: `${release}-katalog`, namespace: ns });
    expect(configMap.data?.['katalog.yaml']).toBe(changed);
    projectConfigMap(
      join(dir, 'volume-katalog'),
      configMap.data ?? {},
      String(configMap.metadata?.resourceVersion),
    );
    await waitFor(
      'the child ConfigMap rendered by the new Katalog',
      async () => {
        const content = await core.readNamespacedConfigMap({ name: 'hello-content', namespace: ns });
        return content.data?.['index.html'] === '<h2>Hello</h2>' ? true : undefined;
      },
      60_000,
    );
    const reloaded = (container?.stdout() ?? '')
      .split('\n')
      .filter((line) => line.includes('"katalog reloaded"'))
      .map((line) => JSON.parse(line) as { version?: string });
    expect(reloaded.map((line) => line.version)).toEqual(['1.1.0']);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/orkestra_katalog_info\{katalog="[^"]+",version="1\.1\.0"\} 1/);
    expect(metrics).not.toMatch(/orkestra_katalog_info\{[^}]*version="(?!1\.1\.0")/);
    // Still the same process: no restart was needed.
    expect(container?.child.exitCode).toBeNull();
  });

  it('SIGTERM to PID 1 ends it within the grace period and releases its Lease', async () => {
    const running = container;
    if (running == null) throw new Error('the container is not running');
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    const deployment = await apps.readNamespacedDeployment({ name: release, namespace: env.namespace });
    const graceMs = (deployment.spec?.template.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    const started = performance.now();
    await running.kill('SIGTERM');
    const code = await running.exited;
    const tookMs = performance.now() - started;
    console.log(`[image] SIGTERM -> exit: ${Math.round(tookMs)} ms (grace period ${graceMs} ms)`);
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(graceMs);
    expect(running.stdout()).toContain('leader lease released');
    const lease = await env.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: `orkestra-${website.name}`, namespace: env.namespace });
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  });

  it('helm upgrade to two shards (replicaCount 2, sharding.enabled): each pod holds a shard Lease and reconciles its share', async () => {
    const ns = env.namespace;
    const values = await valuesFor(katalogText, 'sharded', ['--sharding']);
    await helm(
      'upgrade',
      release,
      chartDir,
      '-f',
      values,
      '--reuse-values',
      '--set',
      'replicaCount=2,sharding.enabled=true',
    );
    installed = documentsOf(await helm('get', 'manifest', release));
    // Evictions leave at least one shard running.
    const budget = installed.find((o) => o.kind === 'PodDisruptionBudget') as
      (KubernetesObject & { spec?: { minAvailable?: number } }) | undefined;
    expect(budget?.spec?.minAvailable).toBe(1);
    const deployment = await env.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: release, namespace: ns });
    expect(deployment.spec?.replicas).toBe(2);

    // The two pods of the Deployment; the second one's ports moved (see podOfDeployment).
    const moved = { health: freePortSync(), metrics: freePortSync(), webhook: freePortSync() };
    const first = await podOfDeployment(join(dir, 'pod-1'));
    expect(first.spec.args).toContain('--sharding=true');
    const second = await podOfDeployment(join(dir, 'pod-2'), (args) =>
      args.map((arg) =>
        arg.startsWith('--health-probe-bind-address=')
          ? `--health-probe-bind-address=:${moved.health}`
          : arg.startsWith('--metrics-bind-address=')
            ? `--metrics-bind-address=:${moved.metrics}`
            : arg.startsWith('--webhook-bind-address=:')
              ? `--webhook-bind-address=:${moved.webhook}`
              : arg,
      ),
    );
    const pods = [first.run(), second.run()];
    shardPods.push(...pods);
    for (const [i, port] of [healthPort, moved.health].entries())
      await waitFor(
        `pod ${i + 1} /readyz (stderr: ${pods[i]?.stderr().slice(-1000) ?? ''})`,
        async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined),
        120_000,
      );
    const shardOf = (pod: Container): string | undefined =>
      pod
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"shard lease held"'))
        .map((line) => (JSON.parse(line) as { shard?: string }).shard)[0];
    const shards = await waitFor(
      'both pods holding a shard Lease',
      async () => {
        const ids = pods.map(shardOf);
        if (ids.some((id) => id == null)) return undefined;
        const leases = await env.kubeConfig.makeApiClient(CoordinationV1Api).listNamespacedLease({
          namespace: ns,
          labelSelector: `${SHARD_LEASE_LABEL}=${website.name}`,
        });
        const holders = leases.items.map((l) => l.spec?.holderIdentity ?? '').sort();
        return holders.join() === [...(ids as string[])].sort().join() ? (ids as string[]) : undefined;
      },
      60_000,
    );
    expect(new Set(shards).size).toBe(2);

    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const cr = { group: website.group, version: 'v1alpha1', namespace: ns, plural: 'websites' };
    const names = Array.from({ length: 12 }, (_, i) => `shop-${i}`);
    for (const name of names)
      await custom.createNamespacedCustomObject({
        ...cr,
        body: {
          apiVersion: `${website.group}/v1alpha1`,
          kind: 'Website',
          metadata: { name, namespace: ns },
          spec: { image: 'nginx:1.27', title: name },
        },
      });
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    // Every Website (the earlier one too) Ready on a live shard, its content ConfigMap labelled alike.
    const owners = await waitFor(
      `every Website Ready on one of the two shards (pod 2 stdout: ${pods[1]?.stdout().slice(-1500) ?? ''})`,
      async () => {
        const list = (await custom.listNamespacedCustomObject(cr)) as {
          items: {
            metadata: { name: string; labels?: Record<string, string> };
            status?: { conditions?: { type: string; status: string }[] };
          }[];
        };
        const result = new Map<string, string>();
        for (const item of list.items) {
          const shard = item.metadata.labels?.[OrkestraLabel.Shard];
          const ready = item.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
          if (shard == null || !shards.includes(shard) || ready !== true) return undefined;
          const content = await core.readNamespacedConfigMap({
            name: `${item.metadata.name}-content`,
            namespace: ns,
          });
          if (content.metadata?.labels?.[OrkestraLabel.Shard] !== shard) return undefined;
          result.set(item.metadata.name, shard);
        }
        return result.size === names.length + 1 ? result : undefined;
      },
      120_000,
    );
    // Both shards own a share (13 CRs: all on one shard has a chance of 1 in 4,096).
    expect(new Set(owners.values()).size).toBe(2);
    // The chart's RBAC covers the shard Leases, the CR labels and the children: nothing was refused.
    for (const pod of pods) expect(pod.stdout()).not.toMatch(/forbidden|\b403\b/i);
    for (const pod of pods)
      expect(
        pod
          .stdout()
          .split('\n')
          .filter((line) => /"level":"(error|fatal)"/.test(line)),
      ).toEqual([]);

    for (const pod of pods) await pod.kill('SIGTERM');
    expect(await Promise.all(pods.map((pod) => pod.exited))).toEqual([0, 0]);
  }, 300_000);

  it('helm uninstall leaves no object of the release behind; the CRDs are kept', async () => {
    await helm('uninstall', release, '--wait');
    const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    const left: string[] = [];
    for (const object of installed) {
      try {
        await api.read({
          apiVersion: object.apiVersion ?? '',
          kind: object.kind ?? '',
          metadata: {
            name: object.metadata?.name ?? '',
            ...(object.metadata?.namespace == null ? {} : { namespace: object.metadata.namespace }),
          },
        });
        left.push(`${String(object.kind)}/${String(object.metadata?.name)}`);
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
      }
    }
    expect(left).toEqual([]);
    // The release's ReplicaSets and Pods go with the Deployment (garbage collector).
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    await waitFor('no ReplicaSet of the release', async () => {
      const sets = await apps.listNamespacedReplicaSet({
        namespace: env.namespace,
        labelSelector: `app.kubernetes.io/instance=${release}`,
      });
      return sets.items.length === 0 ? true : undefined;
    });
    const crd = await KubernetesObjectApi.makeApiClient(env.kubeConfig).read({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `websites.${website.group}` },
    });
    expect(crd.metadata?.name).toBe(`websites.${website.group}`);
  });
});
