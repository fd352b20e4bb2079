/**
 * The Kafka client of `protocol: kafka` external calls (docs/reference/katalog.md §15.1.1,
 * docs/adr/0059-document-and-stream-protocols.md). It lives in its own package so the operator
 * loads the `kafkajs` client only when a Katalog asks for it. It reads, never writes: a topic's
 * partition count, and a consumer group's lag on a topic (the sum over partitions of the newest
 * offset minus the group's committed one). Every connection, to the bootstrap brokers and to the
 * brokers their metadata names, goes through the caller's `guard` (the host checked, the resolved
 * address checked and connected to); one admin client per target is shared by every call and
 * closed by `close()`. No error message carries the password.
 */
import { Socket, connect as netConnect } from 'node:net';
import type { LookupFunction } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Kafka, logLevel } from 'kafkajs';
import type { Admin, ISocketFactory, SASLOptions } from 'kafkajs';

/** KafkaBroker is one bootstrap broker. */
export interface KafkaBroker {
  readonly host: string;
  readonly port: number;
}

/** KafkaSaslMechanism is how a client logs in: PLAIN sends the password, SCRAM proves it knows it. */
type KafkaSaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** KafkaTarget is a cluster: its bootstrap brokers, TLS and SASL credentials. */
export interface KafkaTarget {
  readonly brokers: readonly KafkaBroker[];
  readonly tls: boolean;
  /** SASL, from the call's `auth` (a Secret holding `username:password`); `mechanism` default `plain`. */
  readonly sasl?:
    | {
        readonly username: string;
        readonly password: string;
        readonly mechanism?: KafkaSaslMechanism | undefined;
      }
    | undefined;
}

/**
 * KafkaConnectGuard checks every connection: `precheck` refuses a blocked host before anything
 * (an IP literal or a refused name; throws), `lookup` resolves a name and refuses blocked addresses.
 */
export interface KafkaConnectGuard {
  precheck(host: string): void;
  readonly lookup: LookupFunction;
}

/** KafkaTopicAnswer is a topic's partitions. */
export interface KafkaTopicAnswer {
  readonly partitionCount: number;
  /** The newest offset of each partition (the next one to be written). */
  readonly offsets: readonly { readonly partition: number; readonly high: string; readonly low: string }[];
}

/** KafkaLagAnswer is a consumer group's lag on a topic. */
export interface KafkaLagAnswer {
  readonly partitions: number;
  /** Σ (newest offset − committed offset); a partition without a committed offset counts from its oldest kept offset. */
  readonly lag: number;
}

/**
 * KafkaQueryError is a failed read: `retryable` when a broker was not reached, went away or timed
 * out, not when the cluster refused the request (an unknown topic, a failed login, a permission).
 */
export class KafkaQueryError extends Error {
  override readonly name = 'KafkaQueryError';
  readonly code = 'KafkaQueryFailed';
  readonly retryable: boolean;

  constructor(message: string, options: { retryable: boolean }) {
    super(message);
    this.retryable = options.retryable;
  }
}

/** KafkaClientsOptions configures the clients; every field has a default. */
export interface KafkaClientsOptions {
  /** Checks every connection. Default: none (the operator always passes its address guard). */
  readonly guard?: KafkaConnectGuard;
}

/** The kafkajs error types of a cluster that was not reached, went away or timed out. */
const TRANSIENT = new Set([
  'KafkaJSConnectionError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound',
  'KafkaJSConnectionClosedError',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
]);

/**
 * KafkaClients holds one admin connection per target, shared by every call to it (across CRs).
 *
 * @example
 * const clients = new KafkaClients({ guard });
 * const topic = await clients.topic({ brokers: [{ host: '10.0.0.9', port: 9092 }], tls: false }, 'events', 5000);
 * await clients.close();
 */
export class KafkaClients {
  readonly #admins = new Map<string, Promise<Admin>>();
  readonly #guard: KafkaConnectGuard | undefined;
  #closed = false;

  constructor(options: KafkaClientsOptions = {}) {
    this.#guard = options.guard;
  }

  /** size is the number of open admin connections (one per target). */
  get size(): number {
    return this.#admins.size;
  }

