/**
 * The Redis client of `protocol: redis` external calls (docs/reference/katalog.md §15.1.1,
 * docs/adr/0053-external-protocols-are-units.md). It lives in its own package so the operator loads
 * the `ioredis` driver only when a Katalog asks for it. Only read commands with a bounded answer
 * run (REDIS_READ_COMMANDS); each argument is sent as its own length-prefixed string, so a value
 * cannot start another command. Connections go to the address the caller checked (`host`), one
 * per target shared by every call, closed by `close()`. No error message carries the password.
 */
import { Redis } from 'ioredis';

/** REDIS_READ_COMMANDS are the commands a call may run: reads whose answer is one value or one per argument. */
export const REDIS_READ_COMMANDS: readonly string[] = [
  'PING',
  'DBSIZE',
  'EXISTS',
  'TYPE',
  'TTL',
  'PTTL',
  'GET',
  'MGET',
  'STRLEN',
  'GETRANGE',
  'HGET',
  'HMGET',
  'HLEN',
  'HEXISTS',
  'HSTRLEN',
  'LLEN',
  'LINDEX',
  'SCARD',
  'SISMEMBER',
  'ZCARD',
  'ZSCORE',
  'ZCOUNT',
  'XLEN',
];

/** RedisTarget is where to connect: `host` is the address the caller's address guard checked. */
export interface RedisTarget {
  readonly host: string;
  /** The hostname of the URL, for TLS server name checks. */
  readonly serverName: string;
  readonly port: number;
  /** The database number (the URL's path). */
  readonly db: number;
  /** The ACL user, if any (the URL's user name). */
  readonly username?: string | undefined;
  /** From the call's `auth` (a Secret); never from the URL. */
  readonly password?: string | undefined;
  /** `rediss://`: TLS with certificate checks. */
  readonly tls: boolean;
}

/** RedisCommand is one read command as upstream writes it (`HGET jobs "a field"`). */
export interface RedisCommand {
  readonly command: string;
  /** The command timeout, also the connect timeout. */
  readonly timeoutMs: number;
}

/** RedisQueryError is a failed command: `retryable` unless the server refused the command itself. */
export class RedisQueryError extends Error {
  override readonly name = 'RedisQueryError';
  readonly code = 'RedisQueryFailed';
  readonly retryable: boolean;

  constructor(message: string, options: { retryable: boolean }) {
    super(message);
    this.retryable = options.retryable;
  }
}

/**
 * splitCommand splits upstream's command string into words: whitespace separates, double or single
 * quotes group (`HGET h "a field"`). Throws RedisQueryError for an unclosed quote or a command that
 * is not a read (REDIS_READ_COMMANDS).
 */
export function splitCommand(text: string): readonly string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s"']\S*)/g;
  const rest = text.replace(
    pattern,
    (_all, dq: string | undefined, sq: string | undefined, bare: string | undefined) => {
      words.push(dq != null ? dq.replace(/\\(.)/g, '$1') : (sq ?? bare ?? ''));
      return '';
    },
  );
  if (rest.trim() !== '')
    throw new RedisQueryError(`unclosed quote in ${JSON.stringify(text)}`, { retryable: false });
  const command = (words[0] ?? '').toUpperCase();
  if (!REDIS_READ_COMMANDS.includes(command))
    throw new RedisQueryError(
      `${command === '' ? 'an empty command' : `command ${command}`} is not allowed: a call runs one of ${REDIS_READ_COMMANDS.join(', ')}`,
      { retryable: false },
    );
  return [command, ...words.slice(1)];
}

/**
 * RedisClients holds one connection per target, shared by every call to it (across CRs).
 *
 * @example
 * const clients = new RedisClients();
 * const value = await clients.run(target, { command: 'LLEN jobs', timeoutMs: 5000 });
 * await clients.close();
 */
export class RedisClients {
  readonly #clients = new Map<string, Redis>();
  #closed = false;

  /** size is the number of open connections (one per target). */
  get size(): number {
    return this.#clients.size;
  }

  /** run sends one read command and returns the server's answer; throws RedisQueryError. */
  async run(target: RedisTarget, command: RedisCommand): Promise<unknown> {
    if (this.#closed) throw new RedisQueryError('the Redis connections are closed', { retryable: true });
    const [name = '', ...args] = splitCommand(command.command);
    const client = await this.#client(target, command.timeoutMs);
    try {
      return await client.call(name, ...args);
    } catch (error) {
      throw describe(error, target);
    }
  }

  /** close ends every connection (a Katalog reload, shutdown); later commands fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.allSettled(clients.map((c) => c.quit().catch(() => c.disconnect())));
  }

  async #client(target: RedisTarget, timeoutMs: number): Promise<Redis> {
    const key = JSON.stringify([
      target.host,
      target.serverName,
      target.port,
      target.db,
      target.username ?? null,
      target.password ?? null,
      target.tls,
    ]);
    const existing = this.#clients.get(key);
    if (existing != null && existing.status === 'ready') return existing;
    if (existing != null) {
      this.#clients.delete(key);
      existing.disconnect();
    }
    const client = new Redis({
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.username == null ? {} : { username: target.username }),
      ...(target.password == null ? {} : { password: target.password }),
      ...(target.tls ? { tls: { servername: target.serverName } } : {}),
      lazyConnect: true,
      connectTimeout: Math.max(1, timeoutMs),
      commandTimeout: Math.max(1, timeoutMs),
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // A lost connection is not re-dialled in the background: the next call opens a new one.
      retryStrategy: () => null,
      connectionName: 'orkestra',
    });
    // Errors reach the command that failed; the event must not go unheard. The last one says why
    // a connection attempt failed (connect() itself only says the connection closed).
    let lastError: unknown;
    client.on('error', (error: unknown) => {
      lastError = error;
    });
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw describe(lastError ?? error, target);
    }
    this.#clients.set(key, client);
    return client;
  }
}

/** describe turns a driver error into a RedisQueryError without the password. */
function describe(error: unknown, target: RedisTarget): RedisQueryError {
  if (error instanceof RedisQueryError) return error;
  const e = error as { message?: unknown; code?: unknown; name?: unknown };
  let message = typeof e.message === 'string' ? e.message : String(error);
  if (target.password != null && target.password !== '') message = message.split(target.password).join('***');
  const code = typeof e.code === 'string' && !message.includes(e.code) ? `${e.code}: ` : '';
  // A ReplyError is the server refusing the command (wrong type, wrong arguments, no permission).
  const refused = e.name === 'ReplyError' && !/^(LOADING|BUSY|TRYAGAIN|MASTERDOWN)/.test(message);
  return new RedisQueryError(`${target.serverName}:${target.port}/${target.db}: ${code}${message}`, {
    retryable: !refused,
  });
}
