import { createHash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import type { AwsConfig } from './aws-config.js';

/** StaticCredentials are credentials from a Secret or the config. */
export interface StaticCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** S3ClientPool hands out one S3Client per region and credentials, so connections are reused. */
export interface S3ClientPool {
  /** clientFor returns the cached client for `region` and `credentials` (undefined: the default chain). */
  clientFor(region: string, credentials: StaticCredentials | undefined): S3Client;
  /** close destroys every client. */
  close(): void;
}

/** S3ClientPoolOptions configures {@link createS3ClientPool}. */
export interface S3ClientPoolOptions {
  readonly config: AwsConfig;
  /** Most clients kept; the oldest is destroyed beyond it. Default 32. */
  readonly maxClients?: number;
}

/**
 * createS3ClientPool builds the pool. Clients get the config's endpoint, path style and attempt
 * budget, connection and socket timeouts, and checksums only where S3 requires them (which keeps
 * S3-compatible servers happy).
 */
export function createS3ClientPool(options: S3ClientPoolOptions): S3ClientPool {
  const { config } = options;
  const max = options.maxClients ?? 32;
  const clients = new Map<string, S3Client>();
  return {
    clientFor(region, credentials) {
      const secret =
        credentials == null
          ? 'default'
          : `${credentials.accessKeyId}\0${credentials.secretAccessKey}\0${credentials.sessionToken ?? ''}`;
      const key = `${region}\0${createHash('sha256').update(secret).digest('hex')}`;
      const cached = clients.get(key);
      if (cached != null) return cached;
      const client = new S3Client({
        region,
        ...(config.endpoint == null ? {} : { endpoint: config.endpoint }),
        forcePathStyle: config.forcePathStyle,
        ...(credentials == null ? {} : { credentials }),
        maxAttempts: config.maxAttempts,
        requestHandler: {
          connectionTimeout: Math.min(config.callTimeoutMs, 10_000),
          requestTimeout: config.callTimeoutMs,
        },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      if (clients.size >= max) {
        const [oldestKey, oldest] = clients.entries().next().value ?? [];
        if (oldestKey != null) clients.delete(oldestKey);
        oldest?.destroy();
      }
      clients.set(key, client);
      return client;
    },
    close() {
      for (const client of clients.values()) client.destroy();
      clients.clear();
    },
  };
}
