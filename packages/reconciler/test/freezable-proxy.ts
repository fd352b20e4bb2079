/**
 * A tiny TCP proxy for integration tests: it forwards bytes between clients and an upstream
 * server, and `freeze()` silently stops forwarding on every connection open at that moment (the
 * sockets stay open, as with a dead NAT entry), while new connections keep working.
 */
import * as net from 'node:net';

/** FreezableProxy forwards TCP to an upstream and can black-hole its current connections. */
export interface FreezableProxy {
  /** Local port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Connections currently open. */
  readonly openConnections: number;
  /** Connections accepted so far. */
  readonly acceptedConnections: number;
  /** Stops forwarding on every connection open now; returns how many were frozen. */
  freeze(): number;
  close(): Promise<void>;
}

/** startFreezableProxy listens on an ephemeral loopback port and forwards to `host:port`. */
export async function startFreezableProxy(upstream: { host: string; port: number }): Promise<FreezableProxy> {
  const connections = new Set<{ frozen: boolean; client: net.Socket; server: net.Socket }>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const upstreamSocket = net.connect(upstream.port, upstream.host);
    const connection = { frozen: false, client, server: upstreamSocket };
    connections.add(connection);
    client.on('data', (data) => {
      if (!connection.frozen) upstreamSocket.write(data);
    });
    upstreamSocket.on('data', (data) => {
      if (!connection.frozen) client.write(data);
    });
    const end = (): void => {
      connections.delete(connection);
      client.destroy();
      upstreamSocket.destroy();
    };
    client.on('close', end);
    upstreamSocket.on('close', end);
    client.on('error', end);
    upstreamSocket.on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address == null || typeof address === 'string') throw new Error('proxy has no TCP address');
  return {
    port: address.port,
    get openConnections() {
      return connections.size;
    },
    get acceptedConnections() {
      return accepted;
    },
    freeze() {
      for (const connection of connections) connection.frozen = true;
      return connections.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of connections) {
          connection.client.destroy();
          connection.server.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
