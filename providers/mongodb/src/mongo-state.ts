import { abortedError, withTimeout } from '@orkestra/provider-kit';
import { ProviderError } from '@orkestra/types';
import { MongoClient } from 'mongodb';
import type { Document } from 'mongodb';
import { parseConnectionString, publicConnectionString } from './connection-string.js';
import type { ConnectionString } from './connection-string.js';
import type { MongoConfig } from './mongo-config.js';
import { translateMongoError } from './translate-mongo-error.js';

/** MongoState is one provider instance: its config, the parsed URI and one pooled client. */
export interface MongoState {
  readonly config: MongoConfig;
  readonly uri: ConnectionString;
  /**
   * command runs one database command with the operation timeout and the request's signal;
   * failures become `ProviderError`s (server codes as `code`, e.g. `NamespaceNotFound`).
   */
  command(database: string, command: Document, signal: AbortSignal, target?: string): Promise<Document>;
  /** canLogIn tells whether `username`/`password` authenticate against `database` (a short-lived connection). */
  canLogIn(database: string, username: string, password: string, signal: AbortSignal): Promise<boolean>;
  /** close closes the pool. */
  close(): Promise<void>;
}

function clientOptions(config: MongoConfig) {
  return {
    serverSelectionTimeoutMS: config.serverSelectionTimeoutMs,
    connectTimeoutMS: config.connectTimeoutMs,
    socketTimeoutMS: config.operationTimeoutMs + 5_000,
    maxPoolSize: config.maxPoolSize,
    appName: 'orkestra-provider-mongodb',
  };
}

async function guarded<T>(
  config: MongoConfig,
  signal: AbortSignal,
  what: { operation: string; target?: string },
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const callSignal = withTimeout(signal, config.operationTimeoutMs);
  try {
    return await work(callSignal);
  } catch (error) {
    if (signal.aborted) throw abortedError(signal, `MongoDB ${what.operation}`);
    if (callSignal.aborted) {
      throw new ProviderError(
        `MongoDB ${what.operation}${what.target == null ? '' : ` on ${what.target}`} timed out after ${config.operationTimeoutMs} ms`,
        {
          code: 'Timeout',
          retryable: true,
          cause: error,
        },
      );
    }
    throw translateMongoError(error, what);
  }
}

/**
 * createMongoState builds the per-instance state. The client connects on first use and keeps a
 * pool of `maxPoolSize` connections until `close()`.
 */
export function createMongoState(config: MongoConfig): MongoState {
  const uri = parseConnectionString(config.uri);
  if (uri == null)
    throw new ProviderError('the mongodb provider uri is not a MongoDB connection string', {
      code: 'InvalidConfig',
      retryable: false,
    });
  const client = new MongoClient(config.uri, clientOptions(config));
  let closed = false;
  return {
    config,
    uri,
    async command(database, command, signal, target) {
      const operation = Object.keys(command)[0] ?? 'command';
      return await guarded(
        config,
        signal,
        { operation, ...(target == null ? {} : { target }) },
        async (callSignal) => {
          if (closed)
            throw new ProviderError('the mongodb provider was closed', { code: 'Closed', retryable: true });
          return await client.db(database).command(command, { signal: callSignal });
        },
      );
    },
    async canLogIn(database, username, password, signal) {
      const probe = new MongoClient(publicConnectionString(uri, { database }), {
        ...clientOptions(config),
        maxPoolSize: 1,
        auth: { username, password },
        authSource: database,
      });
      try {
        return await guarded(
          config,
          signal,
          { operation: 'authenticate', target: `${username}@${database}` },
          async (callSignal) => {
            try {
              await probe.db(database).command({ ping: 1 }, { signal: callSignal });
              return true;
            } catch (error) {
              if ((error as { code?: unknown }).code === 18) return false; // AuthenticationFailed
              throw error;
            }
          },
        );
      } finally {
        await probe.close().catch(() => undefined);
      }
    },
    async close() {
      closed = true;
      await client.close();
    },
  };
}
