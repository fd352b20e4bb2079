import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import type { CrossAuthorize, CrossReadTarget } from './cross-handler.js';
import { createLiveApiHandler, formatAge } from './live-api.js';
import type { LiveApiEntry, LiveHealth } from './live-api.js';
import type { MetricSample } from './live-api-query.js';

const NOW = Date.parse('2026-12-05T12:00:00Z');

const cr = (namespace: string, name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'demo.example.io/v1',
  kind: 'Db',
  metadata: {
    name,
    namespace,
    generation: 2,
    creationTimestamp: '2026-12-05T11:55:28Z',
    labels: { tier: 'data' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', note: 'x' },
  },
  spec: { size: 3, domain: `${name}.example.io` },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', reason: 'ReconcileSucceeded', message: '' }],
    inventory: [
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: `${name}-deployment` },
      { apiVersion: 'v1', kind: 'Service', namespace, name: `${name}-service` },
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        namespace,
        name: `${name}-migrate`,
        readiness: { state: 'Current', since: '2026-12-05T11:56:00Z' },
      },
    ],
  },
  ...extra,
});

const health: LiveHealth = {
  synced: true,
  workersStarted: true,
  reconciles: 10,
  successes: 9,
  consecutiveFailures: 0,
  lastSuccessAt: NOW - 1000,
  lastError: '',
  queueDepth: 4,
  workers: 3,
  activeWorkers: 1,
  unhealthyDependencies: false,
};

const objects = [cr('shop', 'payments'), cr('shop', 'orders'), cr('other', 'ledger')];
const entry = (name: string, crossAccess: boolean): LiveApiEntry => ({
  name,
  crossAccess,
  namespaced: true,
  apiTypes: { group: 'demo.example.io', version: 'v1', kind: 'Db', plural: 'dbs' },
  resync: '30s',
  workersSource: 'configured',
  health: () => health,
  list: () => objects,
  get: (namespace, n) => objects.find((o) => o.metadata.namespace === namespace && o.metadata.name === n),
  // The child caches hold Deployments (payments' is ready, the others not) and Services (none cached); no Jobs.
  childReadiness: (child) =>
    child.kind === 'Deployment'
      ? child.name === 'payments-deployment'
        ? { ready: true, state: 'Current', reason: '' }
        : { ready: false, state: 'InProgress', reason: '0/1 replicas available' }
      : child.kind === 'Service'
        ? { ready: false, state: 'NotFound', reason: 'not found' }
        : undefined,
  events: (namespace, n) =>
    namespace === 'shop' && n === 'payments'
      ? [
          {
            type: 'Normal',
            reason: 'ReconcileSucceeded',
            message: 'ok',
            firstSeen: NOW - 5000,
            lastSeen: NOW - 2000,
            count: 2,
          },
          {
            type: 'Warning',
            reason: 'ApplyFailed',
            message: 'bad',
            firstSeen: NOW - 9000,
            lastSeen: NOW - 9000,
            count: 1,
          },
        ]
      : [],
});

const asked: (CrossReadTarget | undefined)[] = [];
/** Bearer `all` may do anything; `get-only` may get but not list; `db-only` may read only `db`; anything else is 401. */
const authorize: CrossAuthorize = (request, target) => {
  asked.push(target);
  const token = request.headers.authorization?.replace(/^Bearer /, '');
  if (token !== 'all' && token !== 'get-only' && token !== 'db-only')
    return Promise.resolve({ ok: false, status: 401, message: 'no token' });
  if (target != null && token === 'get-only' && target.verb === 'list')
    return Promise.resolve({ ok: false, status: 403, message: 'may not list' });
  if (target != null && token === 'db-only' && target.entry !== 'db')
    return Promise.resolve({ ok: false, status: 403, message: 'only db' });
  return Promise.resolve({ ok: true });
};

