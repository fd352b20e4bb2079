import { z } from 'zod';

const ms = (fallback: number) => z.coerce.number().int().min(100).max(600_000).default(fallback);

/**
 * MongoConfig is the provider config (docs/reference/katalog.md §14.4): the connection string `uri` (with the
 * credentials of an account allowed to manage databases and users) and the timeouts applied to
 * every operation.
 */
export const MongoConfig = z.strictObject({
  /** `mongodb://` or `mongodb+srv://` connection string. */
  uri: z.string().regex(/^mongodb(\+srv)?:\/\/[^/?]+/, 'a mongodb:// or mongodb+srv:// connection string'),
  /** How long to look for a usable server. Default 10 000 ms. */
  serverSelectionTimeoutMs: ms(10_000),
  /** TCP connect timeout. Default 10 000 ms. */
  connectTimeoutMs: ms(10_000),
  /** Budget for each command. Default 30 000 ms. */
  operationTimeoutMs: ms(30_000),
  /** Connections in the provider's pool. Default 10. */
  maxPoolSize: z.coerce.number().int().min(1).max(100).default(10),
});
/** MongoConfig is the parsed provider config. */
export type MongoConfig = z.output<typeof MongoConfig>;
