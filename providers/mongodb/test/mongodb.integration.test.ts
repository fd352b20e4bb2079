import { createFakeKubeReader, createSilentLogger, createTestRequest } from '@orkestra/provider-kit';
import type { FakeKubeReader } from '@orkestra/provider-kit';
import { describeProviderConformance } from '@orkestra/provider-kit/conformance';
import { useMongo } from '@orkestra/testenv/vitest';
import type { Provider } from '@orkestra/types';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mongodb from '../src/index.js';

const mongo = useMongo();
let admin: MongoClient;
let provider: Provider;
let kube: FakeKubeReader;
let counter = 0;
const unique = (label: string): string => `${label}${process.pid}x${(counter += 1)}`;

const config = () => ({ uri: mongo().uri, serverSelectionTimeoutMs: 5_000, operationTimeoutMs: 15_000 });

beforeAll(async () => {
  admin = await MongoClient.connect(mongo().uri, { serverSelectionTimeoutMS: 5_000 });
  provider = await mongodb.createProvider({
    name: 'mongodb',
    config: config(),
    logger: createSilentLogger(),
    signal: new AbortController().signal,
  });
  kube = createFakeKubeReader({ secrets: { 'shop/app-db': { password: 'first-password' } } });
});
afterAll(async () => {
  await provider?.close?.();
  await admin?.close();
});

const request = (kind: string, spec: Record<string, unknown>, ownerUid = 'uid-shop') =>
  createTestRequest({ kind, spec, namespace: 'shop', ownerName: 'shop', ownerUid, kube: kube.reader });

async function collectionNames(database: string): Promise<string[]> {
  return (await admin.db(database).listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .sort();
}

async function canLogIn(database: string, username: string, password: string): Promise<boolean> {
  const base = new URL(mongo().uri.replace('mongodb://', 'http://'));
  const uri = `mongodb://${encodeURIComponent(username)}:${encodeURIComponent(password)}@${base.host}/${database}?directConnection=true`;
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.db(database).command({ ping: 1 });
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 18) return false;
    throw error;
  } finally {
    await client.close();
  }
}

