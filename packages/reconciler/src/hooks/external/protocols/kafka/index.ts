/**
 * `protocol: kafka` (docs/reference/katalog.md §15.1.1, ADR 0059): upstream's two reads, never a
 * write. `@<topic>` reads the topic's partitions (`partitionCount`, and `result`, as text);
 * `<group>/<topic>` reads the group's lag on the topic (`lag` and `result`: the sum over partitions
 * of the newest offset minus the committed one; `partitions`). The URL is a broker list,
 * `kafka://broker1:9092,broker2:9092` (upstream's bare list is read too); `?tls=true` speaks TLS.
 * Every connection, to a listed broker or to one the cluster's metadata names, goes through the
 * address guard. The `kafkajs` client is in `@orkestra/protocol-kafka`, imported on the first call.
 */
import { KAFKA_SASL_MECHANISMS } from '@orkestra/types';
import { clientHolder, defineProtocol, NotRetryable } from '../protocol-unit.js';
import type { ProtocolAnswer, ProtocolServices, ProtocolSession } from '../protocol-unit.js';

/**
 * The SASL mechanisms of `?sasl=` (those @orkestra/protocol-kafka speaks): PLAIN (the default) sends
 * the password, SCRAM proves it. The schema refuses any other in a literal URL.
 */
const SASL_MECHANISMS = KAFKA_SASL_MECHANISMS;
type SaslMechanism = (typeof SASL_MECHANISMS)[number];

interface KafkaTarget {
  readonly brokers: readonly { readonly host: string; readonly port: number }[];
  readonly tls: boolean;
  readonly sasl?:
    { readonly username: string; readonly password: string; readonly mechanism: SaslMechanism } | undefined;
}

/** The part of `@orkestra/protocol-kafka` used here (structural, so the client stays out of this package). */
interface KafkaModule {
  readonly KafkaClients: new (options: {
    guard: { precheck(host: string): void; readonly lookup: ProtocolServices['guard']['lookup'] };
  }) => {
    topic(target: KafkaTarget, topic: string, timeoutMs: number): Promise<{ partitionCount: number }>;
    lag(
      target: KafkaTarget,
      group: string,
      topic: string,
      timeoutMs: number,
    ): Promise<{ partitions: number; lag: number }>;
    close(): Promise<void>;
  };
}

const KAFKA_MODULE = '@orkestra/protocol-kafka';

/** Kafka's legal topic and group names (a group may hold more, but not `/`, which splits the query). */
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;
const GROUP = /^[A-Za-z0-9._-]{1,255}$/;

export const kafkaProtocol = defineProtocol({
  name: 'kafka',
  reference: 'docs/reference/katalog.md §15.1.1',
  credential:
    'SASL `username:password` (split at the first `:`), PLAIN or SCRAM-SHA-256/512 by `?sasl=`; none without `auth`',
  addressGuard:
    'every broker connection, to a listed broker or to one named by the cluster’s metadata, is prechecked and its host resolved and checked by the guard, and the socket goes to the checked address',
  errors:
    'an unreachable broker, a lost connection or a timeout is retried; a refused read (an unknown topic, a failed login, a permission) is not',
  // `@topic` answers partitionCount; `group/topic` answers lag and partitions.
  result: {
    result: 'text',
    partitionCount: 'text',
    lag: 'text',
    partitions: 'text',
    raw: { fields: { partitionCount: 'number', lag: 'number', partitions: 'number' } },
  },
  open: (services) => kafkaSession(services),
});

/**
 * parseBrokers reads `kafka://h1:9092,h2:9092?tls=true&sasl=scram-sha-512` or upstream's bare
 * `h1:9092,h2:9092`. `sasl` (default `plain`) is the mechanism a credential logs in with.
 */
