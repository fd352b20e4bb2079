/**
 * `protocol: redis` (docs/reference/katalog.md §15.1.1): one read command as upstream writes it
 * (`query: LLEN jobs`, `HGET h "a field"`), from a fixed list of reads with a bounded answer, over
 * one connection per target shared by every CR. The `ioredis` driver is in
 * `@orkestra/protocol-redis`, imported on the first call. The result keeps upstream's shape
 * (`result`: the answer as text; `raw`: `{value}`).
 */
import { stringForm } from '@orkestra/types';
import { clientHolder, defineProtocol, NotRetryable, protocolUrl } from '../protocol-unit.js';
import type { ProtocolAnswer, ProtocolServices, ProtocolSession } from '../protocol-unit.js';
import type { ResultShape } from '../result-shape.js';

/** The part of `@orkestra/protocol-redis` used here (structural, so the driver stays out of this package). */
interface RedisModule {
  readonly RedisClients: new () => {
    run(
      target: {
        host: string;
        serverName: string;
        port: number;
        db: number;
        username?: string | undefined;
        password?: string | undefined;
        tls: boolean;
      },
      command: { command: string; timeoutMs: number },
    ): Promise<unknown>;
    close(): Promise<void>;
  };
}

const REDIS_MODULE = '@orkestra/protocol-redis';

/** REPLY_SHAPES are the reply shapes of the read commands whose reply is never nil. */
export const REPLY_SHAPES: Readonly<Record<string, ResultShape>> = {
  ...Object.fromEntries(
    [
      'DBSIZE',
      'EXISTS',
      'TTL',
      'PTTL',
      'STRLEN',
      'HLEN',
      'HEXISTS',
      'HSTRLEN',
      'LLEN',
      'SCARD',
      'SISMEMBER',
      'ZCARD',
      'ZCOUNT',
      'XLEN',
    ].map((c) => [c, 'number' as const]),
  ),
  PING: 'text',
  TYPE: 'text',
  GETRANGE: 'text',
  MGET: { list: 'any' },
  HMGET: { list: 'any' },
};

export const redisProtocol = defineProtocol({
  name: 'redis',
  reference: 'docs/reference/katalog.md §15.1.1',
  credential:
    'the password of the URL’s user (`default` without one); a password written in the URL is refused',
  addressGuard:
    'the host is resolved and every address checked before connecting, and the connection goes to the checked address (TLS still verifies the host name)',
  errors:
    'an unreachable server, a lost connection or a timeout is retried; a command the server refuses (wrong type, wrong arguments) or that is not a read is not',
  result: { result: 'text', raw: { fields: { value: 'any' } }, json: 'any' },
  // The command names the value's shape (an integer reply, a status, a list); GET and the other
  // replies that may be nil stay open.
  resultOf: (declaration) => {
    const command = /^\s*([A-Za-z]+)(?:\s|$)/.exec(declaration.query ?? '')?.[1]?.toUpperCase();
    const value = command == null ? undefined : REPLY_SHAPES[command];
    return value == null ? undefined : { result: 'text', raw: { fields: { value } }, json: value };
  },
  open: (services) => redisSession(services),
});

function redisSession(services: ProtocolServices): ProtocolSession {
  const client = clientHolder(
    services,
    'redis',
    REDIS_MODULE,
    (module) => new (module as RedisModule).RedisClients(),
  );
  return {
    async call({ declaration, credential, timeoutMs }): Promise<ProtocolAnswer> {
      const url = protocolUrl(
        declaration.url,
        ['redis:', 'rediss:'],
        'invalid redis URL',
        'redis:// or rediss:// only',
      );
      if (url.password !== '')
        throw new NotRetryable(
          'a password in the URL is refused: put it in a Secret and name it in `auth.secretRef`',
        );
      const dbText = url.pathname.replace(/^\//, '');
      if (dbText !== '' && !/^\d{1,2}$/.test(dbText))
        throw new NotRetryable(`database ${dbText} is not a number`);
      services.guard.precheck(url);
      const checked = await services.guard.addresses(url);
      const serverName = url.hostname.replace(/^\[|\]$/g, '');
      const value = await (
        await client.get()
      ).run(
        {
          host: checked?.[0]?.address ?? serverName,
          serverName,
          port: url.port === '' ? 6379 : Number(url.port),
          db: dbText === '' ? 0 : Number(dbText),
          username: url.username === '' ? undefined : decodeURIComponent(url.username),
          password: credential,
          tls: url.protocol === 'rediss:',
        },
        { command: declaration.query ?? '', timeoutMs },
      );
      const plain = value instanceof Buffer ? value.toString('utf8') : value;
      const text = JSON.stringify(plain ?? null);
      if (Buffer.byteLength(text) > services.maxBodyBytes)
        throw new NotRetryable(`the answer exceeds ${services.maxBodyBytes} bytes`);
      return {
        ok: true,
        result: plain == null ? '' : Array.isArray(plain) ? text : stringForm(plain),
        raw: { value: plain ?? null },
        json: plain ?? null,
      };
    },
    close: () => client.close(),
  };
}