describe('mongodb provider against FerretDB', () => {
  it('database: creates it with an ownership marker, outputs a connection string without the password, drops it on delete', async () => {
    const name = unique('db');
    const result = await provider.reconcile(request('database', { name }));
    const host = new URL(mongo().uri.replace('mongodb://', 'http://')).host;
    expect(result).toEqual({
      state: 'ready',
      outputs: { database: name, connectionString: `mongodb://${host}/${name}?directConnection=true` },
    });
    expect(JSON.stringify(result)).not.toContain(mongo().password);
    expect(await collectionNames(name)).toEqual(['orkestra_owner']);
    expect(await provider.reconcile(request('database', { name }))).toEqual(result);
    expect(await provider.delete(request('database', { name }))).toEqual({ state: 'deleted' });
    expect(await collectionNames(name)).toEqual([]);
  });

  it('database: refuses a database marked by another owner and leaves it on delete', async () => {
    const name = unique('db');
    await provider.reconcile(request('database', { name }, 'uid-other'));
    await expect(provider.reconcile(request('database', { name }))).rejects.toMatchObject({
      code: 'DatabaseOwnedByOther',
      retryable: false,
    });
    expect(await provider.delete(request('database', { name }))).toMatchObject({
      state: 'deleted',
      message: expect.stringContaining('left in place') as unknown,
    });
    expect(await collectionNames(name)).toEqual(['orkestra_owner']);
  });

  it('collection: creates it, is idempotent, and drops it on delete', async () => {
    const database = unique('db');
    const spec = { database, name: 'orders' };
    expect(await provider.reconcile(request('collection', spec))).toEqual({
      state: 'ready',
      outputs: { database, collection: 'orders' },
    });
    expect(await provider.reconcile(request('collection', spec))).toEqual({
      state: 'ready',
      outputs: { database, collection: 'orders' },
    });
    expect(await collectionNames(database)).toEqual(['orders']);
    expect(await provider.delete(request('collection', spec))).toEqual({ state: 'deleted' });
    expect(await collectionNames(database)).toEqual([]);
  });

  it('index: creates unique and compound indexes, recreates one whose options drifted, and drops on delete', async () => {
    const database = unique('db');
    await provider.reconcile(request('collection', { database, name: 'sessions' }));
    const byToken = { database, collection: 'sessions', keys: { token: 1 }, unique: true };
    const byTenant = {
      database,
      collection: 'sessions',
      keys: { tenant: 1, createdAt: -1 },
      indexName: 'tenant_recent',
      sparse: true,
    };
    expect(await provider.reconcile(request('index', byToken))).toEqual({
      state: 'ready',
      outputs: { indexName: 'token_1' },
    });
    expect(await provider.reconcile(request('index', byTenant))).toEqual({
      state: 'ready',
      outputs: { indexName: 'tenant_recent' },
    });
    const listed = async () =>
      Object.fromEntries(
        (await admin.db(database).collection('sessions').listIndexes().toArray()).map((i) => [
          i['name'],
          { key: i['key'], unique: i['unique'], sparse: i['sparse'] },
        ]),
      );
    expect(await listed()).toEqual({
      _id_: { key: { _id: 1 }, unique: undefined, sparse: undefined },
      token_1: { key: { token: 1 }, unique: true, sparse: undefined },
      tenant_recent: { key: { tenant: 1, createdAt: -1 }, unique: undefined, sparse: undefined },
    });
    // Out of band: the unique index is replaced by a non-unique one with the same name.
    await admin.db(database).collection('sessions').dropIndex('token_1');
    await admin.db(database).collection('sessions').createIndex({ token: 1 }, { name: 'token_1' });
    expect((await listed())['token_1']?.unique).toBeUndefined();
    await provider.reconcile(request('index', byToken));
    expect((await listed())['token_1']).toEqual({ key: { token: 1 }, unique: true, sparse: undefined });
    expect(await provider.delete(request('index', byTenant))).toEqual({ state: 'deleted' });
    expect(Object.keys(await listed()).sort()).toEqual(['_id_', 'token_1']);
    expect(await provider.delete(request('index', byTenant))).toEqual({ state: 'deleted' });
  });

  it('what FerretDB v1 does not implement (TTL indexes, validators, roles) comes back as a clear, non-retryable NotImplemented error', async () => {
    const database = unique('db');
    const ttl = { database, collection: 'events', keys: { createdAt: 1 }, expireAfterSeconds: 60 };
    await expect(provider.reconcile(request('index', ttl))).rejects.toMatchObject({
      code: 'NotImplemented',
      retryable: false,
      message: expect.stringMatching(
        /createIndexes on .*events failed: NotImplemented \(238\).*expireAfterSeconds.*the server does not support this/,
      ) as unknown,
    });
    const validated = {
      database,
      name: 'orders',
      validator: { $jsonSchema: { bsonType: 'object', required: ['total'] } },
    };
    await expect(provider.reconcile(request('collection', validated))).rejects.toMatchObject({
      code: 'NotImplemented',
      retryable: false,
    });
    const withRoles = {
      database,
      username: unique('app'),
      passwordSecret: { name: 'app-db', key: 'password' },
      roles: [{ role: 'readWrite', db: database }],
    };
    await expect(provider.reconcile(request('user', withRoles))).rejects.toMatchObject({
      code: 'NotImplemented',
      retryable: false,
    });
  });

  // Skipped: FerretDB v1.24 answers createIndexes with NotImplemented (238) for expireAfterSeconds
  // (asserted above); this is the test for a real MongoDB.
  it.skip('index: TTL (skipped: FerretDB v1 has no expireAfterSeconds) — creates it and corrects a changed TTL', async () => {
    const database = unique('db');
    const ttl = {
      database,
      collection: 'events',
      keys: { createdAt: 1 },
      indexName: 'expiry',
      expireAfterSeconds: 3600,
    };
    expect(await provider.reconcile(request('index', ttl))).toEqual({
      state: 'ready',
      outputs: { indexName: 'expiry' },
    });
    await provider.reconcile(request('index', { ...ttl, expireAfterSeconds: 60 }));
    const index = (await admin.db(database).collection('events').listIndexes().toArray()).find(
      (i) => i['name'] === 'expiry',
    );
    expect(index?.['expireAfterSeconds']).toBe(60);
  });

  // Skipped: FerretDB v1.24 accepts `sparse: true` but does not keep it (listIndexes omits it),
  // so the provider would see drift and recreate the index on every reconcile there.
  it.skip('index: sparse (skipped: FerretDB v1 accepts but drops the sparse option) — created and left alone', async () => {
    const database = unique('db');
    const spec = { database, collection: 'people', keys: { nickname: 1 }, sparse: true };
    await provider.reconcile(request('index', spec));
    const before = await admin.db(database).collection('people').listIndexes().toArray();
    await provider.reconcile(request('index', spec));
    expect(await admin.db(database).collection('people').listIndexes().toArray()).toEqual(before);
    expect(before.find((i) => i['name'] === 'nickname_1')?.['sparse']).toBe(true);
  });

  // Skipped: FerretDB v1.24 rejects createIndexes with a "text" key ("can't find index with key").
  it.skip('index: text (skipped: FerretDB v1 has no text indexes) — created and recognised on the next reconcile', async () => {
    const database = unique('db');
    const spec = { database, collection: 'articles', keys: { title: 'text' } };
    expect(await provider.reconcile(request('index', spec))).toEqual({
      state: 'ready',
      outputs: { indexName: 'title_text' },
    });
    const before = await admin.db(database).collection('articles').listIndexes().toArray();
    await provider.reconcile(request('index', spec));
    expect(await admin.db(database).collection('articles').listIndexes().toArray()).toEqual(before);
  });

  // Skipped: FerretDB v1.24 implements neither `create` with a validator nor `collMod`
  // (NotImplemented, asserted above); this is the test for a real MongoDB.
  it.skip('collection: JSON-schema validator (skipped: FerretDB v1 has no validators or collMod) — created, and restored after drift', async () => {
    const database = unique('db');
    const validator = { $jsonSchema: { bsonType: 'object', required: ['total'] } };
    await provider.reconcile(request('collection', { database, name: 'orders', validator }));
    await admin.db(database).command({ collMod: 'orders', validator: {} });
    await provider.reconcile(request('collection', { database, name: 'orders', validator }));
    const [info] = await admin.db(database).listCollections({ name: 'orders' }).toArray();
    expect((info as { options?: { validator?: unknown } }).options?.validator).toEqual(validator);
  });

  // Skipped: FerretDB v1 has authentication but no authorization: createUser/updateUser reject any
  // non-empty roles (NotImplemented, asserted above); this is the test for a real MongoDB.
  it.skip('user: roles (skipped: FerretDB v1 accepts only roles: []) — granted, and restored after drift', async () => {
    const database = unique('db');
    const spec = {
      database,
      username: unique('app'),
      passwordSecret: { name: 'app-db', key: 'password' },
      roles: [{ role: 'readWrite', db: database }],
    };
    await provider.reconcile(request('user', spec));
    await admin.db(database).command({ updateUser: spec.username, roles: [] });
    await provider.reconcile(request('user', spec));
    const info = await admin.db(database).command({ usersInfo: { user: spec.username, db: database } });
    expect((info['users'] as { roles: unknown }[])[0]?.roles).toEqual([{ role: 'readWrite', db: database }]);
  });

  it('user: created with the password from its Secret (roles: [] — FerretDB v1 rejects any role), follows a changed Secret, dropped on delete', async () => {
    const database = unique('db');
    const username = unique('app');
    const spec = { database, username, passwordSecret: { name: 'app-db', key: 'password' } };
    const host = new URL(mongo().uri.replace('mongodb://', 'http://')).host;
    const result = await provider.reconcile(request('user', spec));
    expect(result).toEqual({
      state: 'ready',
      outputs: {
        username,
        database,
        connectionString: `mongodb://${username}@${host}/${database}?directConnection=true`,
      },
    });
    expect(await canLogIn(database, username, 'first-password')).toBe(true);
    expect(await provider.reconcile(request('user', spec))).toEqual(result);
    expect(await canLogIn(database, username, 'first-password')).toBe(true);

    kube.setSecret('shop', 'app-db', { password: 'second-password' });
    try {
      await provider.reconcile(request('user', spec));
      expect(await canLogIn(database, username, 'second-password')).toBe(true);
      expect(await canLogIn(database, username, 'first-password')).toBe(false);
    } finally {
      kube.setSecret('shop', 'app-db', { password: 'first-password' });
    }
    expect(await provider.delete(request('user', spec))).toEqual({ state: 'deleted' });
    expect(await canLogIn(database, username, 'second-password')).toBe(false);
    expect(kube.violations).toEqual([]);
  });

  it('user: a missing password Secret is a clear, retryable error', async () => {
    const spec = {
      database: unique('db'),
      username: 'nobody',
      passwordSecret: { name: 'absent', key: 'password' },
    };
    await expect(provider.reconcile(request('user', spec))).rejects.toMatchObject({
      code: 'PasswordSecretNotFound',
      retryable: true,
      message: 'password Secret shop/absent does not exist',
    });
  });

  it('wrong provider credentials are a non-retryable AuthenticationFailed error', async () => {
    const wrong = await mongodb.createProvider({
      name: 'mongodb',
      config: { ...config(), uri: mongo().uri.replace(`:${mongo().password}@`, ':not-the-password@') },
      logger: createSilentLogger(),
      signal: new AbortController().signal,
    });
    try {
      await expect(wrong.reconcile(request('database', { name: unique('db') }))).rejects.toMatchObject({
        code: 'AuthenticationFailed',
        retryable: false,
      });
    } finally {
      await wrong.close?.();
    }
  });
});

