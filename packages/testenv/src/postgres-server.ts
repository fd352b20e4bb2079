import { execFileSync } from 'node:child_process';
import { chownSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { startServerProcess } from './server-process.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** PostgresServerOptions configures {@link startPostgres}. */
export interface PostgresServerOptions extends FindBinaryOptions {
  /** Time PostgreSQL may take to accept connections. Default 60 000 ms. */
  readonly startTimeoutMs?: number;
}

/** PostgresServer is a running PostgreSQL on loopback with password (SCRAM) authentication. */
export interface PostgresServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The superuser, also the owner of `database`. */
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** `postgres://<user>@127.0.0.1:<port>/<database>` (no password: it is `password`). */
  readonly url: string;
  /** The Unix socket directory (for `psql -h`). */
  readonly socketDir: string;
  /** The server's process id. */
  readonly pid: number;
  /** stop terminates PostgreSQL and removes its data. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startPostgres runs `initdb` in a temporary directory (SCRAM passwords, no fsync) and starts
 * `postgres` on a free loopback port, resolving once it accepts connections. PostgreSQL refuses to
 * run as root: under root both run as the `postgres` user when it exists, else as `nobody`.
 *
 * @example
 * const pg = await startPostgres();
 * const client = new Client({ host: pg.host, port: pg.port, user: pg.user, password: pg.password, database: pg.database });
 */
export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  // The real path: the cache links the system server, and the server user cannot enter root's home.
  const postgres = realpathSync(findBinary(ServerBinary.Postgres, options).path);
  const initdb = join(dirname(postgres), 'initdb');
  return await startServerProcess('orkestra-postgres-', async (dir) => {
    const user = process.getuid?.() === 0 ? serverUser() : undefined;
    if (user != null) chownSync(dir, user.uid, user.gid);
    const data = join(dir, 'data');
    const password = 'testenv-pg-secret';
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (user != null) chownSync(pwfile, user.uid, user.gid);
    const superuser = 'orkestra';
    try {
      execFileSync(
        initdb,
        [
          '-D',
          data,
          '-U',
          superuser,
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '-E',
          'UTF8',
          '--no-sync',
        ],
        { stdio: 'pipe', ...(user == null ? {} : { uid: user.uid, gid: user.gid }) },
      );
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '');
      throw new TestenvError(`initdb failed: ${stderr.trim() || String(error)}`, {
        code: TestenvErrorCode.StartFailed,
      });
    }
    const port = await freePort();
    return {
      server: {
        name: 'postgres',
        command: postgres,
        args: [
          '-D',
          data,
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-k',
          dir,
          '-F',
          '-c',
          'max_connections=50',
        ],
        ...(user == null ? {} : { user }),
        timeoutMs: options.startTimeoutMs ?? 60_000,
        isReady: async () =>
          readFileSync(join(dir, 'postgres.log'), 'utf8').includes('ready to accept connections'),
      },
      value: () => ({
        host: '127.0.0.1' as const,
        port,
        user: superuser,
        password,
        database: 'postgres',
        url: `postgres://${superuser}@127.0.0.1:${port}/postgres`,
        socketDir: dir,
      }),
    };
  });
}

/** serverUser is the `postgres` user of the system package, else `nobody`. */
function serverUser(): { uid: number; gid: number } {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'postgres') return { uid: Number(uid), gid: Number(gid) };
  }
  return { uid: 65534, gid: 65534 };
}
