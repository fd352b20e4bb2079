import { startNpmRegistry } from './npm-registry.js';
import type { NpmRegistry } from './npm-registry.js';
import { useServer } from './use-server.js';

/**
 * useNpmRegistry starts a verdaccio npm registry for the test file (beforeAll) and stops it
 * (afterAll). A missing verdaccio skips the file's tests locally and fails under `CI=true`.
 *
 * @example
 * const registry = useNpmRegistry();
 * it('publishes', async () => { writeFileSync('.npmrc', registry().npmrc('@orkestra')); });
 */
export function useNpmRegistry(): () => NpmRegistry {
  return useServer('verdaccio (npm registry)', async () => {
    const server = await startNpmRegistry();
    return { value: server, release: server.stop };
  });
}