/** The process's metrics as `/api/v1/query` reads them: series of a listable, an unlisted and a hidden entry. */
const samples: MetricSample[] = [
  { name: 'workqueue_depth', labels: { controller: 'db', name: 'db' }, value: 4 },
  { name: 'workqueue_depth', labels: { controller: 'included', name: 'included' }, value: 1 },
  { name: 'workqueue_depth', labels: { controller: 'hidden', name: 'hidden' }, value: 7 },
  { name: 'rest_client_requests_total', labels: { code: '200', method: 'GET', host: 'h' }, value: 12 },
  { name: 'rest_client_requests_total', labels: { code: '201', method: 'POST', host: 'h' }, value: 3 },
  {
    name: 'controller_runtime_reconcile_time_seconds_bucket',
    labels: { controller: 'db', le: '+Inf' },
    value: 9,
  },
  { name: 'process_start_time_seconds', labels: {}, value: Number.NaN },
];

/** The Katalog as written: the map form, a Secret with literal values, an entry from nowhere else. */
const rawDocument = {
  apiVersion: 'orkestra.konductor.io/v1alpha1',
  kind: 'Katalog',
  metadata: { name: 'data', version: '1.2.0' },
  spec: {
    crds: {
      db: {
        apiTypes: { group: 'demo.example.io', version: 'v1', kind: 'Db' },
        operatorBox: {
          onCreate: {
            secrets: [{ name: 'creds', data: { password: 'hunter2', user: 'admin' } }],
            configMaps: [{ name: 'conf', data: { mode: 'fast' } }],
          },
        },
      },
      hidden: { apiTypes: { group: 'demo.example.io', version: 'v1', kind: 'Db' } },
    },
  },
};
/** The Katalog as loaded: defaults applied, an entry an include added, a custom Secret child. */
const enrichedDocument = {
  ...rawDocument,
  spec: {
    crds: {
      db: { ...rawDocument.spec.crds.db, workers: 3, resync: '30s', crossAccess: true },
      hidden: { ...rawDocument.spec.crds.hidden, workers: 3, crossAccess: false },
      included: {
        operatorBox: {
          onReconcile: {
            custom: [{ apiVersion: 'v1', kind: 'Secret', stringData: { token: 's3cr3t' } }],
          },
        },
      },
    },
  },
};

