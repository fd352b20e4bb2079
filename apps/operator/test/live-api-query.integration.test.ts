import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseRunConfig } from '../src/process/config.js';
import { startOperator } from '../src/process/operator.js';
import type { Operator } from '../src/process/operator.js';

// The Live API paths of ADR 0083 (docs/reference/runtime.md §18.6), read as upstream-shaped
// clients read them, on one operator's authenticated cross port: `/api/v1/query` as a Prometheus
// client asks it (series selector, `data.result[].value`), `/api/v1/resources` as a CI job polls
// upstream's gateway, and `/catalog…` as upstream's newest generation asks it (`isLeader`,
// `InrunReady`). Every read is counted against the operator's own
// `rest_client_requests_total` on `/metrics`: cache reads make 0 API-server requests. The same
// Katalog's `fleet` reads `loader` with `strategy: all` through a selector that fails to render
// for one CR: the answer carries `error` and the CR gets CrossSourceUnavailable until it renders.

const env = useControlPlane();
const group = 'livequery.example.com';
let operator: Operator | undefined;
let crossPort = 0;
let reader = '';
let getOnly = '';
const dir = mkdtempSync(join(tmpdir(), 'orkestra-live-query-'));

const katalog = (): string => {
  const file = join(dir, 'katalog.yaml');
  writeFileSync(
    file,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: loader-runtime, version: 2.0.0 }
spec:
  crds:
    loader:
      apiTypes: { group: ${group}, version: v1, kind: Loader, plural: loaders }
      crossAccess: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
      operatorBox:
        status:
          fields:
            - path: phase
              value: "Loading-{{ spec.batch }}"
    fleet:
      apiTypes: { group: ${group}, version: v1, kind: Fleet, plural: fleets }
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
      operatorBox:
        cross:
          - crd: loader
            selector: { matchLabels: { pool: "{{ b64dec spec.pool }}" } }
            strategy: all
            as: loaders
        status:
          fields:
            - path: loaderCount
              value: "{{ len .cross.loaders }}"
            - path: loaderError
              value: "{{ cross.loaders.error }}"
`,
  );
  return file;
};

/** requests is the operator's count of API-server requests (`rest_client_requests_total` on `/metrics`, all methods). */
async function requests(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${operator?.metricsAddress?.port ?? 0}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('rest_client_requests_total')) total += Number(line.split(' ').at(-1));
  return total;
}

const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

/** mint makes a ServiceAccount with `verbs` on loaders and returns its `orkestra-cross` token. */
async function mint(name: string, verbs: string[]): Promise<string> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace: env.namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRole({
    namespace: env.namespace,
    body: { metadata: { name }, rules: [{ apiGroups: [group], resources: ['loaders'], verbs }] },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: env.namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: env.namespace }],
    },
  });
  const minted = await core.createNamespacedServiceAccountToken({
    name,
    namespace: env.namespace,
    body: { spec: { audiences: ['orkestra-cross'], expirationSeconds: 3600 } },
  });
  return minted.status?.token ?? '';
}

beforeAll(async () => {
  try {
    void env.namespace;
  } catch {
    return; // no control plane: useControlPlane skips every test
  }
  reader = await mint('loader-reader', ['get', 'list']);
  getOnly = await mint('loader-getter', ['get']);
  const parsed = parseRunConfig(
    [
      '--katalog',
      katalog(),
      '--leader-elect=false',
      '--install-crds',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '0',
      '--cross-bind-address',
      '127.0.0.1:0',
      '--log-level',
      'warn',
      '--namespace',
      env.namespace,
    ],
    { env: {} },
  );
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  operator = await startOperator({
    config: parsed.config,
    env: {},
    cwd: dir,
    kubeConfig: env.kubeConfig,
    handleSignals: false,
    watchKatalog: false,
    watchNamespace: env.namespace,
  });
  await operator.synced;
  crossPort = operator.crossAddress?.port ?? 0;
  for (const [name, pool] of [
    ['l1', 'blue'],
    ['l2', 'blue'],
    ['l3', 'green'],
  ] as const)
    await custom().createNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural: 'loaders',
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Loader',
        metadata: { name, labels: { pool } },
        spec: { batch: name.length },
      },
    });
}, 180_000);

afterAll(async () => {
  await operator?.shutdown('test done');
});

const live = (path: string, bearer = reader): Promise<Response> =>
  fetch(
    `http://127.0.0.1:${crossPort}${path}`,
    bearer === '' ? {} : { headers: { authorization: `Bearer ${bearer}` } },
  );

/** PromVector is what a Prometheus client decodes from an instant query. */
interface PromAnswer {
  status: string;
  data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
  warnings?: string[];
}

/** prom asks as a Prometheus client does: `GET /api/v1/query?query=…`, decoding the vector. */
async function prom(query: string, bearer = reader): Promise<{ status: number; body: PromAnswer }> {
  const answer = await live(`/api/v1/query?query=${encodeURIComponent(query)}`, bearer);
  return { status: answer.status, body: (await answer.json()) as PromAnswer };
}

