import { formatPath } from '@orkestra/provider-kit';
import { describe, expect, it } from 'vitest';
import { sameIndex } from './index-kind.js';
import { MongoConfig } from './mongo-config.js';
import { CollectionSpec, DatabaseSpec, indexName, IndexSpec, UserSpec } from './mongo-specs.js';

const fields = (
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } },
  value: unknown,
) => schema.safeParse(value).error?.issues.map((i) => formatPath(i.path)) ?? [];

describe('mongodb specs', () => {
  it('rejects the server’s own and malformed database names', () => {
    expect(fields(DatabaseSpec, { name: 'admin' })).toEqual(['name']);
    expect(fields(DatabaseSpec, { name: 'a.b' })).toEqual(['name']);
    expect(fields(DatabaseSpec, { name: 'shop' })).toEqual([]);
  });

  it('rejects system collections and accepts a JSON-schema validator', () => {
    expect(fields(CollectionSpec, { database: 'shop', name: 'system.js' })).toEqual(['name']);
    expect(
      fields(CollectionSpec, {
        database: 'shop',
        name: 'orders',
        validator: { $jsonSchema: { required: ['total'] } },
      }),
    ).toEqual([]);
  });

  it('validates index keys and TTL', () => {
    expect(fields(IndexSpec, { database: 'shop', collection: 'c', keys: { a: 2 } })).toEqual(['keys.a']);
    expect(fields(IndexSpec, { database: 'shop', collection: 'c', keys: {} })).toEqual(['keys']);
    expect(
      fields(IndexSpec, { database: 'shop', collection: 'c', keys: { a: 1, b: 1 }, expireAfterSeconds: 5 }),
    ).toEqual(['expireAfterSeconds']);
  });

  it('defaults user roles to [] and needs a password Secret key', () => {
    expect(
      UserSpec.parse({ database: 'shop', username: 'app', passwordSecret: { name: 's', key: 'k' } }).roles,
    ).toEqual([]);
    expect(fields(UserSpec, { database: 'shop', username: 'app', passwordSecret: { name: 's' } })).toEqual([
      'passwordSecret.key',
    ]);
  });

  it('names indexes like the server', () => {
    expect(indexName({ keys: { tenant: 1, createdAt: -1 } })).toBe('tenant_1_createdAt_-1');
    expect(indexName({ keys: { a: 1 }, indexName: 'custom' })).toBe('custom');
  });

  it('compares a listed index with the declaration, key order included', () => {
    const spec = IndexSpec.parse({ database: 'd', collection: 'c', keys: { a: 1, b: -1 }, unique: true });
    expect(sameIndex({ name: 'a_1_b_-1', key: { a: 1, b: -1 }, unique: true }, spec)).toBe(true);
    expect(sameIndex({ name: 'a_1_b_-1', key: { b: -1, a: 1 }, unique: true }, spec)).toBe(false);
    expect(sameIndex({ name: 'a_1_b_-1', key: { a: 1, b: -1 } }, spec)).toBe(false);
    const text = IndexSpec.parse({ database: 'd', collection: 'c', keys: { title: 'text' } });
    expect(
      sameIndex({ name: 'title_text', key: { _fts: 'text', _ftsx: 1 }, weights: { title: 1 } }, text),
    ).toBe(true);
  });

  it('config has timeouts by default', () => {
    expect(MongoConfig.parse({ uri: 'mongodb://h/admin' })).toEqual({
      uri: 'mongodb://h/admin',
      serverSelectionTimeoutMs: 10_000,
      connectTimeoutMs: 10_000,
      operationTimeoutMs: 30_000,
      maxPoolSize: 10,
    });
    expect(MongoConfig.safeParse({ uri: 'http://h' }).success).toBe(false);
  });
});
