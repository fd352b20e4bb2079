/**
 * `protocol: mongo` (docs/reference/katalog.md §15.1.1, ADR 0059): upstream's query
 * `<database>.<collection> [filter JSON]`, literal, with the CR's values as bound filter values
 * (`params`, written `"$1"`, `"$2"`, … as string leaves of the filter), so a CR value is never a key
 * or an operator. One count and one bounded find, over connections pooled per target and shared by
 * every CR, straight to the checked address. The `mongodb` driver is in `@orkestra/protocol-mongodb`,
 * imported on the first call. The result keeps upstream's keys: `count` (the matching documents, as
 * text), `documents` (at most the caller's row limit), `result` (the first document as JSON text)
 * and `raw` (`{count}`).
 */
import { parseMongoQuery } from '@orkestra/types';
import { clientHolder, defineProtocol, NotRetryable, protocolUrl } from '../protocol-unit.js';
import type { ProtocolAnswer, ProtocolServices, ProtocolSession } from '../protocol-unit.js';

/** The part of `@orkestra/protocol-mongodb` used here (structural, so the driver stays out of this package). */
interface MongoModule {
  readonly MongoClients: new () => {
    query(
      target: {
        host: string;
        serverName: string;
        port: number;
        username?: string | undefined;
        password?: string | undefined;
        authSource: string;
        tls: boolean;
      },
      query: {
        database: string;
        collection: string;
        filter: Readonly<Record<string, unknown>>;
        timeoutMs: number;
        maxDocuments: number;
      },
    ): Promise<{
      count: number;
      documents: readonly Readonly<Record<string, unknown>>[];
      truncated: boolean;
    }>;
    close(): Promise<void>;
  };
}

const MONGO_MODULE = '@orkestra/protocol-mongodb';

/** URL options a call may set; the others (replica sets, discovery, compression, …) are refused. */
const URL_OPTIONS = new Set(['tls', 'ssl', 'authSource', 'directConnection', 'appName']);

export const mongoProtocol = defineProtocol({
  name: 'mongo',
  reference: 'docs/reference/katalog.md §15.1.1',
  credential:
    'the password of the URL’s user (authenticated against `authSource`, else the URL’s database, else `admin`); a password written in the URL is refused',
  addressGuard:
    'one host per URL (no `mongodb+srv`, no member discovery): it is resolved and every address checked before connecting, and the connection goes to the checked address (TLS still verifies the host name)',
  errors:
    'an unreachable server, a lost connection or a timeout is retried; a refused query (a bad filter, a failed login, a permission) is not',
  result: {
    count: 'text',
    documents: { list: { map: 'any' } },
    json: { list: { map: 'any' } },
    result: 'text',
    raw: { fields: { count: 'number' } },
  },
  open: (services) => mongoSession(services),
});

function mongoSession(services: ProtocolServices): ProtocolSession {
  const client = clientHolder(
    services,
    'mongo',
    MONGO_MODULE,
    (module) => new (module as MongoModule).MongoClients(),
  );
  return {
    async call({ declaration, credential, timeoutMs }): Promise<ProtocolAnswer> {
      const url = protocolUrl(
        declaration.url,
        ['mongodb:'],
        'invalid mongodb URL (one host: mongodb://user@host:port/database)',
        'mongodb:// only',
      );
      // One host: a seed list would let the driver reach members no one checked.
      if (!/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/.test(url.hostname))
        throw new NotRetryable(`host ${url.hostname} is not one host name or address (no seed lists)`);
      if (url.password !== '')
        throw new NotRetryable(
          'a password in the URL is refused: put it in a Secret and name it in `auth.secretRef`',
        );
      for (const key of url.searchParams.keys())
        if (!URL_OPTIONS.has(key))
          throw new NotRetryable(`URL option ${key} is not supported (${[...URL_OPTIONS].join(', ')})`);
      const username = url.username === '' ? undefined : decodeURIComponent(url.username);
      if (username != null && credential == null)
        throw new NotRetryable(`user ${username} needs a password: name its Secret in \`auth.secretRef\``);
      if (username == null && credential != null)
        throw new NotRetryable('`auth` gives a password but the URL names no user (mongodb://user@host/…)');
      const parsed = parseMongoQuery(declaration.query ?? '', declaration.params ?? []);
      if (!parsed.ok) throw new NotRetryable(`query: ${parsed.error}`);
      const tlsText = url.searchParams.get('tls') ?? url.searchParams.get('ssl') ?? 'false';
      services.guard.precheck(url);
      const checked = await services.guard.addresses(url);
      const serverName = url.hostname.replace(/^\[|\]$/g, '');
      const pathDatabase = decodeURIComponent(url.pathname.replace(/^\//, ''));
      const answer = await (
        await client.get()
      ).query(
        {
          host: checked?.[0]?.address ?? serverName,
          serverName,
          port: url.port === '' ? 27017 : Number(url.port),
          username,
          password: credential,
          authSource: url.searchParams.get('authSource') ?? (pathDatabase || 'admin'),
          tls: tlsText === 'true',
        },
        {
          database: parsed.query.database,
          collection: parsed.query.collection,
          filter: parsed.query.filter,
          timeoutMs,
          maxDocuments: services.maxRows,
        },
      );
      const text = JSON.stringify(answer.documents);
      if (Buffer.byteLength(text) > services.maxBodyBytes)
        throw new NotRetryable(`the documents exceed ${services.maxBodyBytes} bytes`);
      const first = answer.documents[0];
      return {
        ok: true,
        count: String(answer.count),
        documents: answer.documents,
        json: answer.documents,
        result: first == null ? '' : JSON.stringify(first),
        raw: { count: answer.count },
      };
    },
    close: () => client.close(),
  };
}
