/**
 * `protocol: kafka` with SASL/PLAIN against the local KRaft broker (docs/reference/katalog.md
 * §15.1.1): the credential `username:password` comes from `auth.secretRef` (never inline); the
 * right one reads the topic, a wrong one and none fail without the password in any error or
 * outcome, and the broker's PLAINTEXT listener is only used here to create the topic.
 */
import { ExternalCaller, LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { useKafka } from '@orkestra/testenv/vitest';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PASSWORD = 'reader-pw-71533';
const kafka = useKafka({ saslUsers: { reader: PASSWORD } });

const secrets: Record<string, string> = {
  'shop/kafka-reader/sasl-plain': `reader:${PASSWORD}`,
  'shop/kafka-wrong/sasl-plain': 'reader:not-the-password',
};
const caller = new ExternalCaller({
  allowAddresses: LOOPBACK_CIDRS,
  readSecret: (namespace, name, key) => Promise.resolve(secrets[`${namespace}/${name}/${key}`]),
});
const ctx = { entry: 'meter', namespace: 'shop' };

beforeAll(async () => {
  const cluster = new Kafka({ brokers: [kafka().brokers], logLevel: logLevel.NOTHING });
  const admin = cluster.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 2 }], waitForLeaders: true });
  await admin.disconnect();
}, 120_000);

afterAll(async () => {
  await caller.close();
});

const call = (name: string, secret: string | undefined) =>
  caller.call(
    {
      name,
      protocol: 'kafka',
      url: kafka().saslUrl ?? '',
      query: '@events',
      timeout: '15s',
      ...(secret == null
        ? {}
        : {
            auth: {
              secretRef: { name: secret, key: 'sasl-plain' },
              header: 'Authorization',
              scheme: 'Bearer',
            },
          }),
    },
    ctx,
  );

describe('protocol: kafka with SASL/PLAIN', () => {
  it('reads the topic with the Secret’s credential', async () => {
    const result = await call('topic', 'kafka-reader');
    expect(result.error).toBe('');
    expect(result).toMatchObject({ ok: true, partitionCount: '2' });
  }, 60_000);

  it('fails with a wrong credential, and without one, never showing the password', async () => {
    const wrong = await call('wrong', 'kafka-wrong');
    expect(wrong.ok).toBe(false);
    expect(wrong.error).not.toContain('not-the-password');
    const none = await call('none', undefined);
    expect(none.ok).toBe(false);
    const outcomes = JSON.stringify(caller.outcomes());
    expect(outcomes).not.toContain(PASSWORD);
    expect(outcomes).not.toContain('not-the-password');
    expect(caller.outcomes().find((o) => o.call === 'wrong')).toMatchObject({ outcome: 'error' });
  }, 90_000);
});
