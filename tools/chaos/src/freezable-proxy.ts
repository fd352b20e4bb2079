/**
 * A TCP proxy for fault injection: it forwards bytes between clients and an upstream server, and
 * `freeze()` silently stops forwarding on every connection open at that moment (the sockets stay
 * open, as behind a dead NAT entry or a stuck load balancer), while new connections keep working.
 * The idea is the reconciler's integration-test proxy; it lives here so no package imports
 * another package's test files.
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
  /** freeze stops forwarding on every connection open now and returns how many were frozen. */
  freeze(): number;
  /** close destroys every connection and stops listening. */
  close(): Promise<void>;
}

/** FreezableProxyOptions says where a {@link FreezableProxy} forwards to. */
export interface FreezableProxyOptions {
  readonly host: string;
  readonly port: number;
}

interface Connection {
  frozen: boolean;
  readonly client: net.Socket;
  readonly upstream: net.Socket;
}

/**
 * startFreezableProxy listens on an ephemeral loopback port and forwards each connection to
 * `host:port`.
 *
 * @example
 * const proxy = await startFreezableProxy({ host: '127.0.0.1', port: 6443 });
 * proxy.freeze(); // open watches go silent; new requests still pass
 * await proxy.close();
 */
export async function startFreezableProxy(options: FreezableProxyOptions): Promise<FreezableProxy> {
  const connections = new Set<Connection>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(options.port, options.host);
    const connection: Connection = { frozen: false, client, upstream };
    connections.add(connection);
    client.on('data', (data) => {
      if (!connection.frozen) upstream.write(data);
    });
    upstream.on('data', (data) => {
      if (!connection.frozen) client.write(data);
    });
    const end = (): void => {
      connections.delete(connection);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address == null || typeof address === 'string') throw new Error('the proxy has no TCP address');
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
          connection.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
