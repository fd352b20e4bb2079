/**
 * Local HTTP servers for the route tests: listening on a free loopback port, a front server that
 * answers through one route (404 when the route does not answer), and closing them with their
 * open connections.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExtraRoute } from '../src/process/http-server.js';

/** listen starts `server` on a free port of 127.0.0.1 and returns the port. */
export function listen(server: Server): Promise<number> {
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)),
  );
}

/** routeServer is a server that answers every request through `route`, 404 when it does not answer. */
export function routeServer(route: ExtraRoute): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    void Promise.resolve(route(request, response, url)).then((answered) => {
      if (!answered) response.writeHead(404).end();
    });
  });
}

/** closeServers closes each server after dropping its open connections. */
export async function closeServers(servers: readonly Server[]): Promise<void> {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
}
