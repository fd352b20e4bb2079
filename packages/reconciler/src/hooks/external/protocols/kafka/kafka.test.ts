import { describe, expect, it } from 'vitest';
import { ExternalCaller } from '../../../external.js';
import type { ExternalCallDeclaration } from '../../../external.js';
import { parseBrokers } from './index.js';

/**
 * `protocol: kafka` without a broker (docs/reference/katalog.md §15.1.1, ADR 0059): the broker
 * list, the guard before any socket, and names a CR value cannot widen. The real broker is in
 * test/protocols-mongo-kafka.integration.test.ts.
 */

describe('parseBrokers', () => {
  it('reads kafka:// lists and upstream’s bare list, TLS, IPv6 and the default port', () => {
    expect(parseBrokers('kafka://a.example:9093,b.example?tls=true')).toEqual({
      brokers: [
        { host: 'a.example', port: 9093 },
        { host: 'b.example', port: 9092 },
      ],
      tls: true,
      sasl: 'plain',
    });
    expect(parseBrokers('broker1:9092, [fd00::1]:9094')).toEqual({
      brokers: [
        { host: 'broker1', port: 9092 },
        { host: 'fd00::1', port: 9094 },
      ],
      tls: false,
      sasl: 'plain',
    });
  });

  it('reads the SASL mechanism, PLAIN by default, and refuses an unknown one', () => {
    expect(parseBrokers('kafka://a:9092?sasl=scram-sha-256').sasl).toBe('scram-sha-256');
    expect(parseBrokers('kafka://a:9092?tls=true&sasl=SCRAM-SHA-512')).toMatchObject({
      tls: true,
      sasl: 'scram-sha-512',
    });
    expect(parseBrokers('kafka://a:9092?sasl=plain').sasl).toBe('plain');
    expect(() => parseBrokers('kafka://a:9092?sasl=gssapi')).toThrow(/sasl="gssapi" is not supported/);
  });

  it('refuses credentials in the URL, other schemes and options, and an empty list', () => {
    expect(() => parseBrokers('kafka://user:pw@a:9092')).toThrow(/credentials in the URL/);
    expect(() => parseBrokers('http://a:9092')).toThrow(/kafka:\/\/ only/);
    expect(() => parseBrokers('kafka://a:9092?group=x')).toThrow(/URL option group/);
    expect(() => parseBrokers('kafka://')).toThrow(/no broker/);
  });
});

describe('protocol: kafka', () => {
  const seen: string[] = [];
  const caller = new ExternalCaller({
    resolve: () => Promise.resolve([{ address: '10.0.0.9', family: 4 }]),
    env: { KAFKA_SASL: 'nouser' },
    importModule: () =>
      Promise.resolve({
        KafkaClients: class {
          topic(_target: unknown, topic: string) {
            seen.push(topic);
            return Promise.resolve({ partitionCount: 6 });
          }
          lag(_target: unknown, group: string, topic: string) {
            seen.push(`${group}/${topic}`);
            return Promise.resolve({ partitions: 6, lag: 1200 });
          }
          close() {
            return Promise.resolve();
          }
        },
      }),
  });
  const call = (over: Partial<ExternalCallDeclaration>): ExternalCallDeclaration => ({
    name: 'k',
    protocol: 'kafka',
    url: 'kafka://kafka.example:9092',
    query: '@events',
    ...over,
  });
  const context = { entry: 'e', namespace: 'ns' };

  it('answers with upstream’s keys', async () => {
    expect(await caller.call(call({}), context)).toMatchObject({
      ok: true,
      result: '6',
      partitionCount: '6',
    });
    expect(await caller.call(call({ query: 'workers/events' }), context)).toMatchObject({
      ok: true,
      result: '1200',
      lag: '1200',
      partitions: '6',
    });
  });

  it('refuses a blocked broker, a name a CR value widened and a credential that is not user:password', async () => {
    seen.length = 0;
    for (const [over, message] of [
      [{ url: 'kafka://169.254.169.254:9092' }, /169\.254\.169\.254/],
      [{ query: '@events,__consumer_offsets' }, /invalid topic name/],
      [{ query: 'a/b/c' }, /expected "@<topic>" or "<group>\/<topic>"/],
      [{ auth: { env: '$KAFKA_SASL' } }, /username:password/],
    ] as const) {
      const result = await caller.call(call(over), context);
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(message);
    }
    expect(seen).toHaveLength(0);
  });
});
