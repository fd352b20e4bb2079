import { once } from 'node:events';
import * as net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFreezableProxy } from './freezable-proxy.js';
import type { FreezableProxy } from './freezable-proxy.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Recorder keeps everything a socket received and settles `closed` when it closes. */
interface Recorder {
  readonly socket: net.Socket;
  text(): string;
  /** Resolves once `expected` has arrived in full. */
  receive(expected: string): Promise<void>;
  readonly closed: Promise<void>;
}

function record(socket: net.Socket): Recorder {
  let text = '';
  const waiters = new Set<() => void>();
  socket.on('data', (data: Buffer) => {
    text += data.toString('utf8');
    for (const waiter of waiters) waiter();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    text: () => text,
    receive: (expected) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!text.endsWith(expected)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
        void closed.then(() => {
          if (waiters.delete(check)) reject(new Error(`closed before receiving ${expected}`));
        });
      }),
    closed,
  };
}

/** An upstream server that hands out its accepted connections in order. */
async function upstream(): Promise<{ port: number; accepted(): Promise<Recorder> }> {
  const ready: Recorder[] = [];
  const waiting: ((recorder: Recorder) => void)[] = [];
  const server = net.createServer((socket) => {
    const recorder = record(socket);
    const waiter = waiting.shift();
    if (waiter == null) ready.push(recorder);
    else waiter(recorder);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => {
      const recorder = ready.shift();
      return recorder == null ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(recorder);
    },
  };
}

async function connect(proxy: FreezableProxy): Promise<Recorder> {
  const socket = net.connect(proxy.port, '127.0.0.1');
  const recorder = record(socket);
  await once(socket, 'connect');
  cleanups.push(async () => {
    socket.destroy();
  });
  return recorder;
}

async function proxyTo(port: number): Promise<FreezableProxy> {
  const proxy = await startFreezableProxy({ host: '127.0.0.1', port });
  cleanups.push(() => proxy.stop());
  return proxy;
}

/** A client connected through the proxy, the upstream's end of that connection, and a round trip both ways. */
async function connected(): Promise<{ proxy: FreezableProxy; client: Recorder; server: Recorder }> {
  const up = await upstream();
  const proxy = await proxyTo(up.port);
  const client = await connect(proxy);
  const server = await up.accepted();
  client.socket.write('hello');
  await server.receive('hello');
  server.socket.write('hi');
  await client.receive('hi');
  return { proxy, client, server };
}

describe('startFreezableProxy', () => {
  it('drops what the client sends after a freeze, keeping the sockets open', async () => {
    const { proxy, client, server } = await connected();
    expect(proxy.freeze()).toBe(1);
    client.socket.write('lost');
    expect(client.socket.destroyed).toBe(false);
    expect(proxy.openConnections).toBe(1);
    // Data before end on one socket: once the upstream sees the close, the proxy has handled 'lost'.
    client.socket.end();
    await server.closed;
    expect(server.text()).toBe('hello');
  });

  it('drops what the upstream sends after a freeze', async () => {
    const { proxy, client, server } = await connected();
    proxy.freeze();
    server.socket.end('lost');
    await client.closed;
    expect(client.text()).toBe('hi');
  });

  it('keeps serving connections opened after a freeze', async () => {
    const up = await upstream();
    const proxy = await proxyTo(up.port);
    await connect(proxy);
    await up.accepted();
    proxy.freeze();
    const fresh = await connect(proxy);
    const server = await up.accepted();
    fresh.socket.write('new');
    await server.receive('new');
    server.socket.write('reply');
    await fresh.receive('reply');
    expect(proxy.acceptedConnections).toBe(2);
    expect(proxy.openConnections).toBe(2);
  });

  it('stop closes the open connections and may be called twice', async () => {
    const { proxy, client } = await connected();
    await proxy.stop();
    await client.closed;
    await proxy.stop();
    expect(proxy.openConnections).toBe(0);
  });
});
