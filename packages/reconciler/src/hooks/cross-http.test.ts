// Local test servers are on loopback, which the address guard refuses unless allowed explicitly.
import { LOOPBACK_CIDRS } from './address-guard.js';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { KubeObject } from '../kube-object.js';
import { createCrossHandler } from './cross-handler.js';
import type { CrossAuthorize, CrossHandlerEntry, CrossReadTarget } from './cross-handler.js';
import { CrossHttpClient, crossObjectUrl } from './cross-http.js';
import { createLiveApiHandler } from './live-api.js';
import type { LiveApiEntry } from './live-api.js';

function cr(namespace: string | undefined, name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: {
      name,
      ...(namespace == null ? {} : { namespace }),
      labels: { app: name },
      annotations: { a: 'b' },
    },
    spec,
    status: { phase: 'Ready' },
  };
}

/** An in-memory entry: a Map keyed `namespace/name` (or `name`), counting lookups. */
function memoryEntry(objects: KubeObject[], options: { crossAccess?: boolean; namespaced?: boolean } = {}) {
  const byKey = new Map(
    objects.map((o) => [
      o.metadata.namespace == null ? o.metadata.name : `${o.metadata.namespace}/${o.metadata.name}`,
      o,
    ]),
  );
  const entry: CrossHandlerEntry & { lookups: number } = {
    crossAccess: options.crossAccess ?? true,
    namespaced: options.namespaced ?? true,
    resource: { group: 'example.com', plural: 'things' },
    lookups: 0,
    lookup(namespace, name) {
      entry.lookups++;
      return byKey.get(namespace == null ? name : `${namespace}/${name}`);
    },
  };
  return entry;
}

const allowAll: CrossAuthorize = () => Promise.resolve({ ok: true });

function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; base: string }> {
  const server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

// Operator "billing" serves databases; operator "shop" serves web shops. Each also has other routes.
const billingEntries = new Map([
  ['database', memoryEntry([cr('shop', 'orders', { engine: 'postgres' })])],
  ['ledger', memoryEntry([cr('shop', 'main', { private: true })], { crossAccess: false })],
  ['tenant', memoryEntry([cr(undefined, 'acme', { tier: 'gold' })], { namespaced: false })],
]);
const shopEntries = new Map([['webshop', memoryEntry([cr('shop', 'web', { replicas: 3 })])]]);

let billing: { server: Server; base: string };
let shop: { server: Server; base: string };
let silent: { server: Server; base: string };
let notJson: { server: Server; base: string };
let otherRequests = 0;

beforeAll(async () => {
  const billingHandler = createCrossHandler({ entries: billingEntries, authorize: allowAll });
  billing = await listen((req, res) => {
    void billingHandler(req, res).then((answered) => {
      if (answered) return;
      otherRequests++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('metrics here');
    });
  });
  const shopHandler = createCrossHandler({ entries: () => shopEntries, authorize: allowAll });
  shop = await listen((req, res) => {
    void shopHandler(req, res).then((answered) => {
      if (answered) return;
      res.writeHead(404);
      res.end();
    });
  });
  silent = await listen(() => {
    // Never answers.
  });
  notJson = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>login</html>');
  });
});

afterAll(async () => {
  await Promise.all([close(billing.server), close(shop.server), close(silent.server), close(notJson.server)]);
});

