import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { startServerProcess } from './server-process.js';
import { tcpProbe } from './tcp-probe.js';

/** RedisServerOptions configures {@link startRedis}. */
export interface RedisServerOptions extends FindBinaryOptions {
  /** Time Redis may take to listen. Default 30 000 ms. */
  readonly startTimeoutMs?: number;
}

/** RedisServer is a running Redis on loopback that requires a password. */
export interface RedisServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The `default` user's password (`requirepass`). */
  readonly password: string;
  /** `redis://127.0.0.1:<port>/0` (no password: it is `password`). */
  readonly url: string;
  readonly pid: number;
  /** stop terminates Redis and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startRedis starts Redis without persistence in a temporary directory, on a free loopback port,
 * with `requirepass`, resolving once it listens.
 *
 * @example
 * const redis = await startRedis();
 */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const bin = findBinary(ServerBinary.RedisServer, options).path;
  return await startServerProcess('orkestra-redis-', async (dir) => {
    const port = await freePort();
    const password = 'testenv-redis-secret';
    const config = join(dir, 'redis.conf');
    writeFileSync(
      config,
      `bind 127.0.0.1\nport ${port}\ndir ${dir}\nsave ""\nappendonly no\nrequirepass ${password}\nprotected-mode yes\n`,
      { mode: 0o600 },
    );
    return {
      server: {
        name: 'redis',
        command: bin,
        args: [config],
        timeoutMs: options.startTimeoutMs ?? 30_000,
        isReady: async () => await tcpProbe(port),
      },
      value: () => ({ host: '127.0.0.1' as const, port, password, url: `redis://127.0.0.1:${port}/0` }),
    };
  });
}
