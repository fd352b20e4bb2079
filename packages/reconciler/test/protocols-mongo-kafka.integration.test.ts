/**
 * `protocol: mongo` and `protocol: kafka` against real servers (docs/reference/katalog.md §15.1.1,
 * ADR 0059): FerretDB for the MongoDB wire protocol (`pnpm testenv:build ferretdb`) and a
 * single-node KRaft Kafka from Maven Central (`pnpm testenv:build kafka`), the runtime on the local
 * control plane. Each protocol: its result in the template context, a down server
 * (ExternalCallFailed, the runtime carries on), a stopped one (the timeout) and an injection attempt
 * through a CR value (bound as a value or refused, never an operator or another name).
 */
import { pauseProcess } from '@orkestra/testenv';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { useKafka, useMongo } from '@orkestra/testenv/vitest';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { katalogFrom, readyOf, useRuntimeTest, waitFor } from './runtime-helpers.js';
import type { CrObject } from './runtime-helpers.js';

const mongo = useMongo();
const kafka = useKafka();

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'mk',
  kind: 'Meter',
  plural: 'meters',
});

let runtime: KatalogRuntime;

beforeAll(async () => {
  const admin = await MongoClient.connect(mongo().uri);
  await admin
    .db('shop')
    .collection('orders')
    .insertMany([
      { owner: 'web', status: 'open' },
      { owner: 'web', status: 'open' },
      { owner: 'web', status: 'done' },
      { owner: 'api', status: 'open' },
    ]);
  await admin.close();
  const cluster = new Kafka({ brokers: [kafka().brokers], logLevel: logLevel.NOTHING });
  const kadmin = cluster.admin();
  await kadmin.connect();
  await kadmin.createTopics({ topics: [{ topic: 'events', numPartitions: 3 }], waitForLeaders: true });
  const producer = cluster.producer();
  await producer.connect();
  await producer.send({
    topic: 'events',
    messages: [0, 0, 0, 1, 2].map((partition, i) => ({ partition, value: `m${i}` })),
  });
  await producer.disconnect();
  await kadmin.setOffsets({
    groupId: 'workers',
    topic: 'events',
    partitions: [
      { partition: 0, offset: '1' },
      { partition: 1, offset: '1' },
      { partition: 2, offset: '1' },
    ],
  });
  await kadmin.disconnect();
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'mongo-reader' }, stringData: { password: mongo().password } },
  });
  const mongoPort = new URL(mongo().uri).port;
  const mongoUrl = `mongodb://${mongo().username}@127.0.0.1:${mongoPort}/${mongo().database}`;
  const katalog = katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: protocols-mongo-kafka}
spec:
  crds:
    meter:
      apiTypes: {group: ${group}, version: v1, kind: Meter, plural: meters}
      resync: "0"
      operatorBox:
        external:
          - name: orders
            protocol: mongo
            url: ${mongoUrl}
            query: 'shop.orders {"owner": "$1", "status": "open"}'
            params: ["{{ spec.owner }}"]
            auth: {secretRef: {name: mongo-reader, key: password}}
            timeout: 1s
            when: [{field: spec.owner, exists: true}]
          - name: deadMongo
            protocol: mongo
            url: "{{ spec.deadMongo }}"
            query: shop.orders
            timeout: 2s
            when: [{field: spec.deadMongo, exists: true}]
          - name: topic
            protocol: kafka
            url: ${kafka().url}
            query: "@{{ spec.topic }}"
            timeout: 2s
            when: [{field: spec.topic, exists: true}]
          - name: backlog
            protocol: kafka
            url: ${kafka().url}
            query: "{{ spec.group }}/events"
            timeout: 1s
            when: [{field: spec.group, exists: true}]
          - name: deadKafka
            protocol: kafka
            url: "{{ spec.deadKafka }}"
            query: "@events"
            timeout: 2s
            when: [{field: spec.deadKafka, exists: true}]
        status:
          fields:
            - {path: openOrders, value: "{{ external.orders.count }}"}
            - {path: partitionCount, value: "{{ external.topic.partitionCount }}"}
            - {path: lag, value: "{{ external.backlog.lag }}"}
            - {path: lagPartitions, value: "{{ external.backlog.partitions }}"}
