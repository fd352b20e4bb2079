import * as net from 'node:net';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** FreezableProxyOptions says where a {@link FreezableProxy} forwards to. */
export interface FreezableProxyOptions {
  /** Upstream host, e.g. the API server's `127.0.0.1` (keep it so TLS names still match). */
  readonly host: string;
  /** Upstream TCP port. */
  readonly port: number;
}

/** FreezableProxy forwards TCP to an upstream and can black-hole the connections open now. */
export interface FreezableProxy {
  /** Local port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Connections currently open. */
  readonly openConnections: number;
  /** Connections accepted so far. */
  readonly acceptedConnections: number;
  /** freeze stops forwarding, both ways, on every connection open now and returns how many were frozen; bytes sent on them afterwards are dropped. */
  freeze(): number;
  /** stop destroys every connection and stops listening. Idempotent. */
  stop(): Promise<void>;
}

interface Connection {
  frozen: boolean;
  readonly client: net.Socket;
  readonly upstream: net.Socket;
}

/**
 * startFreezableProxy listens on an ephemeral loopback port and forwards each connection to
 * `host:port`. `freeze()` makes the connections open at that moment go silent while their sockets
 * stay open (as behind a dead NAT entry or a stuck load balancer); connections opened later work
 * normally. Use it to test watch-idle timeouts and silent-watch recovery.
 *
 * @example
 * const proxy = await startFreezableProxy({ host: '127.0.0.1', port: 6443 });
 * // point a KubeConfig at https://127.0.0.1:${proxy.port}, open a watch, then:
 * proxy.freeze(); // the open watch goes silent; new requests still pass
 * await proxy.stop();
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
  if (address == null || typeof address === 'string') {
    server.close();
    throw new TestenvError('the freezable proxy has no TCP address', { code: TestenvErrorCode.StartFailed });
  }
  let stopped: Promise<void> | undefined;
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
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        for (const connection of connections) {
          connection.client.destroy();
          connection.upstream.destroy();
        }
        server.close(() => resolve());
      });
      return stopped;
    },
  };
}