export function parseBrokers(text: string): {
  brokers: KafkaTarget['brokers'];
  tls: boolean;
  sasl: SaslMechanism;
} {
  let rest = text.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(rest);
  if (scheme != null) {
    if (scheme[1]?.toLowerCase() !== 'kafka')
      throw new NotRetryable(`unsupported URL scheme ${scheme[1] ?? ''}: (kafka:// only)`);
    rest = rest.slice(scheme[0].length);
  }
  let tls = false;
  let sasl: SaslMechanism = 'plain';
  const q = rest.indexOf('?');
  if (q !== -1) {
    const options = new URLSearchParams(rest.slice(q + 1));
    for (const key of options.keys())
      if (key !== 'tls' && key !== 'sasl')
        throw new NotRetryable(`URL option ${key} is not supported (tls, sasl)`);
    tls = options.get('tls') === 'true';
    const mechanism = options.get('sasl');
    if (mechanism != null) {
      const known = SASL_MECHANISMS.find((m) => m === mechanism.toLowerCase());
      if (known == null)
        throw new NotRetryable(
          `sasl=${JSON.stringify(mechanism)} is not supported (${SASL_MECHANISMS.join(', ')})`,
        );
      sasl = known;
    }
    rest = rest.slice(0, q);
  }
  rest = rest.replace(/\/$/, '');
  if (rest.includes('@'))
    throw new NotRetryable(
      'credentials in the URL are refused: put `username:password` in a Secret and name it in `auth.secretRef`',
    );
  const brokers = rest
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '')
    .map((b) => {
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(b);
      const port = Number(match?.[2] ?? '9092');
      if (match?.[1] == null || port < 1 || port > 65535)
        throw new NotRetryable(`invalid broker ${JSON.stringify(b)} (host:port)`);
      return { host: match[1].replace(/^\[|\]$/g, ''), port };
    });
  if (brokers.length === 0) throw new NotRetryable('the URL names no broker');
  if (brokers.length > 16) throw new NotRetryable('more than 16 brokers');
  return { brokers, tls, sasl };
}

function kafkaSession(services: ProtocolServices): ProtocolSession {
  const guard = {
    precheck: (host: string): void =>
      services.guard.precheck(new URL(`kafka://${host.includes(':') ? `[${host}]` : host}`)),
    lookup: services.guard.lookup,
  };
  const client = clientHolder(
    services,
    'kafka',
    KAFKA_MODULE,
    (module) => new (module as KafkaModule).KafkaClients({ guard }),
  );
  return {
    async call({ declaration, credential, timeoutMs }): Promise<ProtocolAnswer> {
      const { brokers, tls, sasl: mechanism } = parseBrokers(declaration.url);
      let sasl: KafkaTarget['sasl'];
      if (credential != null) {
        const colon = credential.indexOf(':');
        if (colon <= 0) throw new NotRetryable('the kafka credential is `username:password` (SASL)');
        sasl = { username: credential.slice(0, colon), password: credential.slice(colon + 1), mechanism };
      }
      // Refuse a blocked bootstrap broker before the client exists (the socket check repeats it).
      for (const broker of brokers) guard.precheck(broker.host);
      const target: KafkaTarget = { brokers, tls, sasl };
      const query = (declaration.query ?? '').trim();
      if (query.startsWith('@')) {
        const topic = query.slice(1);
        if (!TOPIC.test(topic)) throw new NotRetryable(`invalid topic name ${JSON.stringify(topic)}`);
        const answer = await (await client.get()).topic(target, topic, timeoutMs);
        const count = String(answer.partitionCount);
        return {
          ok: true,
          result: count,
          partitionCount: count,
          raw: { partitionCount: answer.partitionCount },
        };
      }
      const slash = query.indexOf('/');
      const group = query.slice(0, slash);
      const topic = query.slice(slash + 1);
      if (slash === -1 || !GROUP.test(group) || !TOPIC.test(topic))
        throw new NotRetryable(`query ${JSON.stringify(query)}: expected "@<topic>" or "<group>/<topic>"`);
      const answer = await (await client.get()).lag(target, group, topic, timeoutMs);
      const lag = String(answer.lag);
      return {
        ok: true,
        result: lag,
        lag,
        partitions: String(answer.partitions),
        raw: { lag: answer.lag, partitions: answer.partitions },
      };
    },
    close: () => client.close(),
  };
}
