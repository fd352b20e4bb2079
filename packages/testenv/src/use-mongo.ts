import { startMongo } from './mongo-server.js';
import type { MongoServer } from './mongo-server.js';
import { useServer } from './use-server.js';

/**
 * useMongo starts a FerretDB server for the test file (beforeAll) and stops it (afterAll). The
 * returned getter yields the running {@link MongoServer}. A missing FerretDB skips the file's
 * tests locally and fails under `CI=true`.
 *
 * @example
 * const mongo = useMongo();
 * it('inserts', async () => { const client = await MongoClient.connect(mongo().uri); });
 */
export function useMongo(): () => MongoServer {
  return useServer('FerretDB (MongoDB)', async () => {
    const server = await startMongo();
    return { value: server, release: server.stop };
  });
}
