// Local test servers are on loopback, which the address guard refuses unless allowed explicitly.
import { LOOPBACK_CIDRS } from './address-guard.js';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { AddressGuard, BlockedAddressError, blockedAddressReason } from './address-guard.js';
import { ExternalCaller, notCalledExternalResult } from './external.js';
import type { ExternalCallDeclaration, ExternalCallResult } from './external.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A local server with one route per behaviour; it records every request. */
function startServer(routes: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{
  server: Server;
  base: string;
  seen: Seen[];
}> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      routes(req, res, body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, base: `http://127.0.0.1:${port}`, seen });
    });
  });
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

let main: Awaited<ReturnType<typeof startServer>>;
let other: Awaited<ReturnType<typeof startServer>>;

const MIB = 1024 * 1024;
const flaky = new Map<string, number>();

beforeAll(async () => {
  other = await startServer((req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ headers: req.headers, body }));
  });
  main = await startServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path === '/ok') {
      res.writeHead(200, { 'content-type': 'application/json', 'X-Thing': 'a' });
      res.end('{"hello":"world","n":3}');
    } else if (path.startsWith('/status/')) {
      res.writeHead(Number(path.slice('/status/'.length)), { 'content-type': 'text/plain' });
      res.end('status body');
    } else if (path === '/slow') {
      // Never answers.
    } else if (path === '/invalid-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"not": json');
    } else if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked, no content-length
      const chunk = Buffer.alloc(64 * 1024, 'x');
      for (let i = 0; i < 16; i++) res.write(chunk);
      res.end('y'); // 1 MiB + 1 byte
    } else if (path === '/huge-declared') {
      const body = Buffer.alloc(MIB + 1, 'x');
      res.writeHead(200, { 'content-length': String(body.length) });
      res.end(body);
    } else if (path === '/exactly-1mib') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(Buffer.alloc(MIB, 'x'));
    } else if (path === '/echo') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
    } else if (path.startsWith('/redirect/')) {
      const n = Number(path.slice('/redirect/'.length));
      res.writeHead(302, { location: n <= 1 ? '/echo' : `/redirect/${n - 1}` });
      res.end();
    } else if (path.startsWith('/flaky/')) {
      // Fails until the n-th request of its id (/flaky/<id>/<n>), then answers 200.
      const [, , id = '', n = '0'] = path.split('/');
      const seen = (flaky.get(id) ?? 0) + 1;
      flaky.set(id, seen);
      res.writeHead(seen >= Number(n) ? 200 : 503);
      res.end();
    } else if (path === '/see-other') {
      res.writeHead(303, { location: '/echo' });
      res.end();
    } else if (path === '/to-other-origin') {
      res.writeHead(307, { location: `${other.base}/echo` });
      res.end();
    } else if (path === '/to-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
});

afterAll(async () => {
  await stop(main.server);
  await stop(other.server);
});

const ctx = { entry: 'website', namespace: 'shop' };

function call(
  caller: ExternalCaller,
  decl: Partial<ExternalCallDeclaration> & { url: string },
): Promise<ExternalCallResult> {
  return caller.call({ name: 'api', ...decl }, ctx);
}