describeProviderConformance({
  module: mongodb,
  config,
  name: 'mongodb',
  namespace: 'shop',
  kube: { secrets: { 'shop/app-db': { password: 'conformance-password' } } },
  cases: [
    {
      kind: 'database',
      spec: (id) => ({ name: `conf${id}` }),
      invalid: { spec: { name: 'has.dot' }, field: 'name' },
      snapshot: async (spec) => await collectionNames((spec as { name: string }).name),
    },
    {
      kind: 'collection',
      spec: (id) => ({ database: 'conformance', name: `c${id}` }),
      invalid: { spec: { database: 'conformance', name: 'system.users' }, field: 'name' },
      snapshot: async (spec) => await collectionNames((spec as { database: string }).database),
    },
    {
      kind: 'index',
      spec: (id) => ({
        database: 'conformance',
        collection: 'indexed',
        keys: { [`f${id}`]: -1 },
        unique: true,
      }),
      invalid: { spec: { database: 'conformance', collection: 'indexed', keys: { a: 2 } }, field: 'keys.a' },
      snapshot: async () =>
        (
          await admin
            .db('conformance')
            .collection('indexed')
            .listIndexes()
            .toArray()
            .catch(() => [])
        )
          .map((i) => i['name'] as string)
          .sort(),
    },
    {
      kind: 'user',
      spec: (id) => ({
        database: 'conformance',
        username: `u${id}`,
        passwordSecret: { name: 'app-db', key: 'password' },
      }),
      invalid: {
        spec: { database: 'conformance', username: 'u', passwordSecret: { name: 'app-db' } },
        field: 'passwordSecret.key',
      },
    },
  ],
});
