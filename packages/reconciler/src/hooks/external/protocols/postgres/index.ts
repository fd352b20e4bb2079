/**
 * `protocol: postgres` (docs/reference/katalog.md §15.1.1): one literal, read-only SQL statement
 * with the CR's values as bind parameters (`params`, read as `$1`, `$2`, …), in a READ ONLY
 * transaction with a statement timeout, over connections pooled per target and shared by every CR.
 * The `pg` driver is in `@orkestra/protocol-postgres`, imported on the first call. The result keeps
 * upstream's shape (`result`: the first column of the first row as text; `raw`: the first row) and
 * adds `rows` (at most the caller's row limit; `json` is the same list).
 */
import { stringForm } from '@orkestra/types';
import { clientHolder, defineProtocol, NotRetryable, protocolUrl } from '../protocol-unit.js';
import type { ProtocolAnswer, ProtocolServices, ProtocolSession } from '../protocol-unit.js';
import { selectColumns } from './select-columns.js';

/** The part of `@orkestra/protocol-postgres` used here (structural, so the driver stays out of this package). */
interface PostgresModule {
  readonly PostgresPools: new () => {
    query(
      target: {
        host: string;
        serverName: string;
        port: number;
        database: string;
        user: string;
        password?: string | undefined;
        sslMode: 'disable' | 'require' | 'verify-full';
      },
      query: {
        sql: string;
        params: readonly string[];
        timeoutMs: number;
        maxRows: number;
        signal?: AbortSignal;
      },
    ): Promise<{ rows: readonly Readonly<Record<string, unknown>>[]; truncated: boolean }>;
    close(): Promise<void>;
  };
}

/** POSTGRES_MODULE is the package of the driver (a dependency of the operator, loaded like a provider). */
const POSTGRES_MODULE = '@orkestra/protocol-postgres';

export const postgresProtocol = defineProtocol({
  name: 'postgres',
  reference: 'docs/reference/katalog.md §15.1.1',
  credential:
    'the password of the URL’s user; a password written in the URL is refused (the schema refuses a literal one, the call a rendered one)',
  addressGuard:
    'the host is resolved and every address checked before connecting, and the connection goes to the checked address (TLS still verifies the host name)',
  errors:
    'an unreachable server, a lost connection, a timeout or an overloaded server is retried; a refused statement (syntax, permission, a write in the read-only transaction) is not',
  result: {
    rows: { list: { map: 'any' } },
    json: { list: { map: 'any' } },
    result: 'text',
    raw: { map: 'any' },
  },
  // A select list that names its columns plainly closes a row's shape (select-columns.ts).
  resultOf: (declaration) => {
    const columns = declaration.query == null ? undefined : selectColumns(declaration.query);
    if (columns == null) return undefined;
    const row = { fields: Object.fromEntries(columns.map((c) => [c, 'any' as const])) };
    return { rows: { list: row }, json: { list: row }, result: 'text', raw: row };
  },
  open: (services) => postgresSession(services),
});

function postgresSession(services: ProtocolServices): ProtocolSession {
  const client = clientHolder(
    services,
    'postgres',
    POSTGRES_MODULE,
    (module) => new (module as PostgresModule).PostgresPools(),
  );
  return {
    async call({ declaration, credential, signal, timeoutMs }): Promise<ProtocolAnswer> {
      const url = protocolUrl(
        declaration.url,
        ['postgres:', 'postgresql:'],
        'invalid postgres URL',
        'postgres:// only',
      );
      if (url.password !== '')
        throw new NotRetryable(
          'a password in the URL is refused: put it in a Secret and name it in `auth.secretRef`',
        );
      const sslMode = url.searchParams.get('sslmode') ?? 'disable';
      if (sslMode !== 'disable' && sslMode !== 'require' && sslMode !== 'verify-full')
        throw new NotRetryable(`sslmode ${sslMode} is not supported (disable, require, verify-full)`);
      services.guard.precheck(url);
      const checked = await services.guard.addresses(url);
      const serverName = url.hostname.replace(/^\[|\]$/g, '');
      const target = {
        host: checked?.[0]?.address ?? serverName,
        serverName,
        port: url.port === '' ? 5432 : Number(url.port),
        database: decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres',
        user: decodeURIComponent(url.username) || 'postgres',
        password: credential,
        sslMode: sslMode as 'disable' | 'require' | 'verify-full',
      } as const;
      const answer = await (
        await client.get()
      ).query(target, {
        sql: declaration.query ?? '',
        params: declaration.params ?? [],
        timeoutMs,
        maxRows: services.maxRows,
        signal,
      });
      // Plain JSON values (dates as ISO text), within the answer size limit.
      const text = JSON.stringify(answer.rows);
      if (Buffer.byteLength(text) > services.maxBodyBytes)
        throw new NotRetryable(`the rows exceed ${services.maxBodyBytes} bytes`);
      const rows = JSON.parse(text) as Record<string, unknown>[];
      const first = rows[0];
      const firstValue = first == null ? undefined : Object.values(first)[0];
      return {
        ok: true,
        rows,
        json: rows,
        raw: first ?? {},
        result: firstValue == null ? '' : stringForm(firstValue),
      };
    },
    close: () => client.close(),
  };
}
