import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServers, listen, routeServer } from '../../test/local-servers.js';
import { createGate } from './auth.js';
import { LOOPBACK_HOSTS, controlCenterRoutes } from './server.js';
import type { ControlCenterSource } from './server.js';

// The Control Center's front door (docs/adr/0031): Host check, the gate before every route (the
// upstream proxy included), the local token exchanged for a cookie, nothing of the viewer's sent on.

const TOKEN = 'local-token-123';
const seen: IncomingHttpHeaders[] = [];
let upstream: Server;
let redirector: Server;
let front: Server;
let port = 0;

const source = {
  operator: 'op',
  katalog: () => ({ spec: { crds: {} } }),
  engine: () => ({ entries: new Map(), isReady: () => true }),
  leader: () => true,
  rollout: () => undefined,
  events: { subscribe: () => () => undefined, list: () => [] },
  stats: () => Promise.resolve({}),
} as unknown as ControlCenterSource;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"upstream":true}');
  });
  redirector = createServer((_request, response) => {
    response.writeHead(302, { location: 'http://169.254.169.254/' }).end();
  });
  const up = await listen(upstream);
  const redirect = await listen(redirector);
  const route = controlCenterRoutes({
    source,
    gate: createGate({ mode: 'local', localToken: TOKEN }),
    upstreams: [`http://127.0.0.1:${up}`, `http://127.0.0.1:${redirect}`],
    hosts: LOOPBACK_HOSTS,
    localToken: TOKEN,
    upstreamHeaders: () => Promise.resolve({ authorization: `Bearer ${TOKEN}` }),
  });
  front = routeServer(route);
  port = await listen(front);
});

afterAll(async () => {
  await closeServers([front, upstream, redirector]);
});

const get = (path: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`http://127.0.0.1:${port}${path}`, { headers, redirect: 'manual' });

/** rawGet sends a Host header of our choice (fetch does not let a caller set it). */
function rawGet(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
      response.resume();
      done(response.statusCode ?? 0);
    });
    sent.on('error', fail);
    sent.end();
  });
}

describe('controlCenterRoutes in local mode', () => {
  it('gates the upstream proxy like every other route', async () => {
    expect((await get('/api/v1/upstreams/0/katalog')).status).toBe(401);
    expect((await get('/api/v1')).status).toBe(401);
    expect(seen).toHaveLength(0);
  });

  it('refuses a Host that is not a served name (DNS rebinding)', async () => {
    const cookie = `orkestra-cc=${TOKEN}`;
    expect(await rawGet('/api/v1', { host: `evil.example:${port}`, cookie })).toBe(403);
    expect(await rawGet('/ui/', { host: `evil.example:${port}`, cookie })).toBe(403);
    expect(await rawGet('/api/v1', { host: `127.0.0.1.nip.io:${port}`, cookie })).toBe(403);
    expect(await rawGet('/api/v1', { host: `localhost:${port}`, cookie })).toBe(200);
    expect(await rawGet('/api/v1', { host: `[::1]:${port}`, cookie })).toBe(200);
    expect(await rawGet('/api/v1', { host: `127.0.0.1:${port}`, cookie })).toBe(200);
  });

  it('exchanges the token in the URL for an HttpOnly SameSite=Strict cookie', async () => {
    expect((await get('/ui/')).status).toBe(401);
    expect((await get('/ui/?token=wrong')).status).toBe(401);
    const exchange = await get(`/ui/?token=${TOKEN}`);
    expect(exchange.status).toBe(303);
    expect(exchange.headers.get('location')).toBe('/ui/');
    expect(exchange.headers.get('set-cookie')).toBe(
      `orkestra-cc=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`,
    );
  });

  it('sends upstreams its own credentials, never the viewer’s, and follows no redirect', async () => {
    const answer = await get('/api/v1/upstreams/0/katalog', { cookie: `orkestra-cc=${TOKEN}; viewer=1` });
    expect(answer.status).toBe(200);
    expect(seen.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen.at(-1)?.cookie).toBeUndefined();
    const redirected = await get('/api/v1/upstreams/1/katalog', { cookie: `orkestra-cc=${TOKEN}` });
    expect(redirected.status).toBe(502);
  });
});
