/**
 * @orkestra/testenv/vitest holds the vitest helpers for test files: each registers beforeAll /
 * afterAll hooks, skips the file's tests with a one-line reason when a server binary is missing
 * locally, and fails under `CI=true`. The globalSetup itself is `src/global-setup.ts`.
 *
 * Main exports: useControlPlane (shared control plane, a fresh namespace per file), useS3, useMongo, usePostgres, usePrometheus, useRedis, useKafka, useMailpit, useNpmRegistry.
 *
 * @example
 * import { CoreV1Api } from '@kubernetes/client-node';
 * import { useControlPlane } from '@orkestra/testenv/vitest';
 *
 * const env = useControlPlane();
 * it('lists ConfigMaps', async () => {
 *   await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: env.namespace });
 * });
 */
export { useControlPlane } from './use-control-plane.js';
export type { ControlPlaneFixture, UseControlPlaneOptions } from './use-control-plane.js';
export { useS3 } from './use-s3.js';
export { useMongo } from './use-mongo.js';
export { useKafka, useMailpit, usePostgres, usePrometheus, useRedis } from './use-protocol-servers.js';
export { useNpmRegistry } from './use-npm-registry.js';
export type { ProvidedControlPlane } from './provided-control-plane.js';
