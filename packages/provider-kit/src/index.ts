/**
 * @orkestra/provider-kit helps authors write Orkestra providers: `defineProvider` builds a
 * `ProviderModule` from per-kind handlers with typed (zod) specs, validates every declaration,
 * honours the AbortSignal and lets only `ProviderError`s escape; `createFakeKubeReader` and
 * `createTestRequest` are for unit tests. The conformance suite is the `./conformance` subpath.
 * It never talks to Kubernetes itself.
 *
 * Module hooks (`operatorBox.hooks`, ADR 0052) are made with `defineHook`, module reconcilers
 * (`operatorBox.remote: {module, function}`, ADR 0064) with `defineReconciler`.
 *
 * Main exports: defineProvider, defineHook, defineReconciler, ProviderSchemaError, ProviderErrorCode, createFakeKubeReader,
 * createTestRequest, withTimeout, raceAbort.
 *
 * @example
 * import { defineProvider } from '@orkestra/provider-kit';
 * import { z } from 'zod';
 *
 * export const { configSchema, createProvider } = defineProvider({
 *   name: 'hello',
 *   configSchema: z.object({}),
 *   kinds: {
 *     greeting: {
 *       schema: z.object({ to: z.string().min(1) }),
 *       reconcile: async ({ spec }) => ({ state: 'ready', outputs: { text: `Hello, ${spec.to}` } }),
 *       delete: async () => ({ state: 'deleted' }),
 *     },
 *   },
 * });
 */
export { abortedError, isTimeoutReason, raceAbort, throwIfAborted, withTimeout } from './abort.js';
export { createSilentLogger, createTestRequest } from './create-test-request.js';
export type { TestRequestOptions } from './create-test-request.js';
export { defineHook } from './define-hook.js';
export { defineReconciler } from './define-reconciler.js';
export { defineProvider } from './define-provider.js';
export type {
  DefinedProvider,
  DefineProviderOptions,
  ErrorTranslator,
  KindDefinition,
  KindRequest,
} from './define-provider.js';
export { createFakeKubeReader } from './fake-kube-reader.js';
export type { FakeKubeReader, FakeKubeReaderContents, FakeSecretData, KubeRead } from './fake-kube-reader.js';
export { ProviderErrorCode } from './provider-error-code.js';
export { formatPath, ProviderSchemaError, schemaIssues } from './provider-schema-error.js';
export type { ProviderSchemaErrorOptions, SchemaIssue } from './provider-schema-error.js';