describe('cross reads over HTTP between two operators', () => {
  it('reads a CR served by the other operator, in both directions', async () => {
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const fromShop = await client.read(
      { crd: 'database', endpoint: billing.base, selector: { name: 'orders' } },
      { namespace: 'shop' },
    );
    expect(fromShop.url).toBe(`${billing.base}/katalog/crds/database/objects/shop/orders`);
    expect(fromShop.result).toEqual({
      found: true,
      name: 'orders',
      namespace: 'shop',
      labels: { app: 'orders' },
      annotations: { a: 'b' },
      spec: { engine: 'postgres' },
      status: { phase: 'Ready' },
    });
    const fromBilling = await client.read(
      { crd: 'webshop', endpoint: `${shop.base}/`, selector: { name: 'web', namespace: 'shop' } },
      { namespace: 'billing' },
    );
    expect(fromBilling.result).toMatchObject({ found: true, name: 'web', spec: { replicas: 3 } });
  });

  it('gives found: false without an error on 404 (absent object or unknown entry)', async () => {
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const absent = await client.read(
      { crd: 'database', endpoint: billing.base, selector: { name: 'nope' } },
      { namespace: 'shop' },
    );
    expect(absent.result).toEqual({
      found: false,
      name: 'nope',
      namespace: 'shop',
      labels: {},
      annotations: {},
      spec: {},
      status: {},
    });
    const unknown = await client.read(
      { crd: 'nothing', endpoint: billing.base, selector: { name: 'x' } },
      { namespace: 'shop' },
    );
    expect(unknown.result.found).toBe(false);
    expect(unknown.result.error).toBeUndefined();
  });

  it('refuses entries with crossAccess: false (403 → found: false plus error)', async () => {
    const entry = billingEntries.get('ledger');
    const before = entry?.lookups;
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const { result } = await client.read(
      { crd: 'ledger', endpoint: billing.base, selector: { name: 'main' } },
      { namespace: 'shop' },
    );
    expect(result.found).toBe(false);
    expect(result.error).toBe(
      `unexpected status 403 from ${billing.base}/katalog/crds/ledger/objects/shop/main`,
    );
    expect(entry?.lookups).toBe(before);
  });

  it('uses _ for cluster-scoped targets', async () => {
    expect(crossObjectUrl('http://x', 'tenant', undefined, 'acme')).toBe(
      'http://x/katalog/crds/tenant/objects/_/acme',
    );
    const { result } = await new CrossHttpClient({
      allowAddresses: LOOPBACK_CIDRS,
    }).read({ crd: 'tenant', endpoint: billing.base, selector: { name: 'acme' } }, { namespace: undefined });
    expect(result).toMatchObject({ found: true, name: 'acme', namespace: '', spec: { tier: 'gold' } });
  });

  it('times out, and never throws; the peer is reported unavailable and asked again within 5 s', async () => {
    const { result, expiresAt, unavailable } = await new CrossHttpClient({
      allowAddresses: LOOPBACK_CIDRS,
    }).read(
      { crd: 'database', endpoint: silent.base, selector: { name: 'orders' }, timeout: '150ms' },
      { namespace: 'shop' },
    );
    expect(result.found).toBe(false);
    expect(result.error).toBe(
      `timed out after 150ms (GET ${silent.base}/katalog/crds/database/objects/shop/orders)`,
    );
    expect(unavailable).toBe(result.error);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 5000);
  });

  it('refuses link-local and metadata endpoints with the address guard (IP literals before the request, names at connect time)', async () => {
    const resolve = async () => [{ address: '169.254.169.254', family: 4 }];
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS, resolve });
    for (const endpoint of [
      'http://169.254.169.254',
      'http://[::ffff:a9fe:a9fe]',
      'http://2852039166',
      'http://metadata.google.internal.',
      'http://rebinds-to-metadata.example.com',
    ]) {
      const { result } = await client.read(
        { crd: 'database', endpoint, selector: { name: 'orders' } },
        { namespace: 'shop' },
      );
      expect(result.found).toBe(false);
      expect(result.error).toMatch(/^refused .*(link-local|cloud metadata)/);
    }
    const allowed = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS, allowLinkLocal: true, resolve });
    const { result } = await allowed.read(
      { crd: 'database', endpoint: billing.base, selector: { name: 'orders' } },
      { namespace: 'shop' },
    );
    expect(result.found).toBe(true);
  });

  it('redacts credentials of the endpoint URL in errors', async () => {
    const { result } = await new CrossHttpClient({
      allowAddresses: LOOPBACK_CIDRS,
    }).read(
      {
        crd: 'database',
        endpoint: notJson.base.replace('http://', 'http://bot:s3cr3t@'),
        selector: { name: 'orders' },
      },
      { namespace: 'shop' },
    );
    expect(result.error).toContain('http://[REDACTED]@127.0.0.1');
    expect(result.error).not.toContain('s3cr3t');
  });

  it('redacts credentials when the reconcile aborts the read, and in the URL it returns', async () => {
    const controller = new AbortController();
    const pending = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS }).read(
      {
        crd: 'database',
        endpoint: silent.base.replace('http://', 'http://bot:ghp_SECRET@'),
        selector: { name: 'orders' },
        timeout: '5s',
        cacheFor: '0',
      },
      { namespace: 'shop', signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('reconcile cancelled')), 100);
    const { result, url } = await pending;
    expect(result.error).toMatch(/^aborted: reconcile cancelled \(GET http:\/\/\[REDACTED\]@127\.0\.0\.1/);
    expect(`${result.error ?? ''} ${url}`).not.toContain('ghp_SECRET');
  });

  it('refuses an endpoint with a query or a fragment, which would choose the path read', async () => {
    for (const endpoint of [
      `${billing.base}/admin/delete?x=`,
      `${billing.base}/#`,
      'http://bot:s3cr3t@h/?a',
    ]) {
      const { result, url } = await new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS }).read(
        { crd: 'database', endpoint, selector: { name: 'orders' } },
        { namespace: 'shop' },
      );
      expect(result.found).toBe(false);
      expect(result.error).toBe('endpoint: must not hold a query (?) or a fragment (#)');
      expect(url).not.toContain('s3cr3t');
    }
  });

  it('reports a network error and a non-JSON answer as found: false plus error', async () => {
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const closedPort = await listen(() => undefined);
    await close(closedPort.server);
    const refused = await client.read(
      { crd: 'database', endpoint: closedPort.base, selector: { name: 'orders' } },
      { namespace: 'shop' },
    );
    expect(refused.result.found).toBe(false);
    expect(refused.result.error).toMatch(/ECONNREFUSED/);
    const html = await client.read(
      { crd: 'database', endpoint: notJson.base, selector: { name: 'orders' } },
      { namespace: 'shop' },
    );
    expect(html.result.found).toBe(false);
    expect(html.result.error).toBe(
      `answer from ${notJson.base}/katalog/crds/database/objects/shop/orders is not a cross-read JSON object`,
    );
  });

  it('reuses an answer for cacheFor per URL and says when it expires', async () => {
    const clock = new ManualClock(1_000);
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS, clock });
    const entry = billingEntries.get('database');
    const before = entry?.lookups ?? 0;
    const decl = { crd: 'database', endpoint: billing.base, selector: { name: 'orders' }, cacheFor: '30s' };
    const [a, b] = await Promise.all([
      client.read(decl, { namespace: 'shop' }),
      client.read(decl, { namespace: 'shop' }),
    ]);
    expect(a.expiresAt).toBe(31_000);
    expect(b.result).toEqual(a.result);
    const c = await client.read(decl, { namespace: 'shop' });
    expect(c.expiresAt).toBe(31_000);
    expect((entry?.lookups ?? 0) - before).toBe(1);
    expect(client.stats()).toEqual({ requests: 1, cacheHits: 1 });
    clock.advance(30_000);
    await client.read(decl, { namespace: 'shop' });
    expect((entry?.lookups ?? 0) - before).toBe(2);
  });

  it('caps the answer at 1 MiB', async () => {
    const big = memoryEntry([cr('shop', 'big', { blob: 'x'.repeat(1024 * 1024) })]);
    const handler = createCrossHandler({ entries: new Map([['big', big]]), authorize: allowAll });
    const server = await listen((req, res) => void handler(req, res));
    try {
      const { result } = await new CrossHttpClient({
        allowAddresses: LOOPBACK_CIDRS,
      }).read({ crd: 'big', endpoint: server.base, selector: { name: 'big' } }, { namespace: 'shop' });
      expect(result.found).toBe(false);
      expect(result.error).toMatch(/^response body exceeds 1 MiB/);
    } finally {
      await close(server.server);
    }
  });
});