let server: Server;
let base = '';
beforeAll(async () => {
  const live = createLiveApiHandler({
    katalog: {
      name: 'data',
      version: '1.2.0',
      lifecycle: { maturity: 'beta', compatibility: { kubernetes: '>=1.28' } },
    },
    entries: () =>
      new Map([
        ['db', entry('db', true)],
        ['hidden', entry('hidden', false)],
        ['included', entry('included', true)],
      ]),
    isKonductor: () => true,
    ready: () => true,
    authorize,
    now: () => NOW,
    startedAt: NOW - 707_000,
    documents: () => ({ raw: rawDocument, enriched: enrichedDocument }),
    metrics: () => Promise.resolve(samples),
  });
  server = createServer((req, res) => {
    void live(req, res).then((handled) => {
      if (!handled) res.writeHead(418).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const get = async (
  path: string,
  token = 'all',
): Promise<{ status: number; body: Record<string, unknown> }> => {
  const response = await fetch(
    `${base}${path}`,
    token === '' ? {} : { headers: { authorization: `Bearer ${token}` } },
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('the Live API handler', () => {
  it('answers /katalog with upstream’s summary, listing only entries with crossAccess', async () => {
    const { status, body } = await get('/katalog');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      name: 'data',
      version: '1.2.0',
      lifecycle: { maturity: 'beta', compatibility: { kubernetes: '>=1.28' } },
      total: 2,
      healthy: true,
      OrkReady: true,
      status: 200,
      isKonductor: true,
      statusCounts: { healthy: 2, degraded: 0, pending: 0 },
    });
    expect((body['crds'] as { name: string }[]).map((c) => c.name)).toEqual(['db', 'included']);
  });

  it('answers /katalog/<crd> with workers, queue and the metrics map', async () => {
    const { body } = await get('/katalog/db');
    expect(body).toMatchObject({
      name: 'db',
      gvk: 'demo.example.io/v1, Kind=Db',
      workers: { current: 3, source: 'configured' },
      resync: '30s',
      queue: { depth: 4 },
      metrics: { workers: 3, queueDepth: 4, errorRate: 0.1, successRate: 0.9 },
    });
  });

  it('answers /katalog/<crd>/health with upstream’s health fields', async () => {
    const { body } = await get('/katalog/db/health');
    expect(body).toMatchObject({
      name: 'db',
      state: 'healthy',
      status: 200,
      healthy: true,
      started: true,
      pending: false,
      uptime: '11m47s',
      consecutiveFails: 0,
      totalReconciles: 10,
      resourceCount: 3,
      hasUnhealthyDependencies: false,
    });
  });

  it('lists CRs sorted, with ?field= and ?namespace=', async () => {
    const { body } = await get('/katalog/db/cr?field=spec.domain&namespace=shop');
    expect(body['total']).toBe(2);
    expect(body['items']).toEqual([
      {
        name: 'orders',
        namespace: 'shop',
        phase: 'Running',
        ready: true,
        readyReason: 'ReconcileSucceeded',
        age: '4m32s',
        generation: 2,
        value: 'orders.example.io',
      },
      {
        name: 'payments',
        namespace: 'shop',
        phase: 'Running',
        ready: true,
        readyReason: 'ReconcileSucceeded',
        age: '4m32s',
        generation: 2,
        value: 'payments.example.io',
      },
    ]);
    expect(asked.at(-1)).toMatchObject({ verb: 'list', namespace: 'shop', plural: 'dbs' });
  });

  it('lists the CRs a ?labelSelector= selects, from the cache, and refuses a set-based term', async () => {
    const names = async (query: string): Promise<string[]> => {
      const { status, body } = await get(`/katalog/db/cr?${query}`);
      expect(status, query).toBe(200);
      return (body['items'] as { name: string }[]).map((item) => item.name);
    };
    expect(await names('labelSelector=tier%3Ddata')).toEqual(['ledger', 'orders', 'payments']);
    expect(await names('labelSelector=tier%3D%3Ddata&namespace=shop')).toEqual(['orders', 'payments']);
    expect(await names('labelSelector=tier%3Dweb')).toEqual([]);
    expect(await names('labelSelector=tier!%3Ddata')).toEqual([]);
    expect(await names('labelSelector=zone!%3Da')).toEqual(['ledger', 'orders', 'payments']);
    const refused = await get('/katalog/db/cr?labelSelector=tier%20in%20(data)');
    expect(refused.status).toBe(400);
    expect(refused.body['error']).toMatch(/^labelSelector: "tier in \(data\)" is not an equality term/);
    // `detail=true`: each item is the CR's whole answer, as /cr/<ns>/<name> gives it.
    const { body } = await get('/katalog/db/cr?labelSelector=tier%3Ddata&namespace=shop&detail=true');
    const one = (body['items'] as Record<string, unknown>[]).find((item) => item['name'] === 'payments');
    expect(one).toEqual((await get('/katalog/db/cr/shop/payments')).body);
    expect(asked.at(-2)).toMatchObject({ verb: 'list', namespace: 'shop' });
  });

  it('answers one CR with status, spec, children by kind and the events path', async () => {
    const { status, body } = await get('/katalog/db/cr/shop/payments');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      found: true,
      name: 'payments',
      namespace: 'shop',
      generation: 2,
      ready: true,
      phase: 'Running',
      spec: { size: 3 },
      status: { phase: 'Running' },
      children: {
        Deployment: [{ name: 'payments-deployment', namespace: 'shop', kind: 'Deployment', ready: true }],
      },
      eventsEndpoint: '/katalog/db/cr/shop/payments/events',
      annotations: { note: 'x' },
    });
    expect(asked.at(-1)).toMatchObject({ verb: 'get', namespace: 'shop', name: 'payments' });
  });

  it('gives upstream’s children.<kind>.ready per child kind, from the child caches or the inventory', async () => {
    const { body } = await get('/katalog/db/cr/shop/payments');
    const children = body['children'] as Record<string, unknown>;
    // Cached and ready by its kind's rule.
    expect(children['deployment']).toEqual({
      kind: 'Deployment',
      ready: true,
      total: 1,
      readyCount: 1,
      known: 1,
    });
    // Cached as absent: not ready, with the kind module's reason on the child.
    expect(children['service']).toMatchObject({ ready: false, total: 1, readyCount: 0 });
    expect(children['Service']).toEqual([
      {
        name: 'payments-service',
        namespace: 'shop',
        kind: 'Service',
        ready: false,
        state: 'NotFound',
        reason: 'not found',
      },
    ]);
    // No cache for Jobs: the readiness the inventory recorded.
    expect(children['job']).toMatchObject({ ready: true, total: 1, readyCount: 1 });
    // Both forms fit CrDetail.children in docs/reference/live-api.schema.json.
    const schema = JSON.parse(
      readFileSync(new URL('../../../../docs/reference/live-api.schema.json', import.meta.url), 'utf8'),
    ) as {
      $defs: Record<string, { properties: Record<string, { additionalProperties: { oneOf: Shape[] } }> }>;
    };
    type Shape = { required?: string[]; properties?: Record<string, unknown>; items?: Shape };
    const [listShape, sumShape] = schema.$defs['CrDetail']?.properties['children']?.additionalProperties
      .oneOf ?? [undefined, undefined];
    for (const value of Object.values(children)) {
      const [shape, items] = Array.isArray(value)
        ? [listShape?.items, value as Record<string, unknown>[]]
        : [sumShape, [value as Record<string, unknown>]];
      for (const item of items) {
        for (const key of shape?.required ?? []) expect(item, key).toHaveProperty(key);
        for (const key of Object.keys(item)) expect(Object.keys(shape?.properties ?? {}), key).toContain(key);
      }
    }
    const orders = (await get('/katalog/db/cr/shop/orders')).body['children'] as Record<string, unknown>;
    expect(orders['deployment']).toMatchObject({ ready: false, readyCount: 0 });
    expect(orders['Deployment']).toEqual([
      expect.objectContaining({ state: 'InProgress', reason: '0/1 replicas available' }),
    ]);
  });

  it('answers a CR’s events newest first', async () => {
    const { body } = await get('/katalog/db/cr/shop/payments/events');
    expect(body['total']).toBe(2);
    expect((body['events'] as { reason: string; age: string }[]).map((e) => [e.reason, e.age])).toEqual([
      ['ReconcileSucceeded', '2s'],
      ['ApplyFailed', '9s'],
    ]);
  });

  it('refuses before revealing anything: 401 without a token, also for unknown or hidden entries', async () => {
    for (const path of [
      '/katalog',
      '/katalog/db',
      '/katalog/nope/cr',
      '/katalog/hidden/health',
      '/katalog/db/cr/shop/payments',
    ])
      expect((await get(path, '')).status).toBe(401);
  });

  it('asks `list` for lists and `get` for one CR; 403 and 404 after that', async () => {
    expect((await get('/katalog/db/cr', 'get-only')).status).toBe(403);
    expect((await get('/katalog/db/health', 'get-only')).status).toBe(403);
    expect((await get('/katalog/db/cr/shop/payments', 'get-only')).status).toBe(200);
    expect((await get('/katalog/hidden/cr')).status).toBe(403);
    expect((await get('/katalog/nope/cr')).status).toBe(404);
    const missing = await get('/katalog/db/cr/shop/absent');
    expect(missing).toMatchObject({ status: 404, body: { found: false } });
    expect((await get('/katalog/db/cr/payments')).status).toBe(404);
  });

  it('answers /katalog/raw and /katalog/enriched in upstream’s shape, with only the entries the caller may list', async () => {
    const raw = await get('/katalog/raw');
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ apiVersion: 'orkestra.konductor.io/v1alpha1', kind: 'Katalog' });
    const names = (body: Record<string, unknown>): unknown =>
      ((body['spec'] as { crds: { name: string }[] }).crds ?? []).map((c) => c.name);
    // `hidden` (crossAccess false) is never shown; `included` is not written in the file.
    expect(names(raw.body)).toEqual(['db']);
    const enriched = await get('/katalog/enriched');
    expect(names(enriched.body)).toEqual(['db', 'included']);
    expect((enriched.body['spec'] as { crds: Record<string, unknown>[] }).crds[0]).toMatchObject({
      name: 'db',
      workers: 3,
      resync: '30s',
    });
    expect((await get('/katalog/raw', '')).status).toBe(401);
    // A caller that may list no entry learns nothing of the Katalog.
    expect((await get('/katalog/enriched', 'get-only')).status).toBe(403);
  });

  it('never answers a Secret value from the Katalog; other data stays', async () => {
    for (const path of [
      '/katalog/raw',
      '/katalog/enriched',
      '/katalog/db/raw',
      '/katalog/included/enriched',
    ]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(200);
      const text = JSON.stringify(body);
      expect(text, path).not.toMatch(/hunter2|admin|s3cr3t/);
    }
    const { body } = await get('/katalog/db/raw');
    expect(body).toMatchObject({
      name: 'db',
      operatorBox: {
        onCreate: {
          secrets: [{ name: 'creds', data: { password: '[REDACTED]', user: '[REDACTED]' } }],
          configMaps: [{ name: 'conf', data: { mode: 'fast' } }],
        },
      },
    });
  });

  it('answers /katalog/<crd>/raw and /enriched after the same `list` review as /katalog/<crd>', async () => {
    expect((await get('/katalog/db/enriched')).body).toMatchObject({ name: 'db', workers: 3 });
    expect((await get('/katalog/db/raw', 'get-only')).status).toBe(403);
    expect((await get('/katalog/hidden/raw')).status).toBe(403);
    expect((await get('/katalog/nope/enriched')).status).toBe(404);
    expect((await get('/katalog/nope/enriched', '')).status).toBe(401);
    const notWritten = await get('/katalog/included/raw');
    expect(notWritten.status).toBe(404);
    expect(String(notWritten.body['error'])).toContain('/katalog/included/enriched');
  });

  it('leaves the object-read paths to their handler', async () => {
    expect((await fetch(`${base}/katalog/crds/db/objects/shop/payments`)).status).toBe(418);
  });
});

describe('/api/v1/query (ADR 0083)', () => {
  type Vector = { metric: Record<string, string>; value: [number, string] }[];
  const result = (body: Record<string, unknown>): Vector => (body['data'] as { result: Vector }).result;
  const q = (query: string, token = 'all'): Promise<{ status: number; body: Record<string, unknown> }> =>
    get(`/api/v1/query?query=${encodeURIComponent(query)}`, token);

  it('answers a metric name in Prometheus’ shape, with only the series of entries the caller may list', async () => {
    const { status, body } = await q('workqueue_depth');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'success', data: { resultType: 'vector' } });
    expect(body).not.toHaveProperty('warnings');
    expect(result(body)).toEqual([
      { metric: { __name__: 'workqueue_depth', controller: 'db', name: 'db' }, value: [NOW / 1000, '4'] },
      {
        metric: { __name__: 'workqueue_depth', controller: 'included', name: 'included' },
        value: [NOW / 1000, '1'],
      },
    ]);
    expect(result((await q('workqueue_depth', 'db-only')).body).map((r) => r.metric['controller'])).toEqual([
      'db',
    ]);
  });

  it('matches labels with = and != (and __name__ inside the braces)', async () => {
    expect(result((await q('{__name__="rest_client_requests_total", method="GET"}')).body)).toEqual([
      {
        metric: { __name__: 'rest_client_requests_total', code: '200', method: 'GET', host: 'h' },
        value: [NOW / 1000, '12'],
      },
    ]);
    expect(result((await q("workqueue_depth{controller!='db'}")).body).map((r) => r.value[1])).toEqual(['1']);
    expect(result((await q('workqueue_depth{shard=""}')).body)).toHaveLength(2);
    expect(result((await q('controller_runtime_reconcile_time_seconds_bucket')).body)[0]?.metric['le']).toBe(
      '+Inf',
    );
    expect(result((await q('process_start_time_seconds')).body)[0]?.value[1]).toBe('NaN');
  });

  it('answers PromQL it cannot evaluate with an empty vector and a warning, and bad selectors with bad_data', async () => {
    const fn = await q('rate(workqueue_adds_total[5m])');
    expect(fn.status).toBe(200);
    expect(result(fn.body)).toEqual([]);
    expect(String((fn.body['warnings'] as string[])[0])).toContain('needs a Prometheus server');
    const regex = await q('workqueue_depth{controller=~"d.*"}');
    expect(regex).toMatchObject({ status: 400, body: { status: 'error', errorType: 'bad_data' } });
    expect((await get('/api/v1/query')).body).toMatchObject({ errorType: 'bad_data' });
    expect((await q('{controller="db"')).body).toMatchObject({ status: 'success', data: { result: [] } });
    expect((await q('{controller=db}')).status).toBe(400);
    const timed = await get('/api/v1/query?query=workqueue_depth&time=1700000000');
    expect(timed.body['warnings']).toEqual(['time is not evaluated: the answer is the current value']);
  });

  it('fits docs/reference/live-api-query.schema.json: every required key and no undeclared one', async () => {
    type Def = { required?: string[]; properties?: Record<string, Def>; items?: Def };
    const schema = JSON.parse(
      readFileSync(new URL('../../../../docs/reference/live-api-query.schema.json', import.meta.url), 'utf8'),
    ) as { $defs: Record<string, Def> };
    const fits = (value: Record<string, unknown>, def: Def | undefined): void => {
      for (const key of def?.required ?? []) expect(value, key).toHaveProperty(key);
      for (const key of Object.keys(value)) expect(Object.keys(def?.properties ?? {}), key).toContain(key);
    };
    const success = schema.$defs['QuerySuccess'];
    for (const query of ['workqueue_depth', 'rate(x[1m])']) {
      const { body } = await q(query);
      fits(body, success);
      fits(body['data'] as Record<string, unknown>, success?.properties?.['data']);
      for (const item of result(body))
        fits(item, success?.properties?.['data']?.properties?.['result']?.items);
    }
    fits((await q('x{a=~"b"}')).body, schema.$defs['QueryError']);
    fits((await q('up', 'get-only')).body, schema.$defs['QueryError']);
  });

  it('authenticates first, and refuses a caller that may list no entry', async () => {
    expect((await q('workqueue_depth', '')).status).toBe(401);
    expect((await q('workqueue_depth', 'get-only')).status).toBe(403);
    expect((await fetch(`${base}/api/v1/query?query=up`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${base}/api/v1/query_range`)).status).toBe(418);
  });
});

describe('/api/v1/resources (the gateway’s reads, from the caches; ADR 0083)', () => {
  let gateway: Server;
  let at = '';
  beforeAll(async () => {
    const withKind = (e: LiveApiEntry, kind: string): LiveApiEntry => ({
      ...e,
      apiTypes: { ...e.apiTypes, kind, plural: `${kind.toLowerCase()}s` },
    });
    const live = createLiveApiHandler({
      katalog: { name: 'data' },
      entries: () =>
        new Map([
          ['db', entry('db', true)],
          ['vault', withKind(entry('vault', false), 'Vault')],
          ['twin', withKind(entry('twin', true), 'Twin')],
          ['twin2', withKind(entry('twin2', true), 'Twin')],
        ]),
      isKonductor: () => true,
      ready: () => true,
      authorize,
      now: () => NOW,
    });
    gateway = createServer((req, res) => {
      void live(req, res).then((handled) => {
        if (!handled) res.writeHead(418).end();
      });
    });
    await new Promise<void>((done) => gateway.listen(0, '127.0.0.1', done));
    at = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => gateway.close(() => done())));
  const read = async (
    path: string,
    token = 'all',
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(
      `${at}${path}`,
      token === '' ? {} : { headers: { authorization: `Bearer ${token}` } },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('answers one CR as stored, a namespace’s CRs as items, and ?field= as value, by Kubernetes kind', async () => {
    asked.length = 0;
    const one = await read('/api/v1/resources/Db/shop/payments');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      apiVersion: 'demo.example.io/v1',
      kind: 'Db',
      metadata: { name: 'payments', namespace: 'shop' },
      spec: { size: 3 },
      status: { phase: 'Running' },
    });
    expect(asked.at(-1)).toMatchObject({ verb: 'get', namespace: 'shop', name: 'payments', plural: 'dbs' });
    const list = await read('/api/v1/resources/db/shop');
    expect((list.body['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toEqual([
      'orders',
      'payments',
    ]);
    expect(asked.at(-1)).toMatchObject({ verb: 'list', namespace: 'shop' });
    expect((await read('/api/v1/resources/Db/shop/payments?field=status.phase')).body).toEqual({
      value: 'Running',
    });
    expect((await read('/api/v1/resources/Db/shop/payments?field=status.nope')).body).toEqual({
      value: null,
    });
  });

  it('fits the GatewayResource* definitions of docs/reference/live-api.schema.json', async () => {
    const schema = JSON.parse(
      readFileSync(new URL('../../../../docs/reference/live-api.schema.json', import.meta.url), 'utf8'),
    ) as { $defs: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    for (const [name, path] of [
      ['GatewayResource', '/api/v1/resources/Db/shop/payments'],
      ['GatewayResourceList', '/api/v1/resources/Db/shop'],
      ['GatewayResourceField', '/api/v1/resources/Db/shop/payments?field=spec.size'],
    ] as const) {
      const def = schema.$defs[name];
      const { body } = await read(path);
      for (const key of def?.required ?? []) expect(body, `${name} ${key}`).toHaveProperty(key);
      if (name !== 'GatewayResource')
        for (const key of Object.keys(body)) expect(Object.keys(def?.properties ?? {}), key).toContain(key);
    }
  });

  it('refuses like the Live API: 401 first, then the review, 403 without crossAccess, 404 and 400 after', async () => {
    expect((await read('/api/v1/resources/Db/shop/payments', '')).status).toBe(401);
    expect((await read('/api/v1/resources/Vault/shop', '')).status).toBe(401);
    expect((await read('/api/v1/resources/Db/shop', 'get-only')).status).toBe(403);
    expect((await read('/api/v1/resources/Db/shop/payments', 'get-only')).status).toBe(200);
    expect((await read('/api/v1/resources/Vault/shop')).status).toBe(403);
    expect((await read('/api/v1/resources/Nope/shop')).status).toBe(404);
    expect((await read('/api/v1/resources/Db/shop/absent')).status).toBe(404);
    expect((await read('/api/v1/resources/Db')).status).toBe(404);
    expect((await read('/api/v1/resources/Twin/shop')).status).toBe(400);
    const remove = await fetch(`${at}/api/v1/resources/Db/shop/payments`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer all' },
    });
    expect(remove.status).toBe(405);
  });
});

describe('/catalog (upstream’s newest generation, ADR 0083)', () => {
  it('serves every /katalog path with isLeader and InrunReady beside isKonductor and OrkReady', async () => {
    const summary = await get('/catalog');
    expect(summary.body).toMatchObject({
      isKonductor: true,
      isLeader: true,
      OrkReady: true,
      InrunReady: true,
    });
    expect((summary.body['crds'] as Record<string, unknown>[]).every((c) => c['isLeader'] === true)).toBe(
      true,
    );
    expect((await get('/catalog/db/health')).body).toMatchObject({ isLeader: true, state: 'healthy' });
    expect((await get('/catalog/db/cr')).body).toMatchObject({ isLeader: true, total: 3 });
    const detail = await get('/catalog/db/cr/shop/payments');
    expect(detail.body).toMatchObject({
      isLeader: true,
      eventsEndpoint: '/catalog/db/cr/shop/payments/events',
    });
    expect((await get('/catalog/db/cr/shop/payments/events')).body).toMatchObject({ total: 2 });
    expect((await get('/catalog/db/raw')).body).toMatchObject({ name: 'db' });
    expect((await get('/catalog/hidden')).status).toBe(403);
    expect((await get('/catalog', '')).status).toBe(401);
    expect((await fetch(`${base}/catalogue`)).status).toBe(418);
  });
});

describe('the JSON Schema of the answers (docs/reference/live-api.schema.json)', () => {
  const schema = JSON.parse(
    readFileSync(new URL('../../../../docs/reference/live-api.schema.json', import.meta.url), 'utf8'),
  ) as {
    $defs: Record<
      string,
      { required?: string[]; properties?: Record<string, unknown>; additionalProperties?: boolean }
    >;
  };
  it.each([
    ['KatalogSummary', '/katalog'],
    ['EntryInfo', '/katalog/db'],
    ['EntryHealth', '/katalog/db/health'],
    ['CrList', '/katalog/db/cr'],
    ['CrDetail', '/katalog/db/cr/shop/payments'],
    ['CrEvents', '/katalog/db/cr/shop/payments/events'],
    ['KatalogDocument', '/katalog/raw'],
    ['KatalogDocument', '/katalog/enriched'],
    ['KatalogEntry', '/katalog/db/raw'],
    ['KatalogEntry', '/katalog/db/enriched'],
    ['KatalogSummary', '/catalog'],
    ['EntryInfo', '/catalog/db'],
    ['EntryHealth', '/catalog/db/health'],
    ['CrList', '/catalog/db/cr'],
    ['CrDetail', '/catalog/db/cr/shop/payments'],
  ])('%s: %s has every required key and no undeclared one', async (name, path) => {
    const def = schema.$defs[name];
    const { body } = await get(path);
    for (const key of def?.required ?? []) expect(body, key).toHaveProperty(key);
    if (def?.additionalProperties === true) return;
    for (const key of Object.keys(body)) expect(Object.keys(def?.properties ?? {}), key).toContain(key);
  });
});

describe('formatAge', () => {
  it('prints like upstream', () => {
    expect([
      formatAge(0),
      formatAge(272_000),
      formatAge(3 * 3600_000 + 120_000),
      formatAge(2 * 86_400_000 + 5 * 3600_000),
    ]).toEqual(['0s', '4m32s', '3h2m', '2d5h']);
  });
});

describe('queue.degradeThreshold', () => {
  // Upstream's key: failed reconciles in a row before the entry's health state is `degraded`.
  const answer = async (consecutiveFailures: number, degradeThreshold?: number) => {
    const failing: LiveApiEntry = {
      ...entry('db', true),
      ...(degradeThreshold === undefined ? {} : { degradeThreshold }),
      health: () => ({ ...health, consecutiveFailures }),
    };
    const live = createLiveApiHandler({
      katalog: { name: 'data', version: '1.2.0' },
      entries: () => new Map([['db', failing]]),
      isKonductor: () => true,
      ready: () => true,
      authorize,
      now: () => NOW,
      startedAt: NOW - 1000,
    });
    const own = createServer((req, res) => {
      void live(req, res).then((handled) => {
        if (!handled) res.writeHead(418).end();
      });
    });
    await new Promise<void>((done) => own.listen(0, '127.0.0.1', done));
    try {
      const port = (own.address() as AddressInfo).port;
      const response = await fetch(`http://127.0.0.1:${port}/katalog/db/health`, {
        headers: { authorization: 'Bearer all' },
      });
      return (await response.json()) as Record<string, unknown>;
    } finally {
      await new Promise<void>((done) => own.close(() => done()));
    }
  };

  it('keeps an entry healthy until that many reconciles failed in a row, then degrades it', async () => {
    expect(await answer(2, 3)).toMatchObject({ state: 'healthy', status: 200, consecutiveFails: 2 });
    expect(await answer(3, 3)).toMatchObject({ state: 'degraded', status: 503, consecutiveFails: 3 });
  });

  it('degrades at the first failure without it (and with 0, upstream’s "default")', async () => {
    expect(await answer(1)).toMatchObject({ state: 'degraded' });
    expect(await answer(1, 0)).toMatchObject({ state: 'degraded' });
    expect(await answer(0, 0)).toMatchObject({ state: 'healthy' });
  });
});
