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

beforeAll(async () => {
  target = createServer((request, response) => {
    if (request.url === '/ok')
      response.writeHead(200, { 'content-type': 'application/json' }).end(`{"v":"${BODY}"}`);
    else if (request.url?.startsWith('/fail') === true) response.writeHead(500).end(BODY);
    // anything else never answers
  });
  targetBase = `http://127.0.0.1:${await listen(target)}`;
  const source = {
    operator: 'op',
    katalog: () => ({ spec: { crds: {} } }),
    engine: () => ({ entries: new Map(), isReady: () => true, hookServices: { external: caller } }),
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