it('answers /api/v1/query from the metrics registry, in Prometheus’ shape, with 0 API-server requests per read', async () => {
  // Wait until the loaders are reconciled, so the counters below are settled.
  await until('three loaders reconciled', async () => {
    const { body } = await prom('controller_runtime_reconcile_total{controller="loader",result="success"}');
    const total = body.data.result.reduce((sum, r) => sum + Number(r.value[1]), 0);
    return total >= 3 ? total : undefined;
  });
  const { status, body } = await prom('rest_client_requests_total');
  expect(status).toBe(200);
  expect(body).toMatchObject({ status: 'success', data: { resultType: 'vector' } });
  expect(body.data.result.length).toBeGreaterThan(0);
  for (const series of body.data.result) {
    expect(series.metric['__name__']).toBe('rest_client_requests_total');
    expect(series.metric).toHaveProperty('method');
    expect(typeof series.value[0]).toBe('number');
    expect(Number.isFinite(Number(series.value[1]))).toBe(true);
  }
  // The same count the operator exposes on /metrics (no read in between makes a request).
  const viaQuery = body.data.result.reduce((sum, r) => sum + Number(r.value[1]), 0);
  expect(viaQuery).toBe(await requests());

  // Series of an entry without crossAccess are left out; /metrics (the metrics port) has them.
  const workers = await prom('controller_runtime_max_concurrent_reconciles');
  expect(workers.body.data.result.map((r) => r.metric['controller']).sort()).toEqual(['loader']);
  const scrape = await (
    await fetch(`http://127.0.0.1:${operator?.metricsAddress?.port ?? 0}/metrics`)
  ).text();
  expect(scrape).toContain('controller_runtime_max_concurrent_reconciles{controller="fleet"}');
  expect((await prom('{controller="fleet"}')).body.data.result).toEqual([]);

  // A histogram as /metrics exposes it; PromQL beyond a selector is empty with a warning.
  const buckets = await prom(
    'controller_runtime_reconcile_time_seconds_bucket{controller="loader",le="+Inf"}',
  );
  expect(Number(buckets.body.data.result[0]?.value[1])).toBeGreaterThanOrEqual(3);
  const rate = await prom('rate(controller_runtime_reconcile_total[5m])');
  expect(rate.body).toMatchObject({ status: 'success', data: { result: [] } });
  expect(rate.body.warnings?.[0]).toContain('needs a Prometheus server');
  expect((await prom('workqueue_depth{controller=~"lo.*"}')).body).toMatchObject({
    status: 'error',
    errorType: 'bad_data',
  });

  // The gate: a token is needed, and the `list` review per entry.
  expect((await prom('up', '')).status).toBe(401);
  expect((await prom('up', 'not-a-token')).status).toBe(401);
  expect((await prom('up', getOnly)).status).toBe(403);

  const before = await requests();
  for (let i = 0; i < 10; i++)
    for (const query of [
      'rest_client_requests_total',
      'workqueue_depth{controller="loader"}',
      '{__name__="controller_runtime_reconcile_total",result!="error"}',
    ])
      await (await live(`/api/v1/query?query=${encodeURIComponent(query)}`)).arrayBuffer();
  const after = await requests();
  expect(before).toBeGreaterThan(0);
  console.log(`live-api-query: ${after - before} API-server requests for 30 /api/v1/query reads`);
  expect(after - before).toBe(0);
}, 150_000);

it('serves every /katalog path under /catalog with isLeader and InrunReady, from the caches', async () => {
  const json = async (path: string): Promise<Record<string, unknown>> => {
    const answer = await live(path);
    expect(answer.status, path).toBe(200);
    return (await answer.json()) as Record<string, unknown>;
  };
  const detail = await until('loader l1 reconciled', async () => {
    const body = await json(`/catalog/loader/cr/${env.namespace}/l1`);
    return (body['status'] as Record<string, unknown> | undefined)?.['phase'] === 'Loading-2'
      ? body
      : undefined;
  });
  expect(detail).toMatchObject({
    found: true,
    name: 'l1',
    isLeader: true,
    isKonductor: true,
    eventsEndpoint: `/catalog/loader/cr/${env.namespace}/l1/events`,
  });
  const summary = await json('/catalog');
  expect(summary).toMatchObject({ name: 'loader-runtime', isLeader: true, InrunReady: true, total: 1 });
  expect(summary['crds']).toEqual([expect.objectContaining({ name: 'loader', isLeader: true })]);
  expect(await json('/catalog/loader')).toMatchObject({ name: 'loader', isLeader: true });
  expect(await json('/catalog/loader/health')).toMatchObject({ state: 'healthy', isLeader: true });
  expect(await json(`/catalog/loader/cr?namespace=${env.namespace}`)).toMatchObject({
    total: 3,
    isLeader: true,
  });
  expect(await json(`/catalog/loader/cr/${env.namespace}/l1/events`)).toMatchObject({ name: 'l1' });
  expect(await json('/catalog/loader/raw')).toMatchObject({ name: 'loader', crossAccess: true });
  expect((await live('/catalog/fleet')).status).toBe(403);
  expect((await live('/catalog', '')).status).toBe(401);

  const paths = [
    '/catalog',
    '/catalog/loader',
    '/catalog/loader/health',
    `/catalog/loader/cr?namespace=${env.namespace}`,
    `/catalog/loader/cr/${env.namespace}/l1`,
    `/catalog/loader/cr/${env.namespace}/l1/events`,
  ];
  const before = await requests();
  for (let i = 0; i < 5; i++) for (const path of paths) await (await live(path)).arrayBuffer();
  const after = await requests();
  console.log(`live-api-query: ${after - before} API-server requests for 30 /catalog reads`);
  expect(after - before).toBe(0);
}, 150_000);

