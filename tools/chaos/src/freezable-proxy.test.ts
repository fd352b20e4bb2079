import * as net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFreezableProxy } from './freezable-proxy.js';
import type { FreezableProxy } from './freezable-proxy.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function echoServer(): Promise<number> {
  const server = net.createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

async function connect(proxy: FreezableProxy): Promise<net.Socket> {
  const socket = net.connect(proxy.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  closers.push(async () => {
    socket.destroy();
  });
  return socket;
}

/** Sends `text` and resolves with what came back within `ms` ('' when nothing did). */
async function roundTrip(socket: net.Socket, text: string, ms = 300): Promise<string> {
  let received = '';
  const onData = (data: Buffer): void => {
    received += data.toString('utf8');
  };
  socket.on('data', onData);
  socket.write(text);
  const until = Date.now() + ms;
  while (received.length < text.length && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  socket.off('data', onData);
  return received;
}

describe('startFreezableProxy', () => {
  it('forwards bytes both ways until frozen, then forwards nothing on the frozen connection', async () => {
    const proxy = await startFreezableProxy({ host: '127.0.0.1', port: await echoServer() });
    closers.push(() => proxy.close());
    const socket = await connect(proxy);
    expect(await roundTrip(socket, 'hello')).toBe('hello');
    expect(proxy.freeze()).toBe(1);
    expect(await roundTrip(socket, 'again')).toBe('');
    expect(socket.destroyed).toBe(false);
  });

  it('keeps serving connections opened after a freeze', async () => {
    const proxy = await startFreezableProxy({ host: '127.0.0.1', port: await echoServer() });
    closers.push(() => proxy.close());
    await connect(proxy);
    proxy.freeze();
    const fresh = await connect(proxy);
    expect(await roundTrip(fresh, 'new')).toBe('new');
    expect(proxy.acceptedConnections).toBe(2);
    expect(proxy.openConnections).toBe(2);
  });
});