describe('createCrossHandler', () => {
  it('answers GET only and leaves other paths to the server', async () => {
    const post = await fetch(`${billing.base}/katalog/crds/database/objects/shop/orders`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${billing.base}/katalog/crds/database/objects/shop/orders`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const before = otherRequests;
    const metrics = await fetch(`${billing.base}/metrics`);
    expect(await metrics.text()).toBe('metrics here');
    expect(otherRequests).toBe(before + 1);
  });

  it('answers 404 for malformed paths and a namespaced entry asked with _', async () => {
    for (const path of [
      '/katalog/crds/database',
      '/katalog/crds/database/things/shop/orders',
      '/katalog/crds/database/objects/shop/orders/extra',
      '/katalog/crds/database/objects/_/orders',
    ]) {
      const response = await fetch(`${billing.base}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
    const forbidden = await fetch(`${billing.base}/katalog/crds/ledger/objects/shop/main`);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({
      error: 'entry ledger does not allow cross reads (crossAccess: false)',
    });
  });
});

describe('cross-read authorization (docs/adr/0030)', () => {
  it('refuses every request when no authorizer is given, before any lookup', async () => {
    const entry = memoryEntry([cr('shop', 'orders', { engine: 'postgres' })]);
    const handler = createCrossHandler({ entries: new Map([['database', entry]]) });
    const server = await listen((req, res) => void handler(req, res));
    try {
      for (const path of [
        '/katalog/crds/database/objects/shop/orders',
        '/katalog/crds/nothing/objects/shop/x',
      ]) {
        const response = await fetch(`${server.base}${path}`);
        expect(response.status, path).toBe(401);
      }
      expect(entry.lookups).toBe(0);
    } finally {
      await close(server.server);
    }
  });

  it('asks the authorizer with the target, and with none for unknown or closed entries', async () => {
    const seen: (CrossReadTarget | undefined)[] = [];
    const entries = new Map([
      ['database', memoryEntry([cr('shop', 'orders', { engine: 'postgres' })])],
      ['ledger', memoryEntry([cr('shop', 'main', {})], { crossAccess: false })],
    ]);
    const handler = createCrossHandler({
      entries,
      authorize: (request, target) => {
        seen.push(target);
        if (request.headers.authorization !== 'Bearer good')
          return Promise.resolve({ ok: false, status: 401, message: 'no token' });
        return Promise.resolve(
          target?.name === 'orders' ? { ok: true } : { ok: false, status: 403, message: 'not yours' },
        );
      },
    });
    const server = await listen((req, res) => void handler(req, res));
    const get = (path: string, token?: string) =>
      fetch(`${server.base}${path}`, token == null ? {} : { headers: { authorization: `Bearer ${token}` } });
    try {
      expect((await get('/katalog/crds/database/objects/shop/orders')).status).toBe(401);
      expect((await get('/katalog/crds/database/objects/shop/orders', 'bad')).status).toBe(401);
      expect((await get('/katalog/crds/database/objects/shop/orders', 'good')).status).toBe(200);
      expect((await get('/katalog/crds/database/objects/shop/other', 'good')).status).toBe(403);
      expect((await get('/katalog/crds/ledger/objects/shop/main')).status).toBe(401);
      expect((await get('/katalog/crds/nothing/objects/shop/x')).status).toBe(401);
      expect(seen[0]).toEqual({
        entry: 'database',
        group: 'example.com',
        plural: 'things',
        namespace: 'shop',
        name: 'orders',
      });
      expect(seen.slice(4)).toEqual([undefined, undefined]);
      expect(entries.get('database')?.lookups).toBe(1);
    } finally {
      await close(server.server);
    }
  });

  it('sends the token only to a declaration that allows it, and never shares such an answer', async () => {
    const headers: (string | undefined)[] = [];
    const server = await listen((req, res) => {
      headers.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ found: true, name: 'orders', namespace: 'shop' }));
    });
    try {
      const client = new CrossHttpClient({
        allowAddresses: LOOPBACK_CIDRS,
        token: () => Promise.resolve('sa-token'),
      });
      const decl = { crd: 'database', endpoint: server.base, selector: { name: 'orders' } };
      await client.read(decl, { namespace: 'shop' });
      await client.read({ ...decl, sendToken: true }, { namespace: 'shop' });
      await client.read({ ...decl, sendToken: true }, { namespace: 'shop' });
      expect(headers).toEqual([undefined, 'Bearer sa-token']);
    } finally {
      await close(server.server);
    }
  });
});

