import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from './address-guard.js';
import { ExternalCaller, callTarget } from './external.js';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"secretField":"body-content-7781"}');
    } else if (req.url === '/fail') {
      res.writeHead(503);
      res.end('down: body-content-7781');
    } // anything else never answers
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('ExternalCaller outcomes (docs/reference/runtime.md §23.2)', () => {
  it('keeps each call’s last outcome by entry, call and protocol: ok, error class, timeout; never a body or credential', async () => {
    const caller = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
      env: { TOKEN: 'tok-secret-4421' },
    });
    const web = { entry: 'website', namespace: 'shop' };
    const auth = { env: '$TOKEN', header: 'Authorization', scheme: 'Bearer' };
    await caller.call({ name: 'api', url: `${base}/ok`, auth, cacheFor: '1m' }, web);
    // A cache hit is not a call: the outcome and its count stay.
    await caller.call({ name: 'api', url: `${base}/ok`, auth, cacheFor: '1m' }, web);
    await caller.call({ name: 'health', url: `${base}/fail`, auth }, web);
    await caller.call({ name: 'slow', url: `${base}/slow`, timeout: '100ms' }, web);
    await caller.call({ name: 'meta', url: 'http://169.254.169.254/latest' }, web);
    await caller.call({ name: 'keyed', url: `${base}/ok`, auth: { env: '$MISSING' } }, web);
    await caller.call({ name: 'api', url: `${base}/fail` }, { entry: 'backend', namespace: 'shop' });
    const outcomes = caller.outcomes();
    expect(
      outcomes.map((o) => [o.entry, o.call, o.protocol, o.outcome, o.errorClass, o.status, o.calls]),
    ).toEqual([
      ['backend', 'api', 'http', 'error', 'answer', 503, 1],
      ['website', 'api', 'http', 'ok', undefined, 200, 1],
      ['website', 'health', 'http', 'error', 'answer', 503, 1],
      ['website', 'keyed', 'http', 'error', 'credential', undefined, 1],
      ['website', 'meta', 'http', 'error', 'address', undefined, 1],
      ['website', 'slow', 'http', 'timeout', undefined, undefined, 1],
    ]);
    for (const o of outcomes) {
      expect(o.durationMs).toBeGreaterThanOrEqual(0);
      expect(o.atMs).toBeGreaterThan(0);
    }
    const text = JSON.stringify(outcomes);
    expect(text).not.toContain('body-content-7781');
    expect(text).not.toContain('tok-secret-4421');
    // A later call replaces the outcome and counts.
    await caller.call({ name: 'health', url: `${base}/ok` }, web);
    expect(caller.outcomes().find((o) => o.call === 'health')).toMatchObject({
      outcome: 'ok',
      calls: 2,
      failures: 1,
    });
    await caller.close();
  });
});

describe('callTarget', () => {
  it('keeps the scheme and the hosts, and drops every user, password, path and query', () => {
    expect(callTarget('postgres://reader:s3cret@db.data:5432/jobs?sslmode=require')).toBe(
      'postgres://db.data:5432',
    );
    expect(callTarget('https://api.example.com/v1/tok-in-path?key=abc#x')).toBe('https://api.example.com');
    expect(callTarget('kafka://k-0:9092,k-1:9092?sasl=plain')).toBe('kafka://k-0:9092,k-1:9092');
    expect(callTarget('k-0:9092,k-1:9092')).toBe('k-0:9092,k-1:9092');
    expect(callTarget('redis://:pw@[::1]:6379/0')).toBe('redis://[::1]:6379');
    // A raw `/`, `?` or `#` in a password, or an address in a query: no part of the secret shows.
    expect(callTarget('postgres://u:pa/ss@db:5432/x')).toBe('postgres://db:5432');
    expect(callTarget('postgres://u:pa?ss@db:5432/x')).toBe('postgres://…');
    expect(callTarget('postgres://u:pa#ss@db:5432/x')).toBe('postgres://…');
    expect(callTarget('http://h/x?token=abc@def')).toBe('http://…');
  });
});

describe('ExternalCaller per-CR outcomes (docs/reference/runtime.md §23.2)', () => {
  it('keeps each CR’s last outcome per call with its target, never the DSN’s password', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const shop = { entry: 'website', namespace: 'shop', cr: 'checkout' };
    await caller.call({ name: 'api', url: `${base}/ok` }, shop);
    await caller.call({ name: 'api', url: `${base}/fail` }, { ...shop, cr: 'cart' });
    // The postgres unit refuses a password in the URL before connecting: an outcome all the same.
    await caller.call(
      {
        name: 'jobs',
        protocol: 'postgres',
        url: 'postgres://reader:dsn-pass-3310@127.0.0.1:1/jobs',
        query: 'SELECT 1',
      },
      shop,
    );
    const mine = caller.crOutcomes('website', 'shop', 'checkout');
    expect(mine.map((o) => [o.call, o.protocol, o.target, o.outcome, o.cr])).toEqual([
      ['api', 'http', base, 'ok', 'checkout'],
      ['jobs', 'postgres', 'postgres://127.0.0.1:1', 'error', 'checkout'],
    ]);
    expect(caller.crOutcomes('website', 'shop', 'cart')).toMatchObject([
      { call: 'api', outcome: 'error', status: 503 },
    ]);
    expect(JSON.stringify([mine, caller.outcomes()])).not.toContain('dsn-pass-3310');
    // A call made without a CR (no name in its context) keeps only the per-call outcome.
    await caller.call({ name: 'api', url: `${base}/ok` }, { entry: 'website', namespace: 'shop' });
    expect(caller.crOutcomes('website', 'shop', '')).toEqual([]);
    await caller.close();
  });
});
