import { connect } from 'node:net';

/** tcpProbe resolves true when a TCP connection to `host:port` opens within `timeoutMs`. */
export async function tcpProbe(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return await new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
