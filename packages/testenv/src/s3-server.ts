import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { httpRequest } from './http-request.js';
import { startServerProcess } from './server-process.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** S3ServerOptions configures {@link startS3}. */
export interface S3ServerOptions extends FindBinaryOptions {
  /** Time moto may take to answer. Default 60 000 ms. */
  readonly startTimeoutMs?: number;
}

/** S3Server is a running moto server: an S3 API on loopback with any credentials accepted. */
export interface S3Server {
  /** `http://127.0.0.1:<port>`; use with `forcePathStyle: true`. */
  readonly endpoint: string;
  /** `us-east-1`: elsewhere moto's CreateBucket demands a matching LocationConstraint. */
  readonly region: string;
  /** Dummy credentials; the SDK needs some to sign requests. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Always true: moto serves path-style addressing on a bare IP. */
  readonly forcePathStyle: true;
  /** The server's process id. */
  readonly pid: number;
  /** reset drops every bucket and object (`POST /moto-api/reset`). */
  reset(): Promise<void>;
  /** stop terminates moto and removes its temporary directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startS3 starts `moto_server` on a random loopback port and resolves once it answers.
 *
 * @example
 * const s3 = await startS3();
 * const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, credentials: s3.credentials, forcePathStyle: true });
 */
export async function startS3(options: S3ServerOptions = {}): Promise<S3Server> {
  const bin = findBinary(ServerBinary.MotoServer, options).path;
  return await startServerProcess('orkestra-moto-', async () => {
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    return {
      server: {
        name: 'moto',
        command: bin,
        args: ['-H', '127.0.0.1', '-p', String(port)],
        env: { PYTHONUNBUFFERED: '1' },
        timeoutMs: options.startTimeoutMs ?? 60_000,
        isReady: async () =>
          (await httpRequest(`${endpoint}/moto-api/data.json`, { timeoutMs: 2000 })).status === 200,
      },
      value: () => ({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
        forcePathStyle: true as const,
        async reset() {
          const res = await httpRequest(`${endpoint}/moto-api/reset`, { method: 'POST', timeoutMs: 15_000 });
          if (res.status !== 200) {
            throw new TestenvError(`moto reset returned ${res.status}`, {
              code: TestenvErrorCode.RequestFailed,
            });
          }
        },
      }),
    };
  });
}
