import { startS3 } from './s3-server.js';
import type { S3Server } from './s3-server.js';
import { useServer } from './use-server.js';

/**
 * useS3 starts a moto S3 server for the test file (beforeAll) and stops it (afterAll). The
 * returned getter yields the running {@link S3Server}; call `reset()` between tests if needed.
 * A missing moto skips the file's tests locally and fails under `CI=true`.
 *
 * @example
 * const s3 = useS3();
 * it('puts', async () => { const client = new S3Client({ endpoint: s3().endpoint, … }); });
 */
export function useS3(): () => S3Server {
  return useServer('moto (S3)', async () => {
    const server = await startS3();
    return { value: server, release: server.stop };
  });
}
