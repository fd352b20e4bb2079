// Local test servers are on loopback, which the address guard refuses unless allowed explicitly.
import { LOOPBACK_CIDRS } from './address-guard.js';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { CrossHttpClient, liveApiUrl } from './cross-http.js';

/**
 * The HTTP side of the one cross-read path (ADR 0043): upstream's Live API paths per protocol, a
 * whole `url`, answers cached for `cacheFor` and shared across readers, a peer that goes down kept
 * on its last good answer for `cacheFor` and reported unavailable, credentials never shown.
 */

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((done) => s.close(() => done()))));
});

interface Peer {
  readonly base: string;
  readonly port: number;
  readonly seen: { path: string; authorization: string | undefined }[];
}

async function peer(port = 0, answer?: (req: IncomingMessage, res: ServerResponse) => void): Promise<Peer> {
  const seen: Peer['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (answer != null) return answer(req, res);
    const path = req.url ?? '';
    const body: Record<string, unknown> | undefined = path.endsWith('/health')
      ? { name: 'loader', state: 'healthy', healthy: true, queueDepth: 7 }
      : path === '/katalog/loader'
        ? { name: 'loader', metrics: { queueDepth: 61, workers: 3 } }
        : path === '/katalog/loader/cr/shop/my-loader'
          ? { name: 'my-loader', namespace: 'shop', status: { phase: 'Ready' }, children: {} }
          : undefined;
    res.writeHead(body == null ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  const bound = (server.address() as AddressInfo).port;
  return { base: `http://127.0.0.1:${bound}`, port: bound, seen };
}

describe('liveApiUrl', () => {
  it('builds upstream’s path per protocol', () => {
    expect(liveApiUrl('http://h:8080/', 'loader', 'cr', 'shop', 'a')).toBe(
      'http://h:8080/katalog/loader/cr/shop/a',
    );
    expect(liveApiUrl('http://h:8080', 'loader', 'cr', undefined, 'a')).toBe(
      'http://h:8080/katalog/loader/cr/a',
    );
    expect(liveApiUrl('http://h:8080', 'loader', 'events', 'shop', 'a')).toBe(
      'http://h:8080/katalog/loader/cr/shop/a/events',
    );
    expect(liveApiUrl('http://h:8080', 'loader', 'health', 'shop', 'a')).toBe(
      'http://h:8080/katalog/loader/health',
    );
    expect(liveApiUrl('http://h:8080', 'loader', 'metrics', 'shop', '')).toBe('http://h:8080/katalog/loader');
    expect(liveApiUrl('http://h:8080', 'loader', 'info', undefined, '')).toBe('http://h:8080/katalog/loader');
  });

  it('names a given namespace for the reads the peer reviews as a list, and only for those', () => {
    expect(liveApiUrl('http://h:8080', 'loader', 'health', 'shop', '', 'loader-system')).toBe(
      'http://h:8080/katalog/loader/health?namespace=loader-system',
    );
    expect(liveApiUrl('http://h:8080', 'loader', 'metrics', 'shop', '', 'a b')).toBe(
      'http://h:8080/katalog/loader?namespace=a%20b',
    );
    expect(liveApiUrl('http://h:8080', 'loader', 'info', undefined, '', '')).toBe(
      'http://h:8080/katalog/loader',
    );
    expect(liveApiUrl('http://h:8080', 'loader', 'cr', 'shop', 'a', 'shop')).toBe(
      'http://h:8080/katalog/loader/cr/shop/a',
    );
  });
});

describe('HTTP cross reads of upstream-shaped peers', () => {
  it('reads cr, health and metrics answers as upstream’s readers do (the JSON object, found set)', async () => {
    const loader = await peer();
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const read = (protocol: 'cr' | 'health' | 'metrics') =>
      client.read(
        { crd: 'loader', endpoint: loader.base, protocol, selector: { name: 'my-loader' } },
        { namespace: 'shop' },
      );
    expect((await read('cr')).result).toMatchObject({
      found: true,
      name: 'my-loader',
      status: { phase: 'Ready' },
    });
    expect((await read('health')).result).toMatchObject({ found: true, state: 'healthy', queueDepth: 7 });
    expect((await read('metrics')).result).toMatchObject({ found: true, metrics: { queueDepth: 61 } });
    expect(loader.seen.map((s) => s.path)).toEqual([
      '/katalog/loader/cr/shop/my-loader',
      '/katalog/loader/health',
      '/katalog/loader',
    ]);
  });

  it('reads a whole url, 404 as not found', async () => {
    const api = await peer();
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS });
    const found = await client.read(
      { crd: 'payments', url: `${api.base}/katalog/loader`, selector: {} },
      { namespace: 'shop' },
    );
    expect(found.result).toMatchObject({ found: true, metrics: { queueDepth: 61 } });
    const missing = await client.read(
      { crd: 'payments', url: `${api.base}/nothing`, selector: {} },
      { namespace: 'shop' },
    );
    expect(missing.result.found).toBe(false);
    expect(missing.unavailable).toBeUndefined();
  });

  it('asks a peer once per cacheFor for any number of reading CRs', async () => {
    const loader = await peer();
    const clock = new ManualClock(1_000_000);
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS, clock });
    const decl = {
      crd: 'loader',
      endpoint: loader.base,
      protocol: 'health' as const,
      selector: {},
      cacheFor: '10s',
    };
    await Promise.all(Array.from({ length: 50 }, (_, i) => client.read(decl, { namespace: `ns-${i}` })));
    expect(loader.seen).toHaveLength(1);
    clock.advance(9_000);
    await client.read(decl, { namespace: 'shop' });
    expect(loader.seen).toHaveLength(1);
    clock.advance(2_000);
    await client.read(decl, { namespace: 'shop' });
    expect(loader.seen).toHaveLength(2);
  });

  it('keeps the last good answer for cacheFor when the peer stops, reports it unavailable, and recovers', async () => {
    const first = await peer();
    const clock = new ManualClock(1_000_000);
    const client = new CrossHttpClient({ allowAddresses: LOOPBACK_CIDRS, clock });
    const decl = {
      crd: 'loader',
      endpoint: first.base,
      protocol: 'cr' as const,
      selector: { name: 'my-loader' },
      cacheFor: '10s',
    };
    expect((await client.read(decl, { namespace: 'shop' })).unavailable).toBeUndefined();
    await new Promise<void>((done) => servers.splice(0)[0]?.close(() => done()));
    clock.advance(11_000);
    const down = await client.read(decl, { namespace: 'shop' });
    expect(down.result).toMatchObject({ found: true, status: { phase: 'Ready' } });
    expect(down.unavailable).toMatch(
      new RegExp(`ECONNREFUSED.*GET ${first.base}/katalog/loader/cr/shop/my-loader`),
    );
    expect(down.expiresAt).toBe(1_000_000 + 11_000 + 5_000);
    // An answer is kept, so the reader renders from it.
    expect(down.noAnswer).toBeUndefined();
    clock.advance(6_000);
    expect((await client.read(decl, { namespace: 'shop' })).result.found).toBe(true);
    clock.advance(6_000);
    const gone = await client.read(decl, { namespace: 'shop' });
    expect(gone.result.found).toBe(false);
    expect(gone.unavailable).toMatch(/ECONNREFUSED/);
    // None is left: the reader waits instead of rendering from nothing.
    expect(gone.noAnswer).toBe(true);
    const again = await peer(first.port);
    clock.advance(6_000);
    const back = await client.read(decl, { namespace: 'shop' });
    expect(back.unavailable).toBeUndefined();
    expect(back.noAnswer).toBeUndefined();
    expect(back.result).toMatchObject({ found: true, status: { phase: 'Ready' } });
    expect(again.seen).toHaveLength(1);
  });

  it('sends the Katalog’s credential, keeps it out of URLs and messages, and never shares its answer', async () => {
    const loader = await peer(0, (_req, res) => {
      res.writeHead(500).end();
    });
    const client = new CrossHttpClient({
      allowAddresses: LOOPBACK_CIDRS,
      token: () => Promise.resolve('operator-token'),
    });
    const withCredential = await client.read(
      {
        crd: 'loader',
        endpoint: loader.base.replace('http://', 'http://user:hunter2@'),
        protocol: 'health',
        selector: {},
        credential: { id: 'env:LOADER_TOKEN', value: 's3cr3t' },
      },
      { namespace: 'shop' },
    );
    expect(loader.seen[0]?.authorization).toBe('Bearer s3cr3t');
    expect(JSON.stringify(withCredential)).not.toMatch(/hunter2|s3cr3t/);
    expect(withCredential.unavailable).toMatch(/unexpected status 500/);
    await client.read(
      { crd: 'loader', endpoint: loader.base, protocol: 'health', selector: {}, sendToken: true },
      { namespace: 'shop' },
    );
    expect(loader.seen[1]?.authorization).toBe('Bearer operator-token');
  });
});
