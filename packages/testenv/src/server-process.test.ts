import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServerProcess } from './server-process.js';

/** A server that listens to nothing and runs until it is stopped. */
const idle = { name: 'idle', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };

describe('startServerProcess', () => {
  it('runs the server in a directory of its own and removes it on stop, once', async () => {
    let dir = '';
    const server = await startServerProcess('orkestra-test-idle-', (setupDir) => ({
      server: { ...idle, isReady: async () => await Promise.resolve(true) },
      value: (started) => {
        dir = dirname(started.logPath);
        return { dir: setupDir };
      },
    }));
    expect(server.dir).toBe(dir);
    expect(existsSync(dir)).toBe(true);
    expect(() => process.kill(server.pid, 0)).not.toThrow();
    await server.stop();
    await server.stop();
    expect(() => process.kill(server.pid, 0)).toThrow(); // ESRCH: the process is gone
    expect(existsSync(dir)).toBe(false);
  });

  it('stops the server and removes its directory when making the handle fails', async () => {
    let dir = '';
    let pid = 0;
    await expect(
      startServerProcess('orkestra-test-idle-', () => ({
        server: { ...idle, isReady: async () => await Promise.resolve(true) },
        value: (started) => {
          dir = dirname(started.logPath);
          pid = started.pid;
          throw new Error('no handle');
        },
      })),
    ).rejects.toThrow('no handle');
    expect(() => process.kill(pid, 0)).toThrow();
    expect(existsSync(dir)).toBe(false);
  });

  it('removes the directory when setup fails before the server starts', async () => {
    let dir = '';
    await expect(
      startServerProcess('orkestra-test-idle-', (setupDir) => {
        dir = setupDir;
        throw new Error('no config');
      }),
    ).rejects.toThrow('no config');
    expect(dir).not.toBe('');
    expect(existsSync(dir)).toBe(false);
  });
});
