/**
 * The PostgreSQL client of `protocol: postgres` external calls (docs/reference/katalog.md §15.1.1,
 * docs/adr/0053-external-protocols-are-units.md). It lives in its own package so the operator loads
 * the `pg` driver only when a Katalog asks for it. Every query runs inside a READ ONLY transaction
 * with a statement timeout, as one extended-protocol statement (so `;` cannot start a second one),
 * with the CR's values as bind parameters; the answer is at most `maxRows` rows. Connections go to
 * the address the caller checked (`host`), are pooled per target and closed by `close()`. No error
 * message carries the password.
 */
import pg from 'pg';
import type { FieldDef, PoolClient, QueryResult } from 'pg';

/** PostgresTarget is where to connect: `host` is the address the caller's address guard checked. */
export interface PostgresTarget {
  /** The checked IP address (or the hostname when the guard is off). */
  readonly host: string;
  /** The hostname of the URL, for TLS server name checks. */
  readonly serverName: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  /** From the call's `auth` (a Secret); never from the URL. */
  readonly password?: string | undefined;
  /** The URL's `sslmode`: `disable` (default), `require` (no certificate check) or `verify-full`. */
  readonly sslMode: 'disable' | 'require' | 'verify-full';
}

/** PostgresQuery is one read-only statement with its bound values. */
export interface PostgresQuery {
  /** One literal SQL statement (`$1`, `$2`, … read the params). */
  readonly sql: string;
  readonly params: readonly string[];
  /** The statement timeout, also the connect timeout. */
  readonly timeoutMs: number;
  /** Rows kept; a longer answer is cut and says so. */
  readonly maxRows: number;
  readonly signal?: AbortSignal | undefined;
}

/** PostgresAnswer is a query's rows (column name → value as the driver reads it). */
export interface PostgresAnswer {
  readonly columns: readonly string[];
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** More rows than `maxRows` were there; `rows` holds the first `maxRows`. */
  readonly truncated: boolean;
}

/**
 * PostgresQueryError is a failed query: `retryable` when the server was not reached, went away or
 * timed out (a later attempt may succeed), not when the statement itself was refused (a syntax
 * error, a permission, a write in the read-only transaction). `sqlState` is PostgreSQL's code.
 */
export class PostgresQueryError extends Error {
  override readonly name = 'PostgresQueryError';
  readonly code = 'PostgresQueryFailed';
  readonly retryable: boolean;
  readonly sqlState: string | undefined;

  constructor(message: string, options: { retryable: boolean; sqlState?: string | undefined }) {
    super(message);
    this.retryable = options.retryable;
    this.sqlState = options.sqlState;
  }
}

/** PostgresPoolsOptions configures the pools; every field has a default. */
export interface PostgresPoolsOptions {
  /** Connections per target. Default 4. */
  readonly maxConnections?: number;
  /** An idle connection is closed after this long. Default 30 000 ms. */
  readonly idleMs?: number;
}

// SQLSTATE classes of a server that is going away or overloaded, or a statement cancelled by its
// timeout: worth another attempt.
const RETRYABLE_SQLSTATE = /^(08|53|57P0[1-3]|57014|40001|40P01)/;

/**
 * PostgresPools holds one pool of connections per target, shared by every call to it (across CRs).
 *
 * @example
 * const pools = new PostgresPools();
 * const answer = await pools.query(target, { sql: 'SELECT count(*) AS n FROM jobs WHERE owner = $1', params: ['web'], timeoutMs: 5000, maxRows: 100 });
 * await pools.close();
 */
export class PostgresPools {
  readonly #pools = new Map<string, pg.Pool>();
  readonly #max: number;
  readonly #idleMs: number;
  #closed = false;

  constructor(options: PostgresPoolsOptions = {}) {
    this.#max = options.maxConnections ?? 4;
    this.#idleMs = options.idleMs ?? 30_000;
  }

  /** size is the number of open pools (one per target). */
  get size(): number {
    return this.#pools.size;
  }

