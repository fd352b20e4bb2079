/**
 * The MongoDB client of `protocol: mongo` external calls (docs/reference/katalog.md §15.1.1,
 * docs/adr/0059-document-and-stream-protocols.md). It lives in its own package so the operator
 * loads the `mongodb` driver only when a Katalog asks for it. A call counts the documents a filter
 * matches and reads at most `maxDocuments` of them; the filter arrives as a plain value tree whose
 * keys the Katalog wrote and whose CR values are string leaves, so a CR value is never an operator.
 * Connections go straight to the address the caller checked (`host`, no topology discovery), are
 * pooled per target and closed by `close()`. No error message carries the password.
 */
import { BSON, MongoClient } from 'mongodb';
import type { Document } from 'mongodb';

/** MongoTarget is where to connect: `host` is the address the caller's address guard checked. */
export interface MongoTarget {
  /** The checked IP address (or the hostname when the guard is off). */
  readonly host: string;
  /** The hostname of the URL, for TLS server name checks. */
  readonly serverName: string;
  readonly port: number;
  /** The user (the URL's), undefined for no authentication. */
  readonly username?: string | undefined;
  /** From the call's `auth` (a Secret); never from the URL. */
  readonly password?: string | undefined;
  /** Where the user is defined (the URL's `authSource`, else its path, else `admin`). */
  readonly authSource: string;
  readonly tls: boolean;
}

/** MongoQuery is one count-and-find on a collection. */
export interface MongoQuery {
  readonly database: string;
  readonly collection: string;
  /**
   * The filter as a plain JSON value tree (Extended JSON such as `{"$oid": …}` is read as BSON
   * types). Its keys come from the Katalog; CR values only ever appear as string leaves.
   */
  readonly filter: Readonly<Record<string, unknown>>;
  /** The whole call's timeout (server selection, connection, the operations). */
  readonly timeoutMs: number;
  /** Documents kept; `count` is still the full count. */
  readonly maxDocuments: number;
}

/** MongoAnswer is the count of matching documents and the first `maxDocuments` of them as relaxed Extended JSON. */
export interface MongoAnswer {
  readonly count: number;
  readonly documents: readonly Readonly<Record<string, unknown>>[];
  /** More documents matched than `maxDocuments`. */
  readonly truncated: boolean;
}

/**
 * MongoQueryError is a failed call: `retryable` when the server was not reached, went away or
 * timed out, not when the server refused the command (a bad filter, a failed login, a permission).
 */
export class MongoQueryError extends Error {
  override readonly name = 'MongoQueryError';
  readonly code = 'MongoQueryFailed';
  readonly retryable: boolean;

  constructor(message: string, options: { retryable: boolean }) {
    super(message);
    this.retryable = options.retryable;
  }
}

/** MongoClientsOptions configures the pools; every field has a default. */
export interface MongoClientsOptions {
  /** Connections per target. Default 4. */
  readonly maxConnections?: number;
  /** An idle connection is closed after this long. Default 30 000 ms. */
  readonly idleMs?: number;
}

/**
 * MongoClients holds one driver client (a connection pool) per target, shared by every call to it
 * (across CRs).
 *
 * @example
 * const clients = new MongoClients();
 * const answer = await clients.query(target, { database: 'shop', collection: 'orders', filter: { status: 'open' }, timeoutMs: 5000, maxDocuments: 100 });
 * await clients.close();
 */
export class MongoClients {
  readonly #clients = new Map<string, MongoClient>();
  readonly #max: number;
  readonly #idleMs: number;
  #closed = false;

  constructor(options: MongoClientsOptions = {}) {
    this.#max = options.maxConnections ?? 4;
    this.#idleMs = options.idleMs ?? 30_000;
  }

  /** size is the number of open pools (one per target). */
  get size(): number {
    return this.#clients.size;
  }

