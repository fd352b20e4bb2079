import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalCaller } from '@orkestra/reconciler';
import { closeServers, listen, routeServer } from '../../test/local-servers.js';
import { createGate } from './auth.js';
import { LOOPBACK_HOSTS, controlCenterRoutes } from './server.js';
import type { ControlCenterSource } from './server.js';

// GET /api/v1/calls (docs/reference/runtime.md §23.2): each external call's last outcome, read
// from the runtime's real ExternalCaller after real calls to a local server.

const TOKEN = 'local-token-ext';
const SECRET = 'tok-secret-9931';
const BODY = 'body-content-5512';
let target: Server;
let front: Server;
let port = 0;
let targetBase = '';
const caller = new ExternalCaller({
  allowAddresses: ['127.0.0.0/8'],
  env: { TOKEN: SECRET },
});

/** The CR `shop/checkout` of the entry `website`, as its cache holds it. */
const checkout = {
  apiVersion: 'web.example.com/v1',
  kind: 'Website',
  metadata: { name: 'checkout', namespace: 'shop', uid: 'u-1' },
  spec: {},
};
const websiteEntry = {
  controller: {
    crd: {
      apiTypes: { group: 'web.example.com', plural: 'websites' },
      // No hook declared: every unit's compiled declarations are an empty list.
      hooks: new Proxy({}, { get: () => [] }),
    },
  },
  cache: {
    getByName: (ns: string | undefined, name: string) =>
      ns === 'shop' && name === 'checkout' ? checkout : undefined,
    list: () => [checkout],
  },
};

beforeAll(async () => {
  target = createServer((request, response) => {
    if (request.url === '/ok' || request.url?.startsWith('/ok?') === true)
      response.writeHead(200, { 'content-type': 'application/json' }).end(`{"v":"${BODY}"}`);
    else if (request.url?.startsWith('/fail') === true) response.writeHead(500).end(BODY);
    // anything else never answers
  });
  targetBase = `http://127.0.0.1:${await listen(target)}`;
  const source = {
    operator: 'op',
    katalog: () => ({ spec: { crds: {} } }),
    engine: () => ({
      entries: new Map([['website', websiteEntry]]),
      children: { listAllOwned: () => [] },
      isReady: () => true,
      hookServices: { external: caller },
    }),
    leader: () => true,
    rollout: () => undefined,
    events: { subscribe: () => () => undefined, list: () => [] },
    stats: () => Promise.resolve({}),
  } as unknown as ControlCenterSource;
  const route = controlCenterRoutes({
    source,
    gate: createGate({ mode: 'local', localToken: TOKEN }),
    hosts: LOOPBACK_HOSTS,
    localToken: TOKEN,
  });
  front = routeServer(route);
  port = await listen(front);
});

afterAll(async () => {
  await caller.close();
  await closeServers([front, target]);
});

const get = (path: string, cookie = `orkestra-cc=${TOKEN}`): Promise<Response> =>
  fetch(`http://127.0.0.1:${port}${path}`, { headers: { cookie } });

describe('GET /api/v1/calls', () => {
  it('is gated', async () => {
    expect((await get('/api/v1/calls', '')).status).toBe(401);
  });

  it('shows each call’s last outcome, when and how long, never a credential or a body', async () => {
    expect(await (await get('/api/v1/calls')).json()).toEqual({ items: [] });
    const ctx = { entry: 'website', namespace: 'shop' };
    const auth = { env: '$TOKEN', header: 'Authorization', scheme: 'Bearer' };
    await caller.call({ name: 'api', url: `${targetBase}/ok`, auth }, ctx);
    await caller.call(
      { name: 'db', protocol: 'prometheus', url: `${targetBase}/fail`, query: 'up', auth, timeout: '5s' },
      ctx,
    );
    await caller.call({ name: 'slow', url: `${targetBase}/slow`, timeout: '100ms' }, ctx);
    const answer = await get('/api/v1/calls');
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(BODY);
    const { items } = JSON.parse(text) as { items: Record<string, unknown>[] };
    expect(
      items.map((i) => [i['entry'], i['call'], i['protocol'], i['outcome'], i['errorClass'], i['status']]),
    ).toEqual([
      ['website', 'api', 'http', 'ok', undefined, 200],
      ['website', 'db', 'prometheus', 'error', 'answer', 500],
      ['website', 'slow', 'http', 'timeout', undefined, undefined],
    ]);
    for (const item of items) {
      expect(Date.parse(String(item['at']))).not.toBeNaN();
      expect(typeof item['durationMs']).toBe('number');
      expect(Object.keys(item).sort()).toEqual(
        expect.arrayContaining([
          'at',
          'call',
          'calls',
          'durationMs',
          'entry',
          'failures',
          'outcome',
          'protocol',
        ]),
      );
    }
  });
});

describe('GET /api/v1/entries/<entry>/crs/<namespace>/<name>: the CR’s calls', () => {
  it('shows each call’s last outcome for this CR: protocol, target, outcome, when, how long; never the DSN’s password', async () => {
    const dsnPassword = 'dsn-pass-8142';
    const ctx = { entry: 'website', namespace: 'shop', cr: 'checkout' };
    await caller.call({ name: 'api', url: `${targetBase}/ok?token=${SECRET}` }, ctx);
    // Refused before connecting (a password in the URL): an outcome all the same.
    await caller.call(
      {
        name: 'jobs',
        protocol: 'postgres',
        url: `postgres://reader:${dsnPassword}@127.0.0.1:1/jobs`,
        query: 'SELECT 1 AS n',
      },
      ctx,
    );
    await caller.call({ name: 'api', url: `${targetBase}/fail` }, { ...ctx, cr: 'cart' });
    const answer = await get('/api/v1/entries/website/crs/shop/checkout');
    expect(answer.status).toBe(200);
    const text = await answer.text();
    for (const secret of [dsnPassword, SECRET, BODY, 'reader']) expect(text).not.toContain(secret);
    const { calls } = JSON.parse(text) as { calls: Record<string, unknown>[] };
    expect(calls.map((c) => [c['call'], c['protocol'], c['target'], c['outcome'], c['errorClass']])).toEqual([
      ['api', 'http', targetBase, 'ok', undefined],
      ['jobs', 'postgres', 'postgres://127.0.0.1:1', 'error', 'refused'],
    ]);
    for (const call of calls) {
      expect(Date.parse(String(call['at']))).not.toBeNaN();
      expect(typeof call['durationMs']).toBe('number');
    }
    // The per-call list shows the last target too, without the password.
    const all = await (await get('/api/v1/calls')).text();
    expect(all).not.toContain(dsnPassword);
    expect(all).toContain('"target":"postgres://127.0.0.1:1"');
  });
});
