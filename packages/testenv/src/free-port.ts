import { createServer } from 'node:net';

/**
 * freePort asks the kernel for an unused TCP port on 127.0.0.1 (listen on port 0, read it,
 * close). Another process could take it before the server binds; start-up then fails visibly.
 */
export async function freePort(): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      if (address == null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the port of a listening socket'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
