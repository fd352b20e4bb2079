/**
 * `protocol: kafka` with SASL/SCRAM-SHA-256 and -512 against the local KRaft broker
 * (docs/reference/katalog.md §15.1.1, ADR 0074): `?sasl=scram-sha-256` or `?sasl=scram-sha-512`
 * picks the mechanism, the credential `username:password` comes from `auth.secretRef` (never
 * inline). The right one reads the topic, a wrong one and none fail without the password in any
 * error or outcome. The broker's SCRAM credentials are written by its storage format
 * (`startKafka({scramUsers})`); its PLAINTEXT listener is only used here to create the topic.
 */
import { ExternalCaller, LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { useKafka } from '@orkestra/testenv/vitest';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PASSWORD = 'scram-pw-40917';
const WRONG = 'not-the-scram-pw';
// Each user logs in with its one mechanism only (not PLAIN, not the other SCRAM), so a pass shows
// the client spoke the mechanism the URL names.
const kafka = useKafka({
  scramUsers: {
    m256: { password: PASSWORD, mechanism: 'SCRAM-SHA-256' },
    m512: { password: PASSWORD, mechanism: 'SCRAM-SHA-512' },
  },
});
const USER = { 'scram-sha-256': 'm256', 'scram-sha-512': 'm512' } as const;
const OTHER = { 'scram-sha-256': 'm512', 'scram-sha-512': 'm256' } as const;

const secrets: Record<string, string> = {
  'shop/kafka-m256/sasl': `m256:${PASSWORD}`,
  'shop/kafka-m512/sasl': `m512:${PASSWORD}`,
  'shop/kafka-wrong/sasl': `m256:${WRONG}`,
  'shop/kafka-nobody/sasl': `nobody:${PASSWORD}`,
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
  await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 3 }], waitForLeaders: true });
  await admin.disconnect();
}, 120_000);

afterAll(async () => {
  await caller.close();
});

const call = (name: string, mechanism: string, secret: string | undefined) =>
  caller.call(
    {
      name,
      protocol: 'kafka',
      url: `${kafka().saslUrl ?? ''}?sasl=${mechanism}`,
      query: '@events',
      timeout: '15s',
      ...(secret == null
        ? {}
        : {
            auth: {
              secretRef: { name: secret, key: 'sasl' },
              header: 'Authorization',
              scheme: 'Bearer',
            },
          }),
    },
    ctx,
  );

describe.each(['scram-sha-256', 'scram-sha-512'] as const)('protocol: kafka with SASL/%s', (mechanism) => {
  it('reads the topic with the Secret’s credential', async () => {
    const result = await call(`topic-${mechanism}`, mechanism, `kafka-${USER[mechanism]}`);
    expect(result.error).toBe('');
    expect(result).toMatchObject({ ok: true, partitionCount: '3' });
  }, 60_000);

  it('does not log in a user of the other mechanism, nor with PLAIN', async () => {
    const other = await call(`other-${mechanism}`, mechanism, `kafka-${OTHER[mechanism]}`);
    expect(other.ok).toBe(false);
    expect(other.error).not.toContain(PASSWORD);
    const plain = await call(`plain-${mechanism}`, 'plain', `kafka-${USER[mechanism]}`);
    expect(plain.ok).toBe(false);
    expect(plain.error).not.toContain(PASSWORD);
  }, 60_000);

  it('fails with a wrong password, an unknown user and none, never showing the password', async () => {
    const wrong = await call(`wrong-${mechanism}`, mechanism, 'kafka-wrong');
    expect(wrong.ok).toBe(false);
    expect(wrong.error).not.toBe('');
    expect(wrong.error).not.toContain(WRONG);
    const nobody = await call(`nobody-${mechanism}`, mechanism, 'kafka-nobody');
    expect(nobody.ok).toBe(false);
    expect(nobody.error).not.toContain(PASSWORD);
    const none = await call(`none-${mechanism}`, mechanism, undefined);
    expect(none.ok).toBe(false);
    const outcomes = JSON.stringify(caller.outcomes());
    expect(outcomes).not.toContain(PASSWORD);
    expect(outcomes).not.toContain(WRONG);
    expect(caller.outcomes().find((o) => o.call === `wrong-${mechanism}`)).toMatchObject({
      outcome: 'error',
    });
  }, 90_000);
});
