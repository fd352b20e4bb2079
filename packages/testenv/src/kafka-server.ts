import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { startServerProcess } from './server-process.js';
import { tcpProbe } from './tcp-probe.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

const run = promisify(execFile);

/** KafkaServerOptions configures {@link startKafka}. */
export interface KafkaServerOptions extends FindBinaryOptions {
  /** Time Kafka may take to format its log and listen (a JVM start, twice). Default 180 000 ms. */
  readonly startTimeoutMs?: number;
  /**
   * SASL/PLAIN users (name to password): the broker also listens with SASL_PLAINTEXT on another
   * port (`saslPort`, `saslUrl`), where a client must authenticate as one of them. Default none.
   */
  readonly saslUsers?: Readonly<Record<string, string>>;
  /**
   * SASL/SCRAM users (name to password and mechanism) on the same SASL_PLAINTEXT listener: each
   * logs in with its one mechanism only (not with PLAIN, not with the other SCRAM), so a test can
   * tell which mechanism a client used. The storage format writes their credentials. Default none.
   */
  readonly scramUsers?: Readonly<Record<string, KafkaScramUser>>;
}

/** KafkaScramUser is one SCRAM login of {@link KafkaServerOptions.scramUsers}. */
export interface KafkaScramUser {
  readonly password: string;
  readonly mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
}

/** KafkaServer is a running single-node Kafka (KRaft: broker and controller in one process) on loopback. */
export interface KafkaServer {
  readonly host: '127.0.0.1';
  /** The PLAINTEXT broker port. */
  readonly port: number;
  /** `127.0.0.1:<port>`, for clients. */
  readonly brokers: string;
  /** `kafka://127.0.0.1:<port>`, for `protocol: kafka` calls. */
  readonly url: string;
  /** With `saslUsers` or `scramUsers`: the SASL_PLAINTEXT port and its `kafka://` URL. */
  readonly saslPort?: number;
  readonly saslUrl?: string;
  readonly pid: number;
  /** stop terminates Kafka and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startKafka formats a KRaft log in a temporary directory and starts one process that is both
 * broker and controller on free loopback ports, without authentication, resolving once the
 * broker listens. Its classes come from Maven Central (`pnpm testenv:build kafka`), run by the
 * machine's JDK.
 *
 * @example
 * const kafka = await startKafka();
 */
export async function startKafka(options: KafkaServerOptions = {}): Promise<KafkaServer> {
  const bin = findBinary(ServerBinary.KafkaServer, options).path;
  const timeoutMs = options.startTimeoutMs ?? 180_000;
  return await startServerProcess('orkestra-kafka-', async (dir) => {
    const port = await freePort();
    const controller = await freePort();
    const plainUsers = options.saslUsers ?? {};
    const scramUsers = options.scramUsers ?? {};
    const sasl =
      options.saslUsers == null && options.scramUsers == null ? undefined : { port: await freePort() };
    const mechanisms = [
      ...(options.saslUsers == null ? [] : ['PLAIN']),
      ...(options.scramUsers == null ? [] : SCRAM_MECHANISMS),
    ];
    const config = join(dir, 'server.properties');
    writeFileSync(
      config,
      [
        'process.roles=broker,controller',
        'node.id=1',
        `controller.quorum.voters=1@127.0.0.1:${controller}`,
        `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}${sasl == null ? '' : `,SASL_PLAINTEXT://127.0.0.1:${sasl.port}`}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${port}${sasl == null ? '' : `,SASL_PLAINTEXT://127.0.0.1:${sasl.port}`}`,
        'controller.listener.names=CONTROLLER',
        'inter.broker.listener.name=PLAINTEXT',
        `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${sasl == null ? '' : ',SASL_PLAINTEXT:SASL_PLAINTEXT'}`,
        ...(sasl == null
          ? []
          : [
              `sasl.enabled.mechanisms=${mechanisms.join(',')}`,
              `listener.name.sasl_plaintext.plain.sasl.jaas.config=${plainJaas(plainUsers)}`,
              ...SCRAM_MECHANISMS.map(
                (m) =>
                  `listener.name.sasl_plaintext.${m.toLowerCase()}.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
              ),
            ]),
        `log.dirs=${join(dir, 'data')}`,
        'offsets.topic.replication.factor=1',
        'offsets.topic.num.partitions=1',
        'transaction.state.log.replication.factor=1',
        'transaction.state.log.min.isr=1',
        'group.initial.rebalance.delay.ms=0',
        'num.partitions=1',
        'auto.create.topics.enable=false',
        '',
      ].join('\n'),
    );
    const clusterId = kafkaClusterId();
    try {
      const scram = scramArguments(scramUsers);
      await run(bin, ['kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', config, ...scram], {
        timeout: timeoutMs,
      });
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '');
      throw new TestenvError(`kafka storage format failed: ${stderr.trim() || String(error)}`, {
        code: TestenvErrorCode.StartFailed,
      });
    }
    return {
      server: {
        name: 'kafka',
        command: bin,
        args: ['kafka.Kafka', config],
        timeoutMs,
        pollMs: 500,
        isReady: async () => await tcpProbe(port),
      },
      value: () => ({
        host: '127.0.0.1' as const,
        port,
        brokers: `127.0.0.1:${port}`,
        url: `kafka://127.0.0.1:${port}`,
        ...(sasl == null ? {} : { saslPort: sasl.port, saslUrl: `kafka://127.0.0.1:${sasl.port}` }),
      }),
    };
  });
}

/**
 * checkUser refuses a SASL user the broker's configuration could misread. Names and passwords are
 * test values: anything but letters, digits, `_ . -` in a name, and a quote, backslash, comma,
 * bracket or newline in a password, is refused rather than escaped.
 */
function checkUser(name: string, password: string): void {
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || /["\\\n,\]]/.test(password))
    throw new TestenvError(
      `kafka SASL user ${JSON.stringify(name)}: use letters, digits, _ . - and no quotes`,
      {
        code: TestenvErrorCode.StartFailed,
      },
    );
}

/** plainJaas is the broker's PLAIN login module line: one `user_<name>="<password>"` per user. */
function plainJaas(users: Readonly<Record<string, string>>): string {
  const entries = Object.entries(users);
  for (const [name, password] of entries) checkUser(name, password);
  const users_ = entries.map(([name, password]) => `user_${name}="${password}"`).join(' ');
  return `org.apache.kafka.common.security.plain.PlainLoginModule required ${users_};`;
}

const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

/**
 * scramArguments are the storage format's `--add-scram` options: each user's credential for its
 * mechanism, written into the metadata log before the broker starts (KRaft has no ZooKeeper to
 * hold them).
 */
function scramArguments(users: Readonly<Record<string, KafkaScramUser>>): string[] {
  return Object.entries(users).flatMap(([name, user]) => {
    checkUser(name, user.password);
    return ['--add-scram', `${user.mechanism}=[name=${name},password="${user.password}"]`];
  });
}

/**
 * A cluster id: 16 random bytes in base64url, as `kafka-storage random-uuid` prints. Like Kafka's
 * own generator it never starts with '-', which the storage tool's argument parser would read as
 * an option (about one id in 64 otherwise: the format step then fails with "expected one argument").
 */
export function kafkaClusterId(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const id = random(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
