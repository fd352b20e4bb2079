/**
 * The reply shapes `ork validate --strict` and `ork simulate` hold a `protocol: redis` call's
 * `raw.value` to (docs/reference/katalog.md §17.5: the command names the value's shape) are the
 * shapes a real Redis answers: every command the shape table names is sent, through the driver the
 * runtime uses, to a real server holding a key of each type, and its answer's JavaScript type must
 * be the table's. A command the table calls a number that the server answers with text (or a list
 * with a number) fails here, before a user's template reads it wrongly.
 */
import { RedisClients } from '@orkestra/protocol-redis';
import { useRedis } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLY_SHAPES, redisProtocol } from '../src/hooks/external/protocols/redis/index.js';
import type { ResultShape } from '../src/hooks/external/protocols/result-shape.js';
import { redisAdmin } from './redis-admin.js';

const redis = useRedis();

/** One sample of each command the shape table names, on the keys seeded below. */
const SAMPLES: readonly string[] = [
  'DBSIZE',
  'EXISTS s',
  'TTL s',
  'PTTL s',
  'STRLEN s',
  'HLEN h',
  'HEXISTS h f',
  'HSTRLEN h f',
  'LLEN l',
  'SCARD set',
  'SISMEMBER set m',
  'ZCARD z',
  'ZCOUNT z -inf +inf',
  'XLEN st',
  'PING',
  'TYPE h',
  'GETRANGE s 0 2',
  'MGET s missing',
  'HMGET h f missing',
];

/** shapeOf is the table's shape of a command's `raw.value` (undefined: left open). */
function shapeOf(command: string): ResultShape | undefined {
  const shape = redisProtocol.resultOf?.({ query: command } as never) as
    { raw?: { fields?: { value?: ResultShape } } } | undefined;
  return shape?.raw?.fields?.value;
}

/** matches tells whether a driver answer has a shape's JavaScript type. */
function matches(value: unknown, shape: ResultShape): boolean {
  if (shape === 'number') return typeof value === 'number';
  if (shape === 'text') return typeof value === 'string';
  if (typeof shape === 'object' && 'list' in shape) return Array.isArray(value);
  return true;
}

const adminWrite = (...commands: string[]): Promise<string> => redisAdmin(redis(), ...commands);

const clients = new RedisClients();

beforeAll(async () => {
  await adminWrite(
    'SET s hello',
    'HSET h f value',
    'RPUSH l a b',
    'SADD set m',
    'ZADD z 1 a',
    'XADD st * k v',
  );
});

afterAll(async () => {
  await clients.close();
});

describe('redis reply shapes', () => {
  it('every command the shape table names is answered by a real Redis with that shape', async () => {
    // The samples cover the whole table: a command added to it without a sample fails here.
    expect(new Set(SAMPLES.map((sample) => sample.split(' ')[0]))).toEqual(
      new Set(Object.keys(REPLY_SHAPES)),
    );
    expect(SAMPLES.filter((sample) => shapeOf(sample) == null)).toEqual([]);
    const wrong: string[] = [];
    for (const sample of SAMPLES) {
      const value = await clients.run(
        {
          host: '127.0.0.1',
          serverName: '127.0.0.1',
          port: redis().port,
          db: 0,
          password: redis().password,
          tls: false,
        },
        { command: sample, timeoutMs: 5_000 },
      );
      const shape = shapeOf(sample) as ResultShape;
      if (!matches(value, shape))
        wrong.push(`${sample}: table says ${JSON.stringify(shape)}, Redis answered ${JSON.stringify(value)}`);
    }
    expect(wrong).toEqual([]);
  });
});