describe('label-selector reads of a peer’s Live API (ADR 0101)', () => {
  const loader = (name: string, labels: Record<string, string>, created: string): KubeObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Loader',
    metadata: { name, namespace: 'shop', labels, creationTimestamp: created },
    spec: { batch: name.length },
    status: { phase: `Loading-${name}` },
  });
  // Created out of name order: `first` is the oldest, as in process.
  const loaders = [
    loader('zeta', { tier: 'gold', zone: 'a' }, '2026-12-01T10:00:00Z'),
    loader('alpha', { tier: 'gold', zone: 'b' }, '2026-12-01T11:00:00Z'),
    loader('beta', { tier: 'silver', zone: 'a' }, '2026-12-01T09:00:00Z'),
  ];
  const liveEntry: LiveApiEntry = {
    name: 'loader',
    crossAccess: true,
    namespaced: true,
    apiTypes: { group: 'example.com', version: 'v1', kind: 'Loader', plural: 'loaders' },
    resync: '30s',
    workersSource: 'configured',
    health: () => ({
      synced: true,
      workersStarted: true,
      reconciles: 0,
      successes: 0,
      consecutiveFailures: 0,
      lastSuccessAt: undefined,
      lastError: '',
      queueDepth: 0,
      workers: 1,
      activeWorkers: 0,
      unhealthyDependencies: false,
    }),
    list: () => loaders,
    get: (namespace, name) =>
      loaders.find((o) => o.metadata.namespace === namespace && o.metadata.name === name),
    events: () => [],
  };
  let peer: { server: Server; base: string };
  const paths: string[] = [];
  beforeAll(async () => {
    const live = createLiveApiHandler({
      katalog: { name: 'loader-runtime' },
      entries: () => new Map([['loader', liveEntry]]),
      isKonductor: () => true,
      ready: () => true,
      authorize: allowAll,
    });
    peer = await listen((req, res) => {
      paths.push(req.url ?? '');
      void live(req, res).then((answered) => {
        if (!answered) res.writeHead(404).end();
      });
    });
  });
  afterAll(() => close(peer.server));

  it('lists the matches on the peer, oldest first, in one request per selector however its labels are ordered', async () => {
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const before = paths.length;
    const all = await client.read(
      {
        crd: 'loader',
        endpoint: peer.base,
        protocol: 'cr',
        selector: { matchLabels: { zone: 'a', tier: 'gold' } },
        strategy: 'all',
      },
      { namespace: 'shop' },
    );
    expect(all.url).toBe(
      `${peer.base}/katalog/loader/cr?labelSelector=tier%3Dgold%2Czone%3Da&detail=true&namespace=shop`,
    );
    expect(all.unavailable).toBeUndefined();
    expect(all.results?.map((r) => [r.name, r.status['phase'], r.spec['batch']])).toEqual([
      ['zeta', 'Loading-zeta', 4],
    ]);
    const gold = await client.read(
      { crd: 'loader', endpoint: peer.base, protocol: 'cr', selector: { matchLabels: { tier: 'gold' } } },
      { namespace: 'shop' },
    );
    // `first` is the oldest match (zeta, created before alpha), as an in-process read picks it.
    expect(gold.results?.map((r) => r.name)).toEqual(['zeta', 'alpha']);
    expect(gold.result).toMatchObject({
      found: true,
      name: 'zeta',
      namespace: 'shop',
      labels: { tier: 'gold' },
    });
    // The same selector written in another order is the same URL: answered from the cache.
    const again = await client.read(
      {
        crd: 'loader',
        endpoint: peer.base,
        protocol: 'cr',
        selector: { matchLabels: { tier: 'gold', zone: 'a' } },
        strategy: 'all',
      },
      { namespace: 'shop' },
    );
    expect(again.results?.map((r) => r.name)).toEqual(['zeta']);
    expect(paths.length - before).toBe(2);
    const none = await client.read(
      { crd: 'loader', endpoint: peer.base, selector: { matchLabels: { tier: 'bronze' } } },
      { namespace: 'shop' },
    );
    expect(none.result.found).toBe(false);
    expect(none.results).toEqual([]);
    expect(none.unavailable).toBeUndefined();
  });

  it('keeps only items carrying the labels when a peer ignores labelSelector or detail', async () => {
    const old = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          items: [
            { name: 'summary-only', namespace: 'shop', ready: true },
            { name: 'other', namespace: 'shop', labels: { tier: 'silver' } },
            { name: 'match', namespace: 'shop', labels: { tier: 'gold' }, status: { phase: 'Up' } },
          ],
        }),
      );
    });
    try {
      const read = await new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS }).read(
        { crd: 'loader', endpoint: old.base, protocol: 'cr', selector: { matchLabels: { tier: 'gold' } } },
        { namespace: 'shop' },
      );
      expect(read.results?.map((r) => r.name)).toEqual(['match']);
      expect(read.result).toMatchObject({ found: true, name: 'match', status: { phase: 'Up' } });
    } finally {
      await close(old.server);
    }
  });

  it('answers strategy all with a name as a list of that one CR, sharing the request of a first read (ADR 0108)', async () => {
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const before = paths.length;
    const byName = (name: string, strategy?: 'all'): Parameters<CrossHttpClient['read']>[0] => ({
      crd: 'loader',
      endpoint: peer.base,
      protocol: 'cr',
      selector: { name },
      ...(strategy == null ? {} : { strategy }),
    });
    const all = await client.read(byName('zeta', 'all'), { namespace: 'shop' });
    expect(all.url).toBe(`${peer.base}/katalog/loader/cr/shop/zeta`);
    expect(all.unavailable).toBeUndefined();
    expect(all.results?.map((r) => [r.found, r.name, r.status['phase']])).toEqual([
      [true, 'zeta', 'Loading-zeta'],
    ]);
    // A `first` read of the same name is the same URL: answered from the cache, as one object.
    const first = await client.read(byName('zeta'), { namespace: 'shop' });
    expect(first.results).toBeUndefined();
    expect(first.result).toMatchObject({ found: true, name: 'zeta' });
    const again = await client.read(byName('zeta', 'all'), { namespace: 'shop' });
    expect(again.results?.map((r) => r.name)).toEqual(['zeta']);
    expect(paths.length - before).toBe(1);
    // No such CR (the peer answers 404): an empty list, not a failure.
    const missing = await client.read(byName('omega', 'all'), { namespace: 'shop' });
    expect(missing.results).toEqual([]);
    expect(missing.result.found).toBe(false);
    expect(missing.unavailable).toBeUndefined();
    // Without a protocol, the peer's object path is read the same way.
    const object = await client.read(
      { crd: 'loader', endpoint: peer.base, selector: { name: 'zeta' }, strategy: 'all' },
      { namespace: 'shop' },
    );
    expect(object.url).toBe(`${peer.base}/katalog/crds/loader/objects/shop/zeta`);
  });

  it('answers strategy all by name from a peer that is down as an empty list with the failure', async () => {
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const down = await listen((_req, res) => void res.writeHead(503).end());
    try {
      const read = await client.read(
        { crd: 'loader', endpoint: down.base, protocol: 'cr', selector: { name: 'zeta' }, strategy: 'all' },
        { namespace: 'shop' },
      );
      expect(read.results).toEqual([]);
      expect(read.result.error).toContain('unexpected status 503');
      expect(read.unavailable).toContain('unexpected status 503');
    } finally {
      await close(down.server);
    }
  });

  it('names the field of every selector it cannot read, and sends nothing', async () => {
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const before = paths.length;
    const cases: [Parameters<CrossHttpClient['read']>[0], string][] = [
      [{ crd: 'loader', endpoint: peer.base, protocol: 'cr', selector: { name: '' } }, 'selector.name'],
      [
        { crd: 'loader', url: `${peer.base}/katalog/loader/cr`, selector: { matchLabels: { tier: 'gold' } } },
        'selector.matchLabels',
      ],
      [
        { crd: 'loader', endpoint: peer.base, protocol: 'events', selector: { matchLabels: { a: 'b' } } },
        'selector.matchLabels',
      ],
      [
        {
          crd: 'loader',
          endpoint: peer.base,
          protocol: 'cr',
          selector: { matchLabels: { tier: 'gold,zone=a' } },
        },
        'selector.matchLabels.tier',
      ],
      [
        {
          crd: 'loader',
          endpoint: peer.base,
          protocol: 'events',
          selector: { name: 'zeta' },
          strategy: 'all',
        },
        'strategy',
      ],
      [
        { crd: 'loader', endpoint: peer.base, protocol: 'cr', selector: { name: '' }, strategy: 'all' },
        'selector.name',
      ],
    ];
    for (const [declaration, field] of cases) {
      const read = await client.read(declaration, { namespace: 'shop' });
      expect(read.unusable?.field, JSON.stringify(declaration)).toBe(field);
      expect(read.unavailable).toContain(field);
      expect(read.result).toMatchObject({ found: false });
    }
    expect(paths.length).toBe(before);
  });
});
