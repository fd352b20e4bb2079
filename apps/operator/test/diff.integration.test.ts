import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { createKubeClient } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import type { Logger } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { installCrds } from '../src/process/install-crds.js';
import { REPO_ROOT, runOrk } from './run-ork.js';

/**
 * `ork diff` against the real control plane (docs/reference/runtime.md §21.1): the runtime reconciles
 * examples/website's CR, then `ork diff` runs as a user who may only get, list and watch, with the
 * same Katalog (no changes, exit 0) and with a changed one (added, changed, pruned children and
 * status; exit 1). The objects' resource versions and the runtime's managed-fields entries are
 * unchanged afterwards, and the user is shown to be unable to write at all.
 */
const env = useControlPlane();

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

const suffix = randomBytes(3).toString('hex');
const group = `diff${suffix}.example.com`;
const user = `diff-reader-${suffix}`;
const original = readFileSync(join(REPO_ROOT, 'examples/website/katalog.yaml'), 'utf8').replaceAll(
  'group: demo.example.com',
  `group: ${group}`,
);

/** changed is the website Katalog with a changed ConfigMap, an added one, the Service dropped, the memory limit dropped and a changed status field. */
function changed(text: string): string {
  const out = text
    .replace(
      "index.html: '<h1>{{ default spec.title metadata.name }}</h1>'",
      "index.html: '<h2>{{ default spec.title metadata.name }}</h2>'",
    )
    .replace(
      '          deployments:\n',
      "            - name: '{{ metadata.name }}-extra'\n              data: { a: b }\n          deployments:\n",
    )
    .replace(/ {10}services:\n( {12}.*\n| {14}.*\n)+/, '')
    .replace('                limits: { memory: 128Mi }\n', '')
    .replace("value: 'http://{{", "value: 'https://{{");
  if (out.split('\n').length === text.split('\n').length) throw new Error('the Katalog edit did not apply');
  return out;
}

let dir: string;
let runtime: KatalogRuntime | undefined;
let admin: KubeClient;
let userKubeconfig: string;

const KINDS = [
  { apiVersion: `${group}/v1alpha1`, kind: 'Website' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
];

/** objects lists the test namespace's objects of the website's kinds (no system ConfigMaps). */
async function objects(): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const kind of KINDS) {
    const list = await admin.list(kind, { namespace: env.namespace });
    out.push(...list.items.filter((o) => o.metadata.name !== 'kube-root-ca.crt'));
  }
  return out;
}

/** fingerprint is, per object, what any write would change: its resourceVersion, unless a controller also writes it; and the runtime's managedFields entry. */
function fingerprint(list: readonly KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of list) {
    const entry = (o.metadata['managedFields'] as { manager?: string }[] | undefined)?.find(
      (m) => m.manager === 'orkestra',
    );
    // kube-controller-manager may write Deployment and PodDisruptionBudget status at any time.
    const controlled = o.kind === 'Deployment' || o.kind === 'PodDisruptionBudget';
    out[`${o.kind}/${o.metadata.name ?? ''}`] =
      `${controlled ? '' : (o.metadata.resourceVersion ?? '')} ${JSON.stringify(entry ?? null)}`;
  }
  return out;
}

