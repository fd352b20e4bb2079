/**
 * @orkestra/provider-kit/conformance is the conformance suite every provider runs under vitest:
 * idempotent reconcile, idempotent delete, delete of something absent, schema errors naming the
 * field, AbortSignal honoured, and reads only through the KubeReader.
 *
 * Module hooks and module reconcilers (ADR 0064) have their own suite: serializable result, no
 * mutation of the input, bounded time, deterministic, only the contract's result keys.
 *
 * Main exports: describeProviderConformance, conformanceChecks, describeModuleConformance,
 * checkModuleConformance.
 *
 * @example
 * import { describeProviderConformance } from '@orkestra/provider-kit/conformance';
 * import * as hello from '@orkestra/provider-hello';
 *
 * describeProviderConformance({
 *   module: hello,
 *   config: {},
 *   cases: [{ kind: 'greeting', spec: (id) => ({ to: id }), invalid: { spec: { to: '' }, field: 'to' } }],
 * });
 */
export { conformanceChecks, describeProviderConformance } from './describe-provider-conformance.js';
export type {
  ConformanceCase,
  ConformanceCheck,
  ConformanceContext,
  ConformanceModule,
  ConformanceOptions,
} from './describe-provider-conformance.js';
export {
  checkModuleConformance,
  describeModuleConformance,
  ModuleConformanceCheckName,
} from './module-conformance.js';
export type {
  ModuleConformanceCase,
  ModuleConformanceCr,
  ModuleConformanceFailure,
  ModuleConformanceOptions,
} from './module-conformance.js';
