/**
 * @orkestra/provider-mongodb manages MongoDB databases, collections (with JSON-schema
 * validators), indexes (unique, sparse, TTL, text) and users (password from a Secret, roles) for
 * Katalog declarations, through the `mongodb` driver with one connection pool per provider
 * instance and a timeout on every command. It reads Kubernetes only through the KubeReader.
 *
 * Main exports: createProvider and configSchema (what the operator imports), MongoConfig,
 * DatabaseSpec, CollectionSpec, IndexSpec, UserSpec, translateMongoError.
 *
 * @example
 * import { createProvider } from '@orkestra/provider-mongodb';
 *
 * const mongodb = await createProvider({ name: 'mongodb', config: { uri: 'mongodb://admin:pw@db:27017/admin' }, logger, signal });
 * await mongodb.reconcile({ declaration: { name: 'appdb', kind: 'database', spec: { name: 'shop' }, source: '…' }, … });
 * // { state: 'ready', outputs: { database: 'shop', connectionString: 'mongodb://db:27017/shop' } }
 * await mongodb.close();
 */
import { defineProvider } from '@orkestra/provider-kit';
import type { ProviderInit } from '@orkestra/types';
import { collectionKind } from './collection-kind.js';
import { databaseKind } from './database-kind.js';
import { indexKind } from './index-kind.js';
import { MongoConfig } from './mongo-config.js';
import { createMongoState } from './mongo-state.js';
import type { MongoState } from './mongo-state.js';
import { translateMongoError } from './translate-mongo-error.js';
import { userKind } from './user-kind.js';

const mongodb = defineProvider({
  name: 'mongodb',
  configSchema: MongoConfig,
  // Annotated: with kinds defined in their own files, TypeScript infers the state from here.
  setup: ({ config }: ProviderInit<MongoConfig>): MongoState => createMongoState(config),
  close: async (state) => await state.close(),
  translateError: (error, context) =>
    translateMongoError(error, { operation: `${context.kind} ${context.operation}` }),
  kinds: { database: databaseKind, collection: collectionKind, index: indexKind, user: userKind },
});

/** configSchema validates the `mongodb` provider config; the operator imports it by name. */
export const configSchema = mongodb.configSchema;
/** createProvider starts a `mongodb` provider with its own connection pool; `close()` closes it. */
export const createProvider = mongodb.createProvider;

export { parseConnectionString, publicConnectionString } from './connection-string.js';
export type { ConnectionString } from './connection-string.js';
export { MARKER_COLLECTION } from './database-kind.js';
export { MongoConfig } from './mongo-config.js';
export {
  CollectionName,
  CollectionSpec,
  DatabaseName,
  DatabaseSpec,
  indexName,
  IndexSpec,
  UserSpec,
} from './mongo-specs.js';
export { translateMongoError } from './translate-mongo-error.js';
export type { MongoErrorContext } from './translate-mongo-error.js';
