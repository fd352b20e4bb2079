import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../clock.js';
import { LOOPBACK_CIDRS } from '../../../address-guard.js';
import { ExternalCaller } from '../../../external.js';

/**
 * `protocol: prometheus` over a local server that answers like Prometheus' HTTP API
 * (docs/reference/katalog.md §15.1.1). The real server is in test/protocols.integration.test.ts.
 */

const seen: string[] = [];
let server: Server;
let base: string;

const vector = (...values: string[]) => ({
  status: 'success',
  data: { resultType: 'vector', result: values.map((v) => ({ metric: {}, value: [1, v] })) },
});

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    const query = url.searchParams.get('query') ?? '';
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (query === 'bad(') send(400, { status: 'error', errorType: 'bad_data', error: 'parse error' });
    else if (query === 'overloaded') send(503, { status: 'error', errorType: 'unavailable', error: 'busy' });
    else if (url.pathname.endsWith('/api/v1/query_range'))
      send(200, {
        status: 'success',
        data: {
          resultType: 'matrix',
          result: [
            {
              metric: {},
              values: [
                [1, '4'],
                [2, '9'],
              ],
            },
          ],
        },
      });
    else if (url.pathname.endsWith('/api/v1/query')) send(200, vector('42', '7'));
    else send(404, 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ctx = { entry: 'gauge', namespace: 'default' };
const retry = { initial: '1ms', max: '1ms', multiplier: 1, maxAttempts: 3 };

describe('protocol: prometheus', () => {
  it('queries /api/v1/query under a base URL and keeps upstream’s result and raw', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const result = await caller.call(
      { name: 'q', protocol: 'prometheus', url: `${base}/prom/`, query: 'up{job="a b"}' },
      ctx,
    );
    expect(result).toMatchObject({ called: true, ok: true, status: 200, result: '42', error: '' });
    expect(result.raw).toEqual(vector('42', '7'));
    expect(new URL(seen.at(-1) ?? '', base).pathname).toBe('/prom/api/v1/query');
    expect(new URL(seen.at(-1) ?? '', base).searchParams.get('query')).toBe('up{job="a b"}');
  });

  it('keeps a URL that already names the endpoint, as upstream does', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    await caller.call({ name: 'q', protocol: 'prometheus', url: `${base}/api/v1/query`, query: 'up' }, ctx);
    expect(new URL(seen.at(-1) ?? '', base).pathname).toBe('/api/v1/query');
  });

  it('a range query ends now and starts `duration` ago; result is the last sample', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS, clock });
    const result = await caller.call(
      {
        name: 'q',
        protocol: 'prometheus',
        url: base,
        query: 'rate(x[5m])',
        range: { duration: '1h', step: '5m' },
      },
      ctx,
    );
    const params = new URL(seen.at(-1) ?? '', base).searchParams;
    expect([params.get('start'), params.get('end'), params.get('step')]).toEqual([
      '1699996400',
      '1700000000',
      '300',
    ]);
    expect(result).toMatchObject({ ok: true, result: '9' });
  });

  it('a query Prometheus refuses is not retried; an unavailable server is', async () => {
    const caller = new ExternalCaller({ allowAddresses: LOOPBACK_CIDRS });
    const count = (query: string): number =>
      seen.filter((u) => new URL(u, base).searchParams.get('query') === query).length;
    const bad = await caller.runAll(
      [{ name: 'q', retryBackoff: retry }],
      () => ({ name: 'q', protocol: 'prometheus', url: base, query: 'bad(' }),
      ctx,
    );
    expect(bad.failed).toEqual({ name: 'q', error: 'prometheus: bad_data: parse error', address: base });
    expect(count('bad(')).toBe(1);
    const busy = await caller.runAll(
      [{ name: 'q', retryBackoff: retry }],
      () => ({ name: 'q', protocol: 'prometheus', url: base, query: 'overloaded' }),
      ctx,
    );
    expect(busy.failed?.error).toBe('prometheus: unavailable: busy');
    expect(count('overloaded')).toBe(3);
  });

  it('goes through the address guard', async () => {
    const caller = new ExternalCaller();
    const result = await caller.call({ name: 'q', protocol: 'prometheus', url: base, query: 'up' }, ctx);
    expect(result).toMatchObject({ called: true, ok: false });
    expect(result.error).toMatch(/refused 127\.0\.0\.1: loopback/);
  });
});
