import { AppsV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { installCrd } from '@orkestra/testenv';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createNamespace,
  crClient,
  katalogFrom,
  quietLogger,
  readConfigMap,
  readyOf,
  useRuntimeTest,
  waitFor,
  waitForReady,
} from './runtime-helpers.js';

/**
 * Upstream Katalogs run unchanged (ADR 0004): a G1 Katalog (the entry-level `reconciler:` block),
 * a G3 Katalog (`reconcile`/`runtime`/`emit` and `admission`) and a Katalog whose templates are Go
 * text/template, each loaded by the dialect mapping and run by the runtime on the local control
 * plane until its CR is Ready; and upstream's cluster-scoped lists, mapped onto `custom` entries,
 * created and deleted with their CR. The Katalogs are written here from upstream's documentation.
 */
const { env, group, api, crs, startRuntime } = useRuntimeTest({
  prefix: 'up',
  kind: 'Website',
  plural: 'websites',
});
const runtimes: KatalogRuntime[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.stop({ timeoutMs: 5000 });
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** startOther runs a Katalog for another kind of the same group, with its own CRD and runtime. */
async function startOther(kind: string, plural: string, text: string) {
  const other = { group, version: 'v1', kind, plural } as const;
  cleanups.push(await installCrd(env.kubeConfig, other));
  const runtime = createKatalogRuntime({
    kubeConfig: env.kubeConfig,
    logger: quietLogger(),
    katalog: katalogFrom(text),
  });
  await runtime.start();
  runtimes.push(runtime);
  return crClient(env.kubeConfig, other);
}

/** unlessNotFound is the object a read returns, or undefined when the API server answers 404. */
async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

describe('upstream Katalogs under the runtime', () => {
  it('runs a G1 Katalog (orkestra.orkspace.io/v1, reconciler: block) to Ready', async () => {
    await startRuntime({
      katalog: katalogFrom(`
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: g1-site
  author: platform
spec:
  crds:
    website:
      apiTypes: {group: ${api.group}, version: v1, kind: Website, plural: websites}
      reconciler:
        default: true
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-settings"
              labels:
                - key: tier
                  value: web
              data:
                greeting: "{{ .spec.greeting }}"
        status:
          fields:
            - path: phase
              value: Running
`),
    });
    const ns = env.namespace;
    await crs.create(ns, 'g1', { greeting: 'hello' });
    await waitForReady(crs, ns, 'g1');
    expect(await readConfigMap(env.kubeConfig, ns, 'g1-settings')).toEqual({ greeting: 'hello' });
    const cr = await crs.get(ns, 'g1');
    expect(cr.status?.['phase']).toBe('Running');
    expect(readyOf(cr)).toMatchObject({ status: 'True', reason: 'ReconcileSucceeded' });
  });

  it('runs a G3 Katalog (reconcile/runtime/emit, admission, env as a map) to Ready', async () => {
    const apps = await startOther(
      'App',
      'apps',
      `
apiVersion: orkestra.konductor.io/v1Alpha
kind: Katalog
metadata: {name: g3-app}
spec:
  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      admission:
        mutation:
          rules:
            - field: spec.replicas
              default: 1
      operatorBox:
        reconcile:
          workers: 2
          resync: 10s
          queue: {maxQueueDepth: 100}
          onReconcile:
            deployments:
              - name: "{{ .metadata.name }}"
                image: "{{ .spec.image }}"
                replicas: "{{ .spec.replicas }}"
                env:
                  MODE: production
        runtime:
          finalizers: [${group}/cleanup]
        emit:
          status:
            fields:
              - path: image
                value: "{{ .spec.image }}"
`,
    );
    const ns = env.namespace;
    await apps.create(ns, 'g3', { image: 'nginx:1.27' });
    await waitFor('g3 Ready=True', async () => readyOf(await apps.get(ns, 'g3'))?.status === 'True');
    const deployment = await env.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ namespace: ns, name: 'g3' });
    expect(deployment.spec?.template.spec?.containers[0]?.env).toEqual([
      { name: 'MODE', value: 'production' },
    ]);
    expect(deployment.spec?.replicas).toBe(1);
    const cr = await apps.get(ns, 'g3');
    expect(cr.status?.['image']).toBe('nginx:1.27');
    expect(cr.metadata.finalizers).toContain(`${group}/cleanup`);
  });

  it('runs a Katalog whose templates are Go text/template to Ready', async () => {
    const jobs = await startOther(
      'Pipeline',
      'pipelines',
      `
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: go-templates}
spec:
  crds:
    pipeline:
      apiTypes: {group: ${group}, version: v1, kind: Pipeline, plural: pipelines}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-plan"
              data:
                first: '{{ index (index .spec.steps 0) "command" }}'
                all: '{{ range $i, $s := .spec.steps }}{{ if $i }},{{ end }}{{ $s.command }}{{ end }}'
                tier: '{{ if eq .spec.tier "gold" }}3{{ else if eq .spec.tier "silver" }}2{{ else }}1{{ end }}'
                level: '{{ .spec.logLevel | default "info" }}'
                title: '{{ printf "%s has %d steps" .metadata.name (len .spec.steps) }}'
                second: '{{ (index .spec.steps 1).command }}'
        status:
          fields:
            - path: steps
              value: "{{ len .spec.steps }}"
            - path: planned
              value: '{{ (index .children.configmaps (printf "%s-plan" .metadata.name)).data.all }}'
`,
    );
    const ns = env.namespace;
    await jobs.create(ns, 'go', { tier: 'silver', steps: [{ command: 'make' }, { command: 'test' }] });
    await waitFor('go Ready=True', async () => readyOf(await jobs.get(ns, 'go'))?.status === 'True');
    expect(await readConfigMap(env.kubeConfig, ns, 'go-plan')).toEqual({
      first: 'make',
      all: 'make,test',
      tier: '2',
      level: 'info',
      title: 'go has 2 steps',
      second: 'test',
    });
    expect((await jobs.get(ns, 'go')).status?.['steps']).toBe(2);
    // An action that starts with a parenthesised pipeline, with fields after it (katalog.md §17.1.1).
    await waitFor(
      'go status.planned',
      async () => (await jobs.get(ns, 'go')).status?.['planned'] === 'make,test',
    );
  });
  it("writes upstream notes out where they are called, and deletes through upstream's unnamed ordered stages", async () => {
    const apps = await startOther(
      'Noted',
      'noteds',
      `
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: notes}
spec:
  crds:
    notedApp:
      apiTypes: {group: ${group}, version: v1, kind: Noted, plural: noteds}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ appLabel }}"
              data:
                image: "{{ fullImage }}"
                replicas: "{{ if isProd }}3{{ else }}1{{ end }}"
                regions: "{{ range .spec.regions }}{{ . }}@{{ appLabel }};{{ end }}"
          services:
            - name: "{{ appLabel }}-svc"
              port: 80
        onDelete:
          ordered: true
          groups:
            - services:
                - name: "{{ appLabel }}-svc"
            - deployments:
            - configMaps:
                - name: "{{ appLabel }}"
notes:
  - name: appLabel
    expression: "{{ .metadata.name }}-app"
  - name: fullImage
    expression: '{{ .spec.image }}:{{ .spec.tag | default "latest" }}'
  - name: isProd
    expression: '{{ eq .spec.env "prod" }}'
`,
    );
    const ns = env.namespace;
    await apps.create(ns, 'shop', { image: 'nginx', env: 'prod', regions: ['eu', 'us'] });
    await waitFor('shop Ready=True', async () => readyOf(await apps.get(ns, 'shop'))?.status === 'True');
    expect(await readConfigMap(env.kubeConfig, ns, 'shop-app')).toEqual({
      image: 'nginx:latest',
      replicas: '3',
      regions: 'eu@shop-app;us@shop-app;',
    });
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    expect(
      (await core.readNamespacedService({ namespace: ns, name: 'shop-app-svc' })).spec?.ports?.[0]?.port,
    ).toBe(80);
    await apps.remove(ns, 'shop');
    await waitFor('the CR is gone', async () => !(await apps.exists(ns, 'shop')));
    expect(
      await unlessNotFound(core.readNamespacedService({ namespace: ns, name: 'shop-app-svc' })),
    ).toBeUndefined();
    expect(
      await unlessNotFound(core.readNamespacedConfigMap({ namespace: ns, name: 'shop-app' })),
    ).toBeUndefined();
  });

  it('copies a Secret from another namespace into each of toNamespaces and keeps the copies in sync through a watch on the source', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const suffix = Math.random().toString(36).slice(2, 8);
    const platform = `platform-${suffix}`;
    const extra = `ci-${suffix}`;
    cleanups.push(await createNamespace(env.kubeConfig, platform));
    cleanups.push(await createNamespace(env.kubeConfig, extra));
    const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
    await core.createNamespacedSecret({
      namespace: platform,
      body: {
        metadata: { name: 'shared-registry' },
        type: 'Opaque',
        data: { token: b64('first'), user: b64('robot') },
      },
    });
    const tenants = await startOther(
      'Tenant',
      'tenants',
      `
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: secret-copy}
spec:
  crds:
    tenant:
      apiTypes: {group: ${group}, version: v1, kind: Tenant, plural: tenants}
      # A CR field picks a target namespace: the entry names the ones it may write to (katalog.md §6).
      allowedNamespaces: ["${env.namespace}", "ci-*"]
      operatorBox:
        reconciler: {resync: 1h}
        onReconcile:
          secrets:
            - name: registry-pull
              fromSecret: shared-registry
              fromNamespace: ${platform}
              data:
                note: copied
              toNamespaces:
                - "{{ .metadata.namespace }}"
                - "{{ .spec.extraNamespace }}"
                - "{{ .spec.missing }}"
`,
    );
    const ns = env.namespace;
    await tenants.create(ns, 'acme', { extraNamespace: extra });
    await waitFor('acme Ready=True', async () => readyOf(await tenants.get(ns, 'acme'))?.status === 'True');
    const decoded = async (namespace: string): Promise<Record<string, string>> => {
      const secret = await core.readNamespacedSecret({ namespace, name: 'registry-pull' });
      return Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
      );
    };
    // The source's keys, with the declared `data` on top, in both target namespaces.
    for (const namespace of [ns, extra])
      expect(await decoded(namespace)).toEqual({ token: 'first', user: 'robot', note: 'copied' });
    const current = await core.readNamespacedSecret({ namespace: platform, name: 'shared-registry' });
    await core.replaceNamespacedSecret({
      namespace: platform,
      name: 'shared-registry',
      body: { ...current, data: { ...current.data, token: b64('second') } },
    });
    // The copies follow the source through the watch on it, not a resync (1h here).
    await waitFor('copies follow the source', async () => {
      const [a, b] = await Promise.all([decoded(ns), decoded(extra)]);
      return a['token'] === 'second' && b['token'] === 'second';
    });
    // The source Secret is never written by the operator.
    const source = await core.readNamespacedSecret({ namespace: platform, name: 'shared-registry' });
    expect(source.metadata?.labels ?? {}).toEqual({});
  });

  it('re-queues the CRs when the object a G3 operatorBox.watch item names changes, and not for other objects', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const ns = env.namespace;
    const suffix = Math.random().toString(36).slice(2, 8);
    const shared = `shared-${suffix}`;
    const unrelated = `unrelated-${suffix}`;
    for (const name of [shared, unrelated])
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name }, data: { v: '1' } } });
    const other = { group, version: 'v1', kind: 'Watcher', plural: 'watchers' } as const;
    cleanups.push(await installCrd(env.kubeConfig, other));
    const runtime = createKatalogRuntime({
      kubeConfig: env.kubeConfig,
      logger: quietLogger(),
      katalog: katalogFrom(`
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: watcher}
spec:
  crds:
    watcher:
      apiTypes: {group: ${group}, version: v1, kind: Watcher, plural: watchers}
      operatorBox:
        reconciler: {resync: 1h}
        watch:
          - {apiVersion: v1, kind: ConfigMap, name: ${shared}, on: [update]}
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-out"
              data: {k: v}
`),
    });
    await runtime.start();
    runtimes.push(runtime);
    const watchers = crClient(env.kubeConfig, other);
    await watchers.create(ns, 'w1', {});
    await waitFor('w1 Ready=True', async () => readyOf(await watchers.get(ns, 'w1'))?.status === 'True');
    const controller = runtime.entries.get('watcher')?.controller;
    const reconciles = (): number => controller?.stats().reconciles ?? -1;
    // Settled: no reconcile for a second (the first reconcile's own-write re-queue is done).
    let settled = reconciles();
    await waitFor('reconciles settle', async () => {
      await new Promise((r) => setTimeout(r, 1000));
      const now = reconciles();
      const still = now === settled;
      settled = now;
      return still;
    });
    const bump = async (name: string): Promise<void> => {
      const current = await core.readNamespacedConfigMap({ namespace: ns, name });
      await core.replaceNamespacedConfigMap({
        namespace: ns,
        name,
        body: { ...current, data: { v: String(Date.now()) } },
      });
    };
    await bump(unrelated);
    await new Promise((r) => setTimeout(r, 1500));
    expect(reconciles()).toBe(settled);
    await bump(shared);
    await waitFor('a reconcile after the watched ConfigMap changed', () => reconciles() > settled, 10_000);
  });

  it('creates an upstream clusterRoles item as a ClusterRole and deletes it when the CR is deleted', async () => {
    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const readers = await startOther(
      'Reader',
      'readers',
      `
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: cluster-lists}
spec:
  crds:
    reader:
      apiTypes: {group: ${group}, version: v1, kind: Reader, plural: readers}
      operatorBox:
        onReconcile:
          clusterRoles:
            - name: "{{ .metadata.namespace }}-{{ .metadata.name }}-reader"
              labels:
                - key: tier
                  value: ops
              rules:
                - resources: [namespaces]
                  verbs: [get, list]
`,
    );
    const ns = env.namespace;
    const name = `${ns}-ops-reader`;
    const clusterRole = () => unlessNotFound(rbac.readClusterRole({ name }));
    await readers.create(ns, 'ops', {});
    await waitFor('ops Ready=True', async () => readyOf(await readers.get(ns, 'ops'))?.status === 'True');
    const role = await clusterRole();
    expect(role?.rules).toEqual([{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] }]);
    expect(role?.metadata?.labels?.['tier']).toBe('ops');
    // Cluster-scoped, so no ownerReference to the namespaced CR: garbage collection cannot remove it,
    // and the runtime holds the CR with its finalizer and deletes the ClusterRole itself.
    expect(role?.metadata?.ownerReferences ?? []).toEqual([]);
    expect((await readers.get(ns, 'ops')).metadata.finalizers).toContain('orkestra.konductor.io/finalizer');
    await readers.remove(ns, 'ops');
    await waitFor('the ClusterRole is deleted', async () => (await clusterRole()) == null);
    await waitFor('the CR is gone', async () => !(await readers.exists(ns, 'ops')));
  });

  it('creates an upstream pods item as a Pod, and creates it again with the current spec when it is gone', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const workers = await startOther(
      'Worker',
      'workers',
      `
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: bare-pods}
spec:
  crds:
    worker:
      apiTypes: {group: ${group}, version: v1, kind: Worker, plural: workers}
      operatorBox:
        onReconcile:
          pods:
            - name: "{{ .metadata.name }}-worker"
              image: "{{ .spec.image }}"
              port: "9090"
              labels:
                - key: role
                  value: worker
`,
    );
    const ns = env.namespace;
    const pod = () => unlessNotFound(core.readNamespacedPod({ namespace: ns, name: 'w1-worker' }));
    await workers.create(ns, 'w1', { image: 'busybox:1.36' });
    await waitFor('the Pod is created', async () => (await pod()) != null);
    const first = await pod();
    expect(first?.spec?.containers[0]).toMatchObject({ name: 'w1-worker', image: 'busybox:1.36' });
    expect(first?.spec?.containers[0]?.ports?.[0]?.containerPort).toBe(9090);
    expect(first?.metadata?.labels?.['role']).toBe('worker');
    expect(first?.metadata?.ownerReferences?.[0]?.kind).toBe('Worker');
    // Create-only: a changed spec does not reach the running Pod …
    await workers.patchSpec(ns, 'w1', { image: 'busybox:1.37' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await pod())?.spec?.containers[0]?.image).toBe('busybox:1.36');
    // … but the Pod created again once it is gone has it.
    await core.deleteNamespacedPod({ namespace: ns, name: 'w1-worker', gracePeriodSeconds: 0 });
    await waitFor('the Pod is created again with the current image', async () => {
      const next = await pod();
      return (
        next != null &&
        next.metadata?.uid !== first?.metadata?.uid &&
        next.metadata?.deletionTimestamp == null
      );
    });
    expect((await pod())?.spec?.containers[0]?.image).toBe('busybox:1.37');
  });

  it("keeps an upstream entry's labels and annotations on each CR, following its spec, and writes nothing once they hold", async () => {
    const teams = await startOther(
      'Team',
      'teams',
      `
apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: cr-labels}
spec:
  crds:
    team:
      apiTypes: {group: ${group}, version: v1, kind: Team, plural: teams}
      resync: 1s
      labels:
        - key: team
          value: "{{ .spec.team }}"
      annotations:
        - key: example.org/owner
          value: "{{ .spec.team }}-owners"
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-roster"
              data: {team: "{{ .spec.team }}"}
`,
    );
    const ns = env.namespace;
    await teams.create(ns, 't1', { team: 'blue' });
    await waitFor(
      'the CR is labelled',
      async () => (await teams.get(ns, 't1')).metadata.labels?.['team'] === 'blue',
    );
    const labelled = await teams.get(ns, 't1');
    expect(labelled.metadata.annotations?.['example.org/owner']).toBe('blue-owners');
    await teams.patchSpec(ns, 't1', { team: 'red' });
    await waitFor('the label follows the spec', async () => {
      const cr = await teams.get(ns, 't1');
      return (
        cr.metadata.labels?.['team'] === 'red' &&
        cr.metadata.annotations?.['example.org/owner'] === 'red-owners'
      );
    });
    await waitFor('t1 Ready=True', async () => readyOf(await teams.get(ns, 't1'))?.status === 'True');
    // Settled: resyncs every second re-render the same values, and the CR is not written again
    // (the API server would also drop a patch that changes nothing, so count what is sent).
    const runtime = runtimes.at(-1);
    const before = runtime?.requestCounts() ?? {};
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = runtime?.requestCounts() ?? {};
    expect(after['patch Team'] ?? 0).toBe(before['patch Team'] ?? 0);
  });
});
