/**
 * KafkaClients against a real single-node KRaft Kafka (`pnpm testenv:build kafka`): a topic's
 * partition count, a consumer group's lag, one admin connection per target, every connection
 * through the guard (also the broker the metadata names), a refused unknown topic and a stopped
 * broker ending at the timeout.
 */
import { pauseProcess } from '@orkestra/testenv';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { useKafka } from '@orkestra/testenv/vitest';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaClients, KafkaQueryError } from '../src/index.js';
import type { KafkaConnectGuard, KafkaTarget } from '../src/index.js';

const server = useKafka();
const checked: string[] = [];
const guard: KafkaConnectGuard = {
  precheck: (host) => {
    checked.push(host);
    if (host === '169.254.169.254') throw new Error(`refused ${host}: cloud metadata address`);
  },
  lookup: dnsLookup as LookupFunction,
};
const clients = new KafkaClients({ guard });
const target = (): KafkaTarget => ({ brokers: [{ host: '127.0.0.1', port: server().port }], tls: false });

beforeAll(async () => {
  const kafka = new Kafka({ brokers: [server().brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 3 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: 'events',
    messages: [0, 1, 2, 0, 1, 0].map((partition, i) => ({ partition, value: `m${i}` })),
  });
  await producer.disconnect();
  // The group has read the first message of partition 0 and everything of partition 1.
  await admin.setOffsets({
    groupId: 'workers',
    topic: 'events',
    partitions: [
      { partition: 0, offset: '1' },
      { partition: 1, offset: '2' },
    ],
  });
  await admin.disconnect();
}, 120_000);

afterAll(async () => {
  await clients.close();
});

describe('KafkaClients', () => {
  it('reads a topic’s partition count and offsets', async () => {
    const answer = await clients.topic(target(), 'events', 5000);
    expect(answer.partitionCount).toBe(3);
    expect(answer.offsets.map((o) => o.high)).toEqual(['3', '2', '1']);
  });

  it('reads a group’s lag: newest minus committed, an uncommitted partition counted from its oldest offset', async () => {
    const answer = await clients.lag(target(), 'workers', 'events', 5000);
    // Partition 0: 3 - 1; partition 1: 2 - 2; partition 2 (never committed): 1 - 0.
    expect(answer).toEqual({ partitions: 3, lag: 3 });
  });

  it('shares one admin connection per target, every socket through the guard', async () => {
    checked.length = 0;
    await Promise.all([1, 2, 3].map(() => clients.topic(target(), 'events', 5000)));
    expect(clients.size).toBe(1);
    const fresh = new KafkaClients({ guard });
    await fresh.topic(target(), 'events', 5000);
    await fresh.close();
    // The bootstrap broker and the broker the metadata names (the same address here) were checked.
    expect(checked.length).toBeGreaterThanOrEqual(1);
    expect(checked.every((h) => h === '127.0.0.1')).toBe(true);
  });

  it('a blocked broker is never connected to', async () => {
    const error = await clients
      .topic({ brokers: [{ host: '169.254.169.254', port: 9092 }], tls: false }, 'events', 2000)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KafkaQueryError);
    expect((error as Error).message).toMatch(/refused 169\.254\.169\.254|metadata/);
  });

  it('an unknown topic is refused, not retryable', async () => {
    const error = await clients.topic(target(), 'no-such-topic', 5000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KafkaQueryError);
    expect((error as KafkaQueryError).retryable).toBe(false);
  });

  it('a down broker fails retryable, a stopped one ends at the timeout', async () => {
    const down = await clients
      .topic({ brokers: [{ host: '127.0.0.1', port: 9 }], tls: false }, 'events', 2000)
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(KafkaQueryError);
    expect((down as KafkaQueryError).retryable).toBe(true);
    expect((down as Error).message).toMatch(/ECONNREFUSED|Connection error/);
    const fresh = new KafkaClients({ guard });
    const resume = await pauseProcess(server().pid);
    try {
      const started = Date.now();
      const error = await fresh.topic(target(), 'events', 800).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(error).toBeInstanceOf(KafkaQueryError);
      expect((error as KafkaQueryError).retryable).toBe(true);
    } finally {
      resume();
      void fresh.close();
    }
  });
});