/** settle waits until nothing of the website's objects has changed for 2 s with the runtime idle. */
async function settle(): Promise<void> {
  const until = Date.now() + 90_000;
  let last = '';
  let stableSince = Date.now();
  for (;;) {
    const list = await objects();
    const website = list.find((o) => o.kind === 'Website');
    const inventory = (website?.['status'] as { inventory?: unknown[] } | undefined)?.inventory ?? [];
    const entry = runtime == null ? undefined : [...runtime.entries.values()][0];
    const queue = entry?.queue.stats();
    const idle = queue != null && queue.depth === 0 && queue.processing === 0 && queue.dirty === 0;
    const now = JSON.stringify(list.map((o) => o.metadata.resourceVersion));
    if (now !== last || !idle || inventory.length < 4) {
      last = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= 2_000) return;
    if (Date.now() > until) throw new Error(`the website did not settle: ${JSON.stringify(queue)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** setup runs once, inside the first test (after a missing control plane has skipped it): the website reconciled by the runtime, a reader. */
async function setup(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'ork-diff-it-'));
  writeFileSync(join(dir, 'katalog.yaml'), original);
  writeFileSync(join(dir, 'new-katalog.yaml'), changed(original));
  const katalog = loadKatalogOrThrow({ text: original });
  await installCrds(createKubeClient({ kubeConfig: env.kubeConfig }), katalog);
  admin = createKubeClient({ kubeConfig: env.kubeConfig });

  // A user who may get, list and watch everything, and nothing else.
  const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({
    body: {
      metadata: { name: user },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });
  userKubeconfig = join(dir, 'reader.kubeconfig');
  writeFileSync(userKubeconfig, env.userKubeConfig(user).exportConfig());

  runtime = createKatalogRuntime({
    katalog,
    kubeConfig: env.kubeConfig,
    logger: silent,
    options: { namespace: env.namespace, resyncMs: 0 },
  });
  await runtime.start();
  await admin.create({
    apiVersion: `${group}/v1alpha1`,
    kind: 'Website',
    metadata: { name: 'hello', namespace: env.namespace },
    spec: { image: 'nginx:1.27', replicas: 2, title: 'Hello', tier: 'gold' },
  });
  await settle();
  await runtime.stop({ timeoutMs: 10_000 });
  runtime = undefined;
}

let ready: Promise<void> | undefined;
const prepared = (): Promise<void> => (ready ??= setup());

afterAll(async () => {
  if (ready == null) return;
  await runtime?.stop({ timeoutMs: 10_000 });
  const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.deleteClusterRoleBinding({ name: user }).catch(() => undefined);
  await rbac.deleteClusterRole({ name: user }).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('ork diff against the live cluster', () => {
  it('the reader cannot write: its create is forbidden', { timeout: 180_000 }, async () => {
    await prepared();
    const core = env.userKubeConfig(user).makeApiClient(CoreV1Api);
    await expect(
      core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'nope' } } }),
    ).rejects.toMatchObject({ code: 403 });
  });

  it('reports no changes (exit 0) for the Katalog the runtime ran', { timeout: 180_000 }, async () => {
    await prepared();
    const run = await runOrk([
      'diff',
      join(dir, 'katalog.yaml'),
      '--kubeconfig',
      userKubeconfig,
      '-n',
      env.namespace,
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^Website .*\/hello \(entry website\): no changes; after: Ready=False ChildNotReady\n/,
    );
    expect(run.code).toBe(0);
  });

  it(
    'shows the added, changed and pruned children and status of a changed Katalog, as a reader, writing nothing',
    { timeout: 180_000 },
    async () => {
      await prepared();
      const before = fingerprint(await objects());
      const run = await runOrk([
        'diff',
        join(dir, 'new-katalog.yaml'),
        '--kubeconfig',
        userKubeconfig,
        '--namespace',
        env.namespace,
      ]);
      expect(run.stderr).not.toMatch(/error/);
      expect(run.code).toBe(1);
      const ns = env.namespace;
      const lines = run.stdout.split('\n');
      expect(lines[0]).toMatch(
        new RegExp(`^Website ${ns}/hello \\(entry website\\): 1 added, 2 changed, 1 pruned, status changed;`),
      );
      expect(lines).toContain(`~ v1 ConfigMap ${ns}/hello-content (changed)`);
      expect(lines).toContain('-    data["index.html"]: "<h1>Hello</h1>"');
      expect(lines).toContain('+    data["index.html"]: "<h2>Hello</h2>"');
      expect(lines).toContain(`+ v1 ConfigMap ${ns}/hello-extra (added)`);
      expect(lines).toContain(`- v1 Service ${ns}/hello (pruned)`);
      expect(lines).toContain(`-    status.url: "http://hello.${ns}.svc"`);
      expect(lines).toContain(`+    status.url: "https://hello.${ns}.svc"`);
      // The live Deployment carries server defaults; only the fields the runtime sets are compared,
      // and the memory limit it no longer sets is found removed through its managedFields entry.
      const deployment = lines.indexOf(`~ apps/v1 Deployment ${ns}/hello-web (changed)`);
      expect(deployment, run.stdout).toBeGreaterThan(0);
      expect(lines[deployment + 1]).toMatch(
        /^- {4}spec\.template\.spec\.containers\[[\w-]+\]\.resources\.limits\.memory: "128Mi"$/,
      );
      expect(lines[deployment + 2]).toMatch(/^[~+] /);
      expect(run.stdout).not.toMatch(/PodDisruptionBudget/);

      const json = await runOrk([
        'diff',
        join(dir, 'new-katalog.yaml'),
        '--kubeconfig',
        userKubeconfig,
        '-n',
        ns,
        '-o',
        'json',
      ]);
      expect(json.code).toBe(1);
      const parsed = JSON.parse(json.stdout) as {
        crs: { children: { change: string; ref: { name: string } }[] }[];
      };
      expect(parsed.crs[0]?.children.map((c) => `${c.change} ${c.ref.name}`)).toEqual([
        'changed hello-web',
        'changed hello-content',
        'added hello-extra',
        'pruned hello',
      ]);

      expect(fingerprint(await objects())).toEqual(before);
    },
  );
});