describe('ExternalCaller against a local server', () => {
  it('returns status, body, parsed JSON and lowercase headers on success', async () => {
    const result = await call(new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS }), {
      url: `${main.base}/ok`,
    });
    expect(result).toMatchObject({
      called: true,
      ok: true,
      status: 200,
      body: '{"hello":"world","n":3}',
      json: { hello: 'world', n: 3 },
      error: '',
    });
    expect(result.headers['x-thing']).toBe('a');
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports 404 and 503 as not ok with the status, unless expectedStatus accepts them', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const notFound = await call(caller, { url: `${main.base}/status/404` });
    expect(notFound).toMatchObject({ called: true, ok: false, status: 404, body: 'status body', json: null });
    expect(notFound.error).toBe('unexpected status 404 (expected 2xx)');
    const unavailable = await call(caller, { url: `${main.base}/status/503` });
    expect(unavailable).toMatchObject({
      ok: false,
      status: 503,
      error: 'unexpected status 503 (expected 2xx)',
    });
    expect((await call(caller, { url: `${main.base}/status/404`, expectedStatus: [200, 404] })).ok).toBe(
      true,
    );
    expect((await call(caller, { url: `${main.base}/ok`, expectedStatus: 201 })).error).toBe(
      'unexpected status 200 (expected 201)',
    );
  });

  it('fails with a timeout when the server does not answer in time', async () => {
    const result = await call(new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS }), {
      url: `${main.base}/slow`,
      timeout: '200ms',
    });
    expect(result).toMatchObject({ called: true, ok: false, status: 0, error: 'timed out after 200ms' });
  });

  it("stops when the reconcile's signal aborts", async () => {
    const controller = new AbortController();
    const pending = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
    }).call({ name: 'api', url: `${main.base}/slow` }, { ...ctx, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('reconcile timed out')), 50);
    const result = await pending;
    expect(result.ok).toBe(false);
    expect(result.error).toBe('aborted: reconcile timed out');
  });

  it('keeps an invalid JSON body as text with json null', async () => {
    const result = await call(new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS }), {
      url: `${main.base}/invalid-json`,
    });
    expect(result).toMatchObject({ ok: true, status: 200, body: '{"not": json', json: null });
  });

  it('fails a call whose body exceeds 1 MiB, streamed or declared, and accepts exactly 1 MiB', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const streamed = await call(caller, { url: `${main.base}/huge` });
    expect(streamed).toMatchObject({ ok: false, status: 0, body: '', error: 'response body exceeds 1 MiB' });
    const declared = await call(caller, { url: `${main.base}/huge-declared` });
    expect(declared.error).toBe('response body exceeds 1 MiB');
    const exact = await call(caller, { url: `${main.base}/exactly-1mib` });
    expect(exact.ok).toBe(true);
    expect(exact.body).toHaveLength(MIB);
  });

  it('sends the credential from a Secret, read once per 30 s', async () => {
    const clock = new ManualClock(0);
    const reads: string[] = [];
    const caller = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
      clock,
      readSecret: async (namespace, name, key) => {
        reads.push(`${namespace}/${name}/${key}`);
        return name === 'dns-api' && key === 'token' ? 's3cret' : undefined;
      },
    });
    const decl = { url: `${main.base}/echo`, auth: { secretRef: { name: 'dns-api', key: 'token' } } };
    const first = await call(caller, decl);
    expect((first.json as { headers: Record<string, string> }).headers['authorization']).toBe(
      'Bearer s3cret',
    );
    await call(caller, decl);
    expect(reads).toEqual(['shop/dns-api/token']);
    clock.advance(30_000);
    await call(caller, decl);
    expect(reads).toEqual(['shop/dns-api/token', 'shop/dns-api/token']);

    const missing = await call(caller, {
      url: `${main.base}/echo`,
      auth: { secretRef: { name: 'dns-api', key: 'nope' } },
    });
    expect(missing).toMatchObject({
      called: true,
      ok: false,
      status: 0,
      error: 'auth secret shop/dns-api has no key nope',
    });
  });

  it('reads the credential from the Secret of secretRef.namespace when it is given', async () => {
    const reads: string[] = [];
    const caller = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
      readSecret: async (namespace, name, key) => {
        reads.push(`${namespace}/${name}/${key}`);
        return namespace === 'platform' ? 'from-platform' : 'from-cr-namespace';
      },
    });
    const result = await call(caller, {
      url: `${main.base}/echo`,
      auth: { secretRef: { name: 'billing-api', key: 'token', namespace: 'platform' } },
    });
    expect((result.json as { headers: Record<string, string> }).headers['authorization']).toBe(
      'Bearer from-platform',
    );
    expect(reads).toEqual(['platform/billing-api/token']);
  });

  it('sends an environment credential with a custom header and no scheme', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS, env: { API_KEY: 'k-123' } });
    const result = await call(caller, {
      url: `${main.base}/echo`,
      auth: { env: '${API_KEY}', header: 'X-Api-Key', scheme: '' },
    });
    const headers = (result.json as { headers: Record<string, string> }).headers;
    expect(headers['x-api-key']).toBe('k-123');
    expect(headers['authorization']).toBeUndefined();
    const unset = await call(caller, { url: `${main.base}/echo`, auth: { env: '$NOT_SET' } });
    expect(unset.error).toBe('auth environment variable NOT_SET is not set');
  });

  it('sends a map body as JSON with a content type, and a string body as given', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const json = await call(caller, { url: `${main.base}/echo`, method: 'post', body: { a: [1, 2] } });
    expect(json.json).toMatchObject({
      method: 'POST',
      body: '{"a":[1,2]}',
      headers: { 'content-type': 'application/json' },
    });
    const text = await call(caller, {
      url: `${main.base}/echo`,
      method: 'PUT',
      body: 'plain',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.json).toMatchObject({
      method: 'PUT',
      body: 'plain',
      headers: { 'content-type': 'text/plain' },
    });
  });

  it('follows up to 5 redirects and fails on the 6th', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const five = await call(caller, { url: `${main.base}/redirect/5` });
    expect(five).toMatchObject({ ok: true, status: 200 });
    const six = await call(caller, { url: `${main.base}/redirect/6` });
    expect(six).toMatchObject({ ok: false, status: 0, error: 'too many redirects (more than 5)' });
  });

  it('turns a POST into a GET on 303 and drops credentials on a redirect to another origin', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS, env: { TOKEN: 't' } });
    const seeOther = await call(caller, { url: `${main.base}/see-other`, method: 'POST', body: { x: 1 } });
    expect(seeOther.json).toMatchObject({ method: 'GET', body: '' });
    const moved = await call(caller, { url: `${main.base}/to-other-origin`, auth: { env: '$TOKEN' } });
    expect(moved.ok).toBe(true);
    expect((moved.json as { headers: Record<string, string> }).headers['authorization']).toBeUndefined();
    expect(main.seen.at(-1)?.headers['authorization']).toBe('Bearer t');
  });

  it('drops every declared header on a redirect to another origin, and keeps them on the same origin', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const headers = { 'X-Api-Key': 'hdr-secret-456', 'PRIVATE-TOKEN': 'glpat-x' };
    const moved = await call(caller, { url: `${main.base}/to-other-origin`, headers });
    expect(moved.ok).toBe(true);
    const received = (moved.json as { headers: Record<string, string> }).headers;
    expect(received['x-api-key']).toBeUndefined();
    expect(received['private-token']).toBeUndefined();
    expect(main.seen.at(-1)?.headers['x-api-key']).toBe('hdr-secret-456');
    const same = await call(caller, { url: `${main.base}/redirect/1`, headers });
    expect((same.json as { headers: Record<string, string> }).headers['x-api-key']).toBe('hdr-secret-456');
  });

  it('reuses a successful result for cacheFor, keyed by entry, name, method, url and body', async () => {
    const clock = new ManualClock(0);
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS, clock });
    const before = main.seen.length;
    const decl = { url: `${main.base}/ok`, cacheFor: '30s' };
    const first = await call(caller, decl);
    const second = await call(caller, decl);
    expect(second).toEqual(first);
    expect(main.seen.length - before).toBe(1);
    await call(caller, { ...decl, method: 'POST', body: 'a' });
    await call(caller, { ...decl, method: 'POST', body: 'b' });
    await caller.call({ name: 'api', ...decl }, { entry: 'other-entry', namespace: 'shop' });
    expect(main.seen.length - before).toBe(4);
    clock.advance(30_000);
    await call(caller, decl);
    expect(main.seen.length - before).toBe(5);
    expect(caller.stats().cacheHits).toBe(1);
    // Failures are not cached.
    await call(caller, { url: `${main.base}/status/503`, cacheFor: '30s' });
    await call(caller, { url: `${main.base}/status/503`, cacheFor: '30s' });
    expect(main.seen.length - before).toBe(7);
  });

  it('tells onCall how each call ended (the orkestra_external_calls_total metric)', async () => {
    const told: string[] = [];
    const caller = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
      onCall: (entry, name, result, seconds) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        told.push(`${entry} ${name} ${result}`);
      },
    });
    await call(caller, { url: `${main.base}/ok`, cacheFor: '30s' });
    await call(caller, { url: `${main.base}/ok`, cacheFor: '30s' });
    await call(caller, { url: `${main.base}/status/503` });
    await call(caller, { url: `${main.base}/slow`, timeout: '50ms' });
    expect(told).toEqual([
      'website api success',
      'website api cached',
      'website api error',
      'website api timeout',
    ]);
  });
});

