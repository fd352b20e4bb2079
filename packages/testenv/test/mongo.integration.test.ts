import { useMongo } from '@orkestra/testenv/vitest';
import { MongoClient, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';

const mongo = useMongo();

describe('FerretDB', () => {
  it('inserts and finds documents as the setup user', async () => {
    const client = await MongoClient.connect(mongo().uri);
    try {
      const things = client.db('orkestra').collection<{ name: string; size: number }>('things');
      await things.insertMany([
        { name: 'a', size: 1 },
        { name: 'b', size: 2 },
        { name: 'c', size: 3 },
      ]);
      const found = await things
        .find({ size: { $gte: 2 } }, { projection: { _id: 0 } })
        .sort({ name: 1 })
        .toArray();
      expect(found).toEqual([
        { name: 'b', size: 2 },
        { name: 'c', size: 3 },
      ]);
    } finally {
      await client.close();
    }
  });

  it('rejects a wrong password', async () => {
    const server = mongo();
    const uri = server.uri.replace(`:${server.password}@`, ':wrong@');
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
    await expect(client.connect()).rejects.toThrow();
    await client.close();
  });

  it('creates a user that can then log in', async () => {
    const server = mongo();
    const admin = await MongoClient.connect(server.uri);
    try {
      await admin.db(server.database).command({ createUser: 'app', pwd: 'app-secret', roles: [] });
      const uri = server.uri.replace(`${server.username}:${server.password}@`, 'app:app-secret@');
      const app = await MongoClient.connect(uri);
      try {
        expect(await app.db(server.database).command({ ping: 1 })).toMatchObject({ ok: 1 });
      } finally {
        await app.close();
      }
    } catch (error) {
      if (error instanceof MongoServerError)
        throw new Error(`FerretDB refused: ${error.message}`, { cause: error });
      throw error;
    } finally {
      await admin.close();
    }
  });
});