`);
  runtime = await startRuntime({ katalog, options: { allowPrivateAddresses: LOOPBACK_CIDRS } });
}, 180_000);

afterAll(async () => {
  await runtime.stop({ timeoutMs: 5000 });
});

const statusOf = (cr: CrObject): Record<string, unknown> => (cr.status ?? {}) as Record<string, unknown>;

async function waitForStatus(name: string, key: string, value: string, what: string): Promise<void> {
  await waitFor(what, async () => statusOf(await crs.get(env.namespace, name))[key] === value, 30_000, 200);
}

async function waitForFailure(name: string, pollMs = 200): Promise<string> {
  await waitFor(
    'ExternalCallFailed',
    async () => readyOf(await crs.get(env.namespace, name))?.reason === 'ExternalCallFailed',
    30_000,
    pollMs,
  );
  return readyOf(await crs.get(env.namespace, name))?.message ?? '';
}

describe('protocol: mongo', () => {
  it('puts the count of a bound filter in the template context', async () => {
    await crs.create(env.namespace, 'mongo-web', { owner: 'web' });
    await waitForStatus('mongo-web', 'openOrders', '2', 'the open order count in the status');
  });

  it('an operator through a CR value is matched as a string, never run', async () => {
    // As an operator this would match every open order (3); as a value it matches none.
    await crs.create(env.namespace, 'mongo-inject', { owner: { $ne: 'nobody' } });
    await waitFor(
      'the injected CR to reconcile',
      async () => {
        const cr = await crs.get(env.namespace, 'mongo-inject');
        return statusOf(cr)['openOrders'] !== undefined || readyOf(cr)?.reason === 'ExternalCallFailed';
      },
      30_000,
      200,
    );
    expect(statusOf(await crs.get(env.namespace, 'mongo-inject'))['openOrders']).toBe('0');
  });

  it('a stopped server times out, a down one fails with ExternalCallFailed; the runtime carries on', async () => {
    const resume = await pauseProcess(mongo().pid);
    try {
      const started = Date.now();
      await crs.create(env.namespace, 'mongo-slow', { owner: 'api' });
      const failure = await waitForFailure('mongo-slow', 100);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(failure).toMatch(/external call orders failed: .*(timed out|timeout|Timeout)/);
    } finally {
      resume();
    }
    await crs.create(env.namespace, 'mongo-down', { deadMongo: 'mongodb://127.0.0.1:9/shop' });
    const failure = await waitForFailure('mongo-down');
    expect(failure).toMatch(/external call deadMongo failed: .*ECONNREFUSED/);
    expect(failure).not.toContain(mongo().password);
    await crs.patchSpec(env.namespace, 'mongo-web', { owner: 'api' });
    await waitForStatus('mongo-web', 'openOrders', '1', 'the runtime to carry on');
  });
});

describe('protocol: kafka', () => {
  it('puts a topic’s partition count and a group’s lag in the template context', async () => {
    await crs.create(env.namespace, 'kafka-topic', { topic: 'events' });
    await waitForStatus('kafka-topic', 'partitionCount', '3', 'the partition count in the status');
    await crs.create(env.namespace, 'kafka-lag', { group: 'workers' });
    // Partition 0: 3 - 1; partitions 1 and 2: 1 - 1.
    await waitForStatus('kafka-lag', 'lag', '2', 'the lag in the status');
    expect(statusOf(await crs.get(env.namespace, 'kafka-lag'))['lagPartitions']).toBe('3');
  });

  it('a CR value cannot name another topic or group shape: it is refused, not read', async () => {
    await crs.create(env.namespace, 'kafka-inject', { topic: 'events,__consumer_offsets' });
    const failure = await waitForFailure('kafka-inject');
    expect(failure).toMatch(/invalid topic name/);
  });

  it('a stopped broker times out, a down one fails with ExternalCallFailed; the runtime carries on', async () => {
    const resume = await pauseProcess(kafka().pid);
    try {
      const started = Date.now();
      await crs.create(env.namespace, 'kafka-slow', { group: 'others' });
      const failure = await waitForFailure('kafka-slow', 100);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(failure).toMatch(/external call backlog failed: .*(timed out|timeout|Timeout)/);
    } finally {
      resume();
    }
    await crs.create(env.namespace, 'kafka-down', { deadKafka: 'kafka://127.0.0.1:9' });
    const failure = await waitForFailure('kafka-down');
    expect(failure).toMatch(/external call deadKafka failed: .*(ECONNREFUSED|Connection error)/);
    await crs.create(env.namespace, 'kafka-after', { topic: 'events' });
    await waitForStatus('kafka-after', 'partitionCount', '3', 'the runtime to carry on');
  });
});
