import { startKafka } from './kafka-server.js';
import type { KafkaServer, KafkaServerOptions } from './kafka-server.js';
import { startMailpit } from './mailpit-server.js';
import type { MailpitServer, MailpitServerOptions } from './mailpit-server.js';
import { startPostgres } from './postgres-server.js';
import type { PostgresServer } from './postgres-server.js';
import { startPrometheus } from './prometheus-server.js';
import type { PrometheusServer } from './prometheus-server.js';
import { startRedis } from './redis-server.js';
import type { RedisServer } from './redis-server.js';
import { useServer } from './use-server.js';

/**
 * usePostgres starts a PostgreSQL server for the test file (beforeAll) and stops it (afterAll). A
 * missing server (`pnpm testenv:build postgres`) skips the file's tests locally and fails under `CI=true`.
 */
export function usePostgres(): () => PostgresServer {
  return useServer('PostgreSQL', async () => {
    const server = await startPostgres();
    return { value: server, release: server.stop };
  });
}

/**
 * usePrometheus starts a Prometheus server for the test file (beforeAll) and stops it (afterAll). A
 * missing server (`pnpm testenv:build prometheus`) skips the file's tests locally and fails under `CI=true`.
 */
export function usePrometheus(): () => PrometheusServer {
  return useServer('Prometheus', async () => {
    const server = await startPrometheus();
    return { value: server, release: server.stop };
  });
}

/**
 * useRedis starts a Redis server for the test file (beforeAll) and stops it (afterAll). A missing
 * server (`pnpm testenv:build redis`) skips the file's tests locally and fails under `CI=true`.
 */
export function useRedis(): () => RedisServer {
  return useServer('Redis', async () => {
    const server = await startRedis();
    return { value: server, release: server.stop };
  });
}

/**
 * useKafka starts a single-node KRaft Kafka for the test file (beforeAll) and stops it (afterAll).
 * A missing server (`pnpm testenv:build kafka`) skips the file's tests locally and fails under `CI=true`.
 * `saslUsers` (PLAIN) and `scramUsers` (SCRAM-SHA-256/512) add a SASL_PLAINTEXT listener for those
 * users (`saslUrl`).
 */
export function useKafka(
  options: Pick<KafkaServerOptions, 'saslUsers' | 'scramUsers'> = {},
): () => KafkaServer {
  return useServer('Kafka', async () => {
    const server = await startKafka(options);
    return { value: server, release: server.stop };
  });
}

/**
 * useMailpit starts Mailpit, a real SMTP server whose received mail is read through its HTTP API,
 * for the test file (beforeAll) and stops it (afterAll). `smtpUsers` makes it require AUTH; `tls`
 * serves STARTTLS or implicit TLS with a certificate of its own CA (`caPem`). A
 * missing server (`pnpm testenv:build mailpit`) skips the file's tests locally and fails under `CI=true`.
 */
export function useMailpit(
  options: Pick<MailpitServerOptions, 'smtpUsers' | 'allowedRecipients' | 'tls'> = {},
): () => MailpitServer {
  return useServer('Mailpit', async () => {
    const server = await startMailpit(options);
    return { value: server, release: server.stop };
  });
}