it('answers the gateway’s resource reads (/api/v1/resources) from the caches, as a polling CI job reads them', async () => {
  const read = async (
    path: string,
    bearer = reader,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const answer = await live(path, bearer);
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  const one = await until('l1 with its phase', async () => {
    const answer = await read(`/api/v1/resources/Loader/${env.namespace}/l1`);
    return (answer.body['status'] as Record<string, unknown> | undefined)?.['phase'] === 'Loading-2'
      ? answer
      : undefined;
  });
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({
    apiVersion: `${group}/v1`,
    kind: 'Loader',
    metadata: { name: 'l1', namespace: env.namespace, labels: { pool: 'blue' } },
    spec: { batch: 2 },
  });
  expect((one.body['metadata'] as Record<string, unknown>)['managedFields']).toBeUndefined();
  const list = await read(`/api/v1/resources/Loader/${env.namespace}`);
  expect((list.body['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toEqual([
    'l1',
    'l2',
    'l3',
  ]);
  expect((await read(`/api/v1/resources/Loader/${env.namespace}/l1?field=status.phase`)).body).toEqual({
    value: 'Loading-2',
  });
  expect((await read(`/api/v1/resources/Loader/${env.namespace}/l1`, '')).status).toBe(401);
  expect((await read(`/api/v1/resources/Loader/${env.namespace}`, getOnly)).status).toBe(403);
  expect((await read(`/api/v1/resources/Loader/${env.namespace}/l1`, getOnly)).status).toBe(200);
  expect((await read(`/api/v1/resources/Fleet/${env.namespace}`)).status).toBe(403);
  const remove = await fetch(`http://127.0.0.1:${crossPort}/api/v1/resources/Loader/${env.namespace}/l1`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${reader}` },
  });
  expect(remove.status).toBe(405);

  const paths = [
    `/api/v1/resources/Loader/${env.namespace}/l1`,
    `/api/v1/resources/Loader/${env.namespace}`,
    `/api/v1/resources/Loader/${env.namespace}/l2?field=status.phase`,
    `/api/v1/resources/Loader/${env.namespace}/l3`,
  ];
  // One SubjectAccessReview per new (caller, object) pair, cached 30 s (runtime.md §18.5); then none.
  for (const path of paths) await (await live(path)).arrayBuffer();
  const before = await requests();
  for (let i = 0; i < 5; i++) for (const path of paths) await (await live(path)).arrayBuffer();
  const after = await requests();
  console.log(`live-api-query: ${after - before} API-server requests for 20 /api/v1/resources reads`);
  expect(after - before).toBe(0);
}, 150_000);

it('answers strategy: all with `error` when the selector does not render, and sets CrossSourceUnavailable until it does', async () => {
  const fleet = async (): Promise<Record<string, unknown>> =>
    (await custom().getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: env.namespace,
      plural: 'fleets',
      name: 'f1',
    })) as Record<string, unknown>;
  const condition = (cr: Record<string, unknown>) =>
    (
      (cr['status'] as { conditions?: { type: string; status: string; message: string; reason: string }[] })
        ?.conditions ?? []
    ).find((c) => c.type === 'CrossSourceUnavailable');
  await custom().createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'fleets',
    body: { apiVersion: `${group}/v1`, kind: 'Fleet', metadata: { name: 'f1' }, spec: { pool: '!!!' } },
  });
  const failed = await until('CrossSourceUnavailable=True on f1', async () => {
    const cr = await fleet();
    return condition(cr)?.status === 'True' ? cr : undefined;
  });
  expect(condition(failed)?.message).toMatch(
    /^cross\.loaders: fleet\.operatorBox\.cross\[0\]\.selector\.matchLabels\.pool: render failed: b64dec/,
  );
  const failedStatus = failed['status'] as Record<string, unknown>;
  expect(String(failedStatus['loaderCount'])).toBe('0');
  expect(String(failedStatus['loaderError'])).toContain('b64dec: invalid base64 input');

  await custom().patchNamespacedCustomObject({
    group,
    version: 'v1',
    namespace: env.namespace,
    plural: 'fleets',
    name: 'f1',
    body: [{ op: 'replace', path: '/spec/pool', value: Buffer.from('blue').toString('base64') }],
  });
  const fixed = await until('CrossSourceUnavailable=False on f1', async () => {
    const cr = await fleet();
    return condition(cr)?.status === 'False' ? cr : undefined;
  });
  expect(condition(fixed)).toMatchObject({ reason: 'CrossSourcesAvailable' });
  expect(String((fixed['status'] as Record<string, unknown>)['loaderCount'])).toBe('2');
}, 150_000);