  /** query runs one statement in a READ ONLY transaction; throws PostgresQueryError. */
  async query(target: PostgresTarget, query: PostgresQuery): Promise<PostgresAnswer> {
    if (this.#closed) throw new PostgresQueryError('the PostgreSQL pools are closed', { retryable: true });
    const pool = this.#pool(target, query.timeoutMs);
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw describe(error, target);
    }
    let broken = false;
    // A connection that ends while checked out (the abort below, a server going away) reports on
    // the client too; the query already fails with it, so the event must not go unheard.
    const onClientError = (): void => {
      broken = true;
    };
    client.on('error', onClientError);
    const onAbort = (): void => {
      broken = true;
      // Ends the connection (and so the statement); the pool replaces it.
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    };
    query.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (query.signal?.aborted === true) throw new PostgresQueryError('aborted', { retryable: true });
      await client.query('BEGIN TRANSACTION READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(query.timeoutMs))}`);
      const bounded = new BoundedQuery(query.sql, query.params, query.maxRows);
      const result = await new Promise<QueryResult>((resolve, reject) => {
        bounded.callback = (error, answer) => (error == null ? resolve(answer) : reject(error));
        client.query(bounded as never);
      });
      await client.query('ROLLBACK');
      const rows = (result.rows as Record<string, unknown>[]).slice(0, query.maxRows);
      return {
        columns: (result.fields ?? []).map((f: FieldDef) => f.name),
        rows,
        truncated: bounded.truncated,
      };
    } catch (error) {
      broken = true;
      throw describe(error, target);
    } finally {
      query.signal?.removeEventListener('abort', onAbort);
      client.off('error', onClientError);
      client.release(broken);
    }
  }

  /** close ends every pool (a Katalog reload, shutdown); later queries fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.allSettled(pools.map((p) => p.end()));
  }

  #pool(target: PostgresTarget, timeoutMs: number): pg.Pool {
    const key = JSON.stringify([
      target.host,
      target.serverName,
      target.port,
      target.database,
      target.user,
      target.password ?? null,
      target.sslMode,
    ]);
    let pool = this.#pools.get(key);
    if (pool == null) {
      pool = new pg.Pool({
        host: target.host,
        port: target.port,
        database: target.database,
        user: target.user,
        ...(target.password == null ? {} : { password: target.password }),
        ssl:
          target.sslMode === 'disable'
            ? false
            : { servername: target.serverName, rejectUnauthorized: target.sslMode === 'verify-full' },
        max: this.#max,
        idleTimeoutMillis: this.#idleMs,
        connectionTimeoutMillis: Math.max(1, timeoutMs),
        application_name: 'orkestra',
        allowExitOnIdle: true,
      });
      // An idle connection that dies is dropped by the pool; its error must not crash the process.
      pool.on('error', () => undefined);
      this.#pools.set(key, pool);
    }
    return pool;
  }
}

/**
 * BoundedQuery asks the server for at most `maxRows + 1` rows of the portal and stops there
 * (instead of fetching the rest in pages), so a large answer never reaches memory.
 */
class BoundedQuery extends pg.Query {
  truncated = false;
  callback: ((error: Error | null | undefined, result: QueryResult) => void) | undefined;

  constructor(sql: string, params: readonly string[], maxRows: number) {
    super({ text: sql, values: [...params], rows: maxRows + 1, queryMode: 'extended' } as never);
  }

  handlePortalSuspended(connection: { sync(): void }): void {
    this.truncated = true;
    connection.sync();
  }
}

/** describe turns a driver error into a PostgresQueryError without the password. */
function describe(error: unknown, target: PostgresTarget): PostgresQueryError {
  if (error instanceof PostgresQueryError) return error;
  const e = error as { message?: unknown; code?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  let message = typeof e.message === 'string' ? e.message : String(error);
  if (target.password != null && target.password !== '') message = message.split(target.password).join('***');
  const sqlState = code != null && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const retryable = sqlState == null || RETRYABLE_SQLSTATE.test(sqlState);
  const where = `${target.serverName}:${target.port}/${target.database}`;
  return new PostgresQueryError(
    sqlState == null
      ? `${where}: ${code != null && !message.includes(code) ? `${code}: ` : ''}${message}`
      : `${where}: ${message} (SQLSTATE ${sqlState})`,
    { retryable, sqlState },
  );
}
