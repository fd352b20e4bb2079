import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { httpRequest } from './http-request.js';
import { startServerProcess } from './server-process.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** NpmRegistryOptions configures {@link startNpmRegistry}. */
export interface NpmRegistryOptions extends FindBinaryOptions {
  /** Time verdaccio may take to answer `/-/ping`. Default 60 000 ms. */
  readonly startTimeoutMs?: number;
}

/** NpmRegistry is a running verdaccio on loopback with its storage in a temporary directory. */
export interface NpmRegistry {
  /** `http://127.0.0.1:<port>/`, with the trailing slash npm writes in `.npmrc`. */
  readonly url: string;
  /** The server's process id. */
  readonly pid: number;
  /**
   * npmrc returns `.npmrc` lines that send `@<scope>/*` to this registry with a publish token of
   * a user created at start (random password, valid only for this server's lifetime); every other
   * package still comes from the default registry.
   */
  npmrc(scope: string): string;
  /** stop terminates verdaccio and removes its storage. Idempotent. */
  stop(): Promise<void>;
}

function config(dir: string, port: number): string {
  // No uplinks: the registry holds only what the tests publish, so an install that reaches for a
  // package that was never published fails instead of silently coming from elsewhere.
  return [
    `storage: ${JSON.stringify(join(dir, 'storage'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
    '    max_users: 1',
    'uplinks: {}',
    'packages:',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    '    unpublish: $authenticated',
    `listen: 127.0.0.1:${port}`,
    'web:',
    '  enable: false',
    'log: { type: stdout, format: json, level: warn }',
    '',
  ].join('\n');
}

/**
 * startNpmRegistry starts verdaccio (built by `tools/testenv/build.sh verdaccio`) on a random
 * loopback port, creates one user and resolves once the registry answers.
 *
 * @example
 * const registry = await startNpmRegistry();
 * writeFileSync(join(project, '.npmrc'), registry.npmrc('@orkestra'));
 * await registry.stop();
 */
export async function startNpmRegistry(options: NpmRegistryOptions = {}): Promise<NpmRegistry> {
  const bin = findBinary(ServerBinary.Verdaccio, options).path;
  return await startServerProcess('orkestra-verdaccio-', async (dir) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    writeFileSync(join(dir, 'config.yaml'), config(dir, port));
    return {
      server: {
        name: 'verdaccio',
        command: bin,
        args: ['--config', join(dir, 'config.yaml')],
        timeoutMs: options.startTimeoutMs ?? 60_000,
        isReady: async () => (await httpRequest(`${url}-/ping`, { timeoutMs: 2000 })).status === 200,
      },
      value: async () => await withUser(url, port),
    };
  });
}

/** withUser creates the registry's one test user and gives its `.npmrc` lines. */
async function withUser(url: string, port: number): Promise<Omit<NpmRegistry, 'pid' | 'stop'>> {
  const user = 'orkestra-test';
  const created = await httpRequest(`${url}-/user/org.couchdb.user:${user}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: user, password: randomBytes(18).toString('base64url') }),
    timeoutMs: 15_000,
  });
  const token = (JSON.parse(created.body || '{}') as { token?: unknown }).token;
  if (created.status !== 201 || typeof token !== 'string') {
    // The server is stopped and its directory removed by startServerProcess.
    throw new TestenvError(`verdaccio did not create the test user (HTTP ${created.status})`, {
      code: TestenvErrorCode.RequestFailed,
    });
  }
  return {
    url,
    npmrc: (scope) => `${scope}:registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`,
  };
}