describe('ExternalCaller address guard', () => {
  const noDns = async (): Promise<never> => {
    throw new Error('DNS must not be used');
  };

  it('refuses the cloud metadata address without connecting, and says so in error', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS, resolve: noDns });
    const result = await call(caller, { url: 'http://169.254.169.254/latest/meta-data/' });
    expect(result).toMatchObject({ called: true, ok: false, status: 0 });
    expect(result.error).toBe(
      'refused 169.254.169.254: cloud metadata address (allow link-local addresses to call it)',
    );
    expect(caller.stats().requests).toBe(0);
  });

  it('refuses link-local IPv6, Alibaba metadata and metadata.google.internal', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS, resolve: noDns });
    expect((await call(caller, { url: 'http://[fe80::1]/' })).error).toContain(
      'refused fe80::1: link-local address',
    );
    expect((await call(caller, { url: 'http://100.100.100.200/' })).error).toContain(
      'cloud metadata address',
    );
    expect((await call(caller, { url: 'http://[fd00:ec2::254]/' })).error).toContain(
      'cloud metadata address',
    );
    expect((await call(caller, { url: 'http://metadata.google.internal/computeMetadata/v1/' })).error).toBe(
      'refused metadata.google.internal: cloud metadata host (allow link-local addresses to call it)',
    );
  });

  it('checks every address a hostname resolves to', async () => {
    const caller = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
      resolve: async () => [
        { address: '127.0.0.1', family: 4 },
        { address: '169.254.10.10', family: 4 },
      ],
    });
    const result = await call(caller, { url: 'http://sneaky.test/' });
    expect(result.error).toBe(
      'refused 169.254.10.10 (resolved from sneaky.test): link-local address (allow link-local addresses to call it)',
    );
  });

  it('connects through the guarded resolver to allowed addresses (loopback is not link-local)', async () => {
    const port = new URL(main.base).port;
    const caller = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const result = await call(caller, { url: `http://api.internal.test:${port}/ok` });
    expect(result).toMatchObject({ ok: true, status: 200, error: '' });
  });

  it('checks every redirect hop', async () => {
    const result = await call(new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS }), {
      url: `${main.base}/to-metadata`,
    });
    expect(result.error).toContain('refused 169.254.169.254');
  });

  it('lets the operator allow link-local addresses', async () => {
    const guard = new AddressGuard({ allowLinkLocal: true, resolve: noDns });
    await expect(guard.check(new URL('http://169.254.169.254/'))).resolves.toBeUndefined();
    await expect(
      new AddressGuard({ resolve: noDns }).check(new URL('http://169.254.169.254/')),
    ).rejects.toThrow(/cloud metadata/);
  });
});