  /** topic reads a topic's partitions and their offsets; throws KafkaQueryError. */
  async topic(target: KafkaTarget, topic: string, timeoutMs: number): Promise<KafkaTopicAnswer> {
    return this.#run(target, timeoutMs, async (admin) => {
      const offsets = await admin.fetchTopicOffsets(topic);
      return {
        partitionCount: offsets.length,
        offsets: offsets
          .map((o) => ({ partition: o.partition, high: o.high, low: o.low }))
          .sort((a, b) => a.partition - b.partition),
      };
    });
  }

  /** lag reads a consumer group's lag on a topic; throws KafkaQueryError. */
  async lag(target: KafkaTarget, group: string, topic: string, timeoutMs: number): Promise<KafkaLagAnswer> {
    return this.#run(target, timeoutMs, async (admin) => {
      const offsets = await admin.fetchTopicOffsets(topic);
      const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      const byPartition = new Map<number, bigint>();
      for (const entry of committed)
        for (const p of entry.partitions) byPartition.set(p.partition, BigInt(p.offset));
      let lag = 0n;
      for (const o of offsets) {
        const high = BigInt(o.high);
        const done = byPartition.get(o.partition) ?? -1n;
        const from = done >= 0n ? done : BigInt(o.low);
        if (high > from) lag += high - from;
      }
      return { partitions: offsets.length, lag: Number(lag) };
    });
  }

  /** close ends every connection (a Katalog reload, shutdown); later reads fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const admins = [...this.#admins.values()];
    this.#admins.clear();
    await Promise.allSettled(admins.map(async (a) => (await a).disconnect()));
  }

  async #run<T>(target: KafkaTarget, timeoutMs: number, read: (admin: Admin) => Promise<T>): Promise<T> {
    if (this.#closed) throw new KafkaQueryError('the Kafka clients are closed', { retryable: true });
    const key = targetKey(target);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new KafkaQueryError(`timed out after ${timeoutMs} ms`, { retryable: true })),
        timeoutMs,
      );
    });
    try {
      const admin = this.#admin(key, target, timeoutMs);
      return await Promise.race([admin.then(read), timeout]);
    } catch (error) {
      const described = describe(error, target);
      if (described.retryable) this.#drop(key);
      throw described;
    } finally {
      clearTimeout(timer);
    }
  }

  #admin(key: string, target: KafkaTarget, timeoutMs: number): Promise<Admin> {
    let admin = this.#admins.get(key);
    if (admin == null) {
      const kafka = new Kafka({
        clientId: 'orkestra',
        brokers: target.brokers.map((b) => `${b.host.includes(':') ? `[${b.host}]` : b.host}:${b.port}`),
        ssl: target.tls,
        ...(target.sasl == null ? {} : { sasl: saslOptions(target.sasl) }),
        connectionTimeout: Math.max(1, timeoutMs),
        requestTimeout: Math.max(1, timeoutMs),
        // The caller retries a failed call (its `retryBackoff`); one attempt here.
        retry: { retries: 0 },
        logLevel: logLevel.NOTHING,
        socketFactory: guardedSockets(this.#guard),
      });
      const created = kafka.admin();
      admin = created.connect().then(() => created);
      this.#admins.set(key, admin);
    }
    return admin;
  }

  #drop(key: string): void {
    const admin = this.#admins.get(key);
    this.#admins.delete(key);
    void admin?.then(
      (a) => a.disconnect(),
      () => undefined,
    );
  }
}

function targetKey(target: KafkaTarget): string {
  return JSON.stringify([
    target.brokers.map((b) => [b.host, b.port]),
    target.tls,
    target.sasl?.username ?? null,
    target.sasl?.password ?? null,
    target.sasl?.mechanism ?? 'plain',
  ]);
}

/** saslOptions is kafkajs's login for a target: PLAIN, or SCRAM with SHA-256 or SHA-512. */
function saslOptions(sasl: NonNullable<KafkaTarget['sasl']>): SASLOptions {
  const { username, password } = sasl;
  switch (sasl.mechanism ?? 'plain') {
    case 'scram-sha-256':
      return { mechanism: 'scram-sha-256', username, password };
    case 'scram-sha-512':
      return { mechanism: 'scram-sha-512', username, password };
    case 'plain':
      return { mechanism: 'plain', username, password };
  }
}

/**
 * guardedSockets opens every broker connection through the guard: the host prechecked, a name
 * resolved by the guard's lookup (so the address connected to is the checked one), TLS verifying
 * the name.
 */
function guardedSockets(guard: KafkaConnectGuard | undefined): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    if (guard != null) {
      try {
        guard.precheck(host);
      } catch (error) {
        const socket = new Socket();
        process.nextTick(() => socket.destroy(error instanceof Error ? error : new Error(String(error))));
        return socket;
      }
    }
    const lookup = guard == null ? {} : { lookup: guard.lookup };
    if (ssl) return tlsConnect({ host, port, servername: host, ...lookup, ...(ssl as object) }, onConnect);
    return netConnect({ host, port, ...lookup }, onConnect);
  };
}

/** describe turns a client error into a KafkaQueryError without the password. */
function describe(error: unknown, target: KafkaTarget): KafkaQueryError {
  if (error instanceof KafkaQueryError) return error;
  // With no retries, kafkajs wraps the failure of the one attempt; the attempt's error says why.
  const wrapped = error as { name?: unknown; originalError?: unknown; cause?: unknown } | null;
  const original =
    wrapped?.originalError ??
    (wrapped?.name === 'KafkaJSNumberOfRetriesExceeded' ? wrapped.cause : undefined);
  if (original != null) return describe(original, target);
  const e = error as {
    name?: unknown;
    message?: unknown;
    retriable?: unknown;
    type?: unknown;
    cause?: unknown;
  };
  let message = typeof e.message === 'string' ? e.message : String(error);
  const cause = e.cause as { message?: unknown } | undefined;
  if (typeof cause?.message === 'string' && !message.includes(cause.message)) message += `: ${cause.message}`;
  const password = target.sasl?.password;
  if (password != null && password !== '') message = message.split(password).join('***');
  const name = typeof e.name === 'string' ? e.name : '';
  const refused = e.type === 'UNKNOWN_TOPIC_OR_PARTITION' || /SASL|authenticat|authoriz/i.test(message);
  const retryable = !refused && (TRANSIENT.has(name) || e.retriable === true);
  const where = target.brokers.map((b) => `${b.host}:${b.port}`).join(',');
  return new KafkaQueryError(`${where}: ${message}`, { retryable });
}