  /** query counts the matching documents and reads the first ones; throws MongoQueryError. */
  async query(target: MongoTarget, query: MongoQuery): Promise<MongoAnswer> {
    if (this.#closed) throw new MongoQueryError('the MongoDB clients are closed', { retryable: true });
    const timeoutMS = Math.max(1, Math.floor(query.timeoutMs));
    const key = targetKey(target);
    let timer: NodeJS.Timeout | undefined;
    // The driver's own timeout covers selection and operations, but a connection already open to a
    // server that stopped answering can outlast it; the call never does.
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new MongoQueryError(`timed out after ${timeoutMS} ms`, { retryable: true })),
        // After the driver's own deadline, whose error says more (ECONNREFUSED, an unknown host).
        timeoutMS + TIMEOUT_GRACE_MS,
      );
    });
    try {
      const filter = BSON.EJSON.deserialize(query.filter as Document, { relaxed: true }) as Document;
      const collection = this.#client(key, target, timeoutMS).db(query.database).collection(query.collection);
      const read = async (): Promise<MongoAnswer> => {
        const count = await collection.countDocuments(filter, { timeoutMS });
        const found = await collection
          .find(filter, { timeoutMS, limit: query.maxDocuments + 1, batchSize: query.maxDocuments + 1 })
          .toArray();
        const documents = found
          .slice(0, query.maxDocuments)
          .map((d) => BSON.EJSON.serialize(d, { relaxed: true }) as Record<string, unknown>);
        return { count, documents, truncated: found.length > query.maxDocuments };
      };
      return await Promise.race([read(), timeout]);
    } catch (error) {
      const described = describe(error, target);
      // A pool whose server stopped answering is replaced by the next call.
      if (described.retryable) this.#drop(key);
      throw described;
    } finally {
      clearTimeout(timer);
    }
  }

  /** close ends every pool (a Katalog reload, shutdown); later queries fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.allSettled(clients.map((c) => c.close()));
  }

  #drop(key: string): void {
    const client = this.#clients.get(key);
    this.#clients.delete(key);
    void client?.close(true).catch(() => undefined);
  }

  #client(key: string, target: MongoTarget, timeoutMs: number): MongoClient {
    let client = this.#clients.get(key);
    if (client == null) {
      const host = target.host.includes(':') ? `[${target.host}]` : target.host;
      client = new MongoClient(`mongodb://${host}:${target.port}/`, {
        // The checked address only: no discovery of other members from the server's answer.
        directConnection: true,
        ...(target.username == null
          ? {}
          : {
              auth: { username: target.username, password: target.password ?? '' },
              authSource: target.authSource,
            }),
        ...(target.tls ? { tls: true, servername: target.serverName } : {}),
        maxPoolSize: this.#max,
        maxIdleTimeMS: this.#idleMs,
        // Within the call's timeout, so an unreachable server fails with its reason (ECONNREFUSED)
        // before the caller's deadline does.
        serverSelectionTimeoutMS: Math.max(1, Math.floor(timeoutMs * 0.8)),
        connectTimeoutMS: Math.max(1, Math.floor(timeoutMs * 0.8)),
        appName: 'orkestra',
        retryReads: false,
      });
      this.#clients.set(key, client);
    }
    return client;
  }
}

/** How long after the driver's timeout the call gives up on its own. */
const TIMEOUT_GRACE_MS = 250;

function targetKey(target: MongoTarget): string {
  return JSON.stringify([
    target.host,
    target.serverName,
    target.port,
    target.username ?? null,
    target.password ?? null,
    target.authSource,
    target.tls,
  ]);
}

// The driver's error labels and names of a server that was not reached, went away or timed out.
const TRANSIENT_NAMES = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoOperationTimeoutError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

// Server error codes of a server going away, stepping down or out of time (HostUnreachable,
// HostNotFound, MaxTimeMSExpired, NetworkTimeout, ShutdownInProgress, PrimarySteppedDown,
// ExceededTimeLimit, SocketException, NotWritablePrimary, InterruptedAtShutdown,
// InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary).
const TRANSIENT_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/** describe turns a driver error into a MongoQueryError without the password. */
function describe(error: unknown, target: MongoTarget): MongoQueryError {
  if (error instanceof MongoQueryError) return error;
  const e = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    hasErrorLabel?: (label: string) => boolean;
  };
  let message = typeof e.message === 'string' ? e.message : String(error);
  if (target.password != null && target.password !== '') message = message.split(target.password).join('***');
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const code = typeof e.code === 'number' ? e.code : undefined;
  const retryable =
    TRANSIENT_NAMES.has(name) ||
    (code != null && TRANSIENT_CODES.has(code)) ||
    e.hasErrorLabel?.('RetryableError') === true;
  return new MongoQueryError(`${target.serverName}:${target.port}: ${message}`, { retryable });
}
