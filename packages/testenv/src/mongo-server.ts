import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { startServerProcess } from './server-process.js';
import { tcpProbe } from './tcp-probe.js';

/** MongoServerOptions configures {@link startMongo}. */
export interface MongoServerOptions extends FindBinaryOptions {
  /** Time FerretDB may take to listen. Default 60 000 ms. */
  readonly startTimeoutMs?: number;
}

/** MongoServer is a running FerretDB (MongoDB wire protocol, SQLite storage) on loopback. */
export interface MongoServer {
  /** `mongodb://<user>:<password>@127.0.0.1:<port>/<database>?directConnection=true`. */
  readonly uri: string;
  /** The setup user (authenticates against `database`). */
  readonly username: string;
  /** The setup user's password. */
  readonly password: string;
  /** The setup database, also the URI's authentication source. */
  readonly database: string;
  /** The server's process id. */
  readonly pid: number;
  /** stop terminates FerretDB and removes its data. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startMongo starts FerretDB with the SQLite backend in a temporary directory, new
 * authentication (`--test-enable-new-auth`, so SCRAM logins and `createUser` work) and a setup
 * user, and resolves once it listens. FerretDB v1 checks passwords but not roles: any
 * authenticated user can do anything.
 *
 * @example
 * const mongo = await startMongo();
 * const client = await MongoClient.connect(mongo.uri);
 */
export async function startMongo(options: MongoServerOptions = {}): Promise<MongoServer> {
  const bin = findBinary(ServerBinary.Ferretdb, options).path;
  return await startServerProcess('orkestra-ferretdb-', async (dir) => {
    // The SQLite "URL" is a directory that must exist, written with a trailing slash.
    mkdirSync(join(dir, 'data'));
    const port = await freePort();
    const username = 'admin';
    const password = 'testenv-secret';
    const database = 'ferretdb';
    return {
      server: {
        name: 'ferretdb',
        command: bin,
        args: [
          '--handler=sqlite',
          `--sqlite-url=file:${join(dir, 'data')}/`,
          `--listen-addr=127.0.0.1:${port}`,
          '--debug-addr=-',
          `--state-dir=${dir}`,
          '--telemetry=disable',
          '--log-level=warn',
          '--test-enable-new-auth=true',
          `--setup-database=${database}`,
          `--setup-username=${username}`,
          `--setup-password=${password}`,
        ],
        timeoutMs: options.startTimeoutMs ?? 60_000,
        isReady: async () => await tcpProbe(port),
      },
      value: () => ({
        uri: `mongodb://${username}:${password}@127.0.0.1:${port}/${database}?directConnection=true`,
        username,
        password,
        database,
      }),
    };
  });
}