describe('blockedAddressReason', () => {
  const noDns = async (): Promise<never> => {
    throw new Error('no DNS in this test');
  };

  it.each([
    ['169.254.169.254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    // IPv6 spellings that embed an IPv4 address: mapped, compatible, translated, NAT64; hex or dotted.
    ['::ffff:a9fe:a9fe', 'cloud metadata'],
    ['[::ffff:a9fe:a9fe]', 'cloud metadata'],
    ['::FFFF:A9FE:A9FE', 'cloud metadata'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'cloud metadata'],
    ['0000:0000:0000:0000:0000:ffff:a9fe:a9fe', 'cloud metadata'],
    ['::a9fe:a9fe', 'cloud metadata'],
    ['::169.254.169.254', 'cloud metadata'],
    ['::ffff:0:a9fe:a9fe', 'cloud metadata'],
    ['::ffff:0:169.254.169.254', 'cloud metadata'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['64:ff9b::169.254.169.254', 'cloud metadata'],
    ['::ffff:6464:64c8', 'cloud metadata'],
    ['::ffff:a9fe:a01', 'link-local'],
    ['64:ff9b::a9fe:1', 'link-local'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each([
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
    'http://[::169.254.169.254]/',
    'http://[::ffff:0:169.254.169.254]/',
    'http://[64:ff9b::169.254.169.254]/',
  ])('refuses the URL %s after the URL parser rewrote its host into hex', async (url) => {
    const guard = new AddressGuard({ resolve: noDns });
    expect(() => guard.precheck(new URL(url))).toThrow(BlockedAddressError);
    await expect(guard.check(new URL(url))).rejects.toThrow(/cloud metadata/);
  });

  it('refuses a hostname that resolves to an IPv4-mapped metadata address', async () => {
    const guard = new AddressGuard({ resolve: async () => [{ address: '::ffff:a9fe:a9fe', family: 6 }] });
    await expect(guard.check(new URL('http://mapped.test/'))).rejects.toThrow(
      'refused ::ffff:a9fe:a9fe (resolved from mapped.test): cloud metadata address',
    );
  });

  // Loopback and unspecified are refused now: address-guard-spellings.test.ts.
  it.each([
    '10.0.0.1',
    '192.168.1.1',
    '169.253.255.255',
    '169.255.0.1',
    'fec0::1',
    'fd00::1',
    '100.100.100.201',
    '64:ff9b::a00:1',
    '::1:ffff:a9fe:a9fe',
    '1::ffff:a9fe:a9fe',
    'not-an-ip',
  ])('allows %s', (address) => {
    expect(blockedAddressReason(address)).toBeUndefined();
  });
});

describe('ExternalCaller.runAll', () => {
  it('runs in order, shows earlier results to later declarations, and stops at a failure without continueOnError', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const decls = [
      { name: 'first', path: '/ok' },
      { name: 'skipped', path: '/ok' },
      { name: 'second', path: '/status/503', continueOnError: true },
      { name: 'third', path: '/status/404' },
      { name: 'never', path: '/ok' },
    ];
    const seenResults: string[][] = [];
    const run = await caller.runAll(
      decls,
      (decl, results) => {
        seenResults.push(Object.keys(results));
        if (decl.name === 'skipped') return undefined;
        return { name: decl.name, url: `${main.base}${decl.path}` };
      },
      ctx,
    );
    expect(seenResults).toEqual([[], ['first'], ['first', 'skipped'], ['first', 'skipped', 'second']]);
    expect(run.results['first']?.ok).toBe(true);
    expect(run.results['skipped']).toEqual(notCalledExternalResult());
    expect(run.results['second']).toMatchObject({ called: true, ok: false, status: 503 });
    expect(run.failed).toEqual({
      name: 'third',
      error: 'unexpected status 404 (expected 2xx)',
      address: main.base,
    });
    expect(run.results['never']).toBeUndefined();
  });
});

describe('ExternalCaller.runAll retryBackoff (docs/reference/katalog.md §15.1)', () => {
  /** run runs one declaration on a manual clock and returns its result and the waits between attempts. */
  async function runWithClock(
    path: string,
    retryBackoff: { initial: string; max: string; multiplier: number; maxAttempts: number },
  ) {
    const clock = new ManualClock(0);
    const caller = new ExternalCaller({ clock, allowAddresses: LOOPBACK_CIDRS });
    let settled = false;
    const done = caller
      .runAll([{ name: 'probe', retryBackoff }], () => ({ name: 'probe', url: `${main.base}${path}` }), ctx)
      .finally(() => {
        settled = true;
      });
    const waits: number[] = [];
    while (!settled) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      // Between attempts only the retry's own timer is pending (a call's deadline is cleared when it ends).
      const due = clock.nextDueAt;
      if (clock.pendingTimers === 1 && due != null && due - clock.now() < 10_000) {
        waits.push(due - clock.now());
        clock.advance(due - clock.now());
      }
    }
    return { run: await done, waits };
  }

  it('retries with exact delays, capped at max, and stops at maxAttempts', async () => {
    const { run, waits } = await runWithClock('/flaky/a/99', {
      initial: '1s',
      max: '3s',
      multiplier: 2,
      maxAttempts: 4,
    });
    expect(waits).toEqual([1000, 2000, 3000]);
    expect(flaky.get('a')).toBe(4);
    expect(run.failed?.name).toBe('probe');
  });

  it('stops retrying at the first success', async () => {
    const { run, waits } = await runWithClock('/flaky/b/2', {
      initial: '500ms',
      max: '30s',
      multiplier: 1.5,
      maxAttempts: 5,
    });
    expect(waits).toEqual([500]);
    expect(run.failed).toBeUndefined();
    expect(run.results['probe']?.ok).toBe(true);
  });
});
