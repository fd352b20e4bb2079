/**
 * @orkestra/reconciler runs a Katalog against a cluster: informers and their read-only caches, the
 * work queue, the resizable dispatcher, resync, the reconcile pipeline (status, finalizers,
 * pruning, hooks, provider dispatch) and the autoscaler. It never renders a manifest itself (that
 * is @orkestra/registry) and never names a provider (it loads the `Provider` interface by name).
 *
 * This index is what other packages use (ADR 0013): the runtime and its options, the one tuning
 * object, the observer the operator's metrics implement and the label values they emit, and the
 * address guard the security tests drive. Offline runs of the same pipeline are
 * `@orkestra/reconciler/offline`; Katalog revisions and rollouts are `@orkestra/reconciler/rollout`.
 *
 * @example
 * const runtime = createKatalogRuntime({ katalog, kubeConfig, logger, observer: metrics.sink,
 *   options: { maxConcurrentWrites: 16 } });
 * await runtime.start(); // informers, first list, then workers in dependsOn order
 * await runtime.stop({ timeoutMs: 30_000 });
 */

// ---- The runtime of one Katalog
export { createKatalogRuntime } from './runtime/katalog-runtime.js';
export type { CreateKatalogRuntimeOptions, KatalogRuntime, RuntimeEntry } from './runtime/katalog-runtime.js';
export { keyOf } from './kube-object.js';
export type { Clock } from './clock.js';

// ---- One tuning object (docs/reference/runtime.md §22)
export { RUNTIME_TUNING_DEFAULTS } from './runtime/tuning.js';
export type { RuntimeTuning } from './runtime/tuning.js';
export type { RuntimeShard } from './runtime/shard.js';
export { DRIFT_LIMIT_DEFAULTS } from './runtime/drift-limiter.js';

// ---- Observation: the RuntimeObserver the operator's MetricsSink satisfies and its label values
export {
  ChildWriteOperation,
  SecretGenerationReason,
  StatusWriteResult,
  ValidationResult,
} from './runtime/runtime-observer.js';
export type { RuntimeObserver } from './runtime/runtime-observer.js';
export { Informer, RelistReason } from './informer.js';
// The counted list/watch transport, so a process that runs the runtime sends every request alike (ADR 0035).
export { KubeListWatchClient } from './list-watch-client.js';
export { AutoscaleTarget } from './autoscaler/decide.js';
export type { EventSubject } from './events/event-recorder.js';

// ---- Child readiness (kstatus rules, docs/reference/runtime.md §7), for views of the child caches
export { childReadiness } from './readiness/child-readiness.js';

// ---- The hooks an entry declares, as views list them (from the hook table)
export { hookNames, hookSummary } from './hooks/table.js';

// ---- Cross reads served to other operators, outbound address guard, log redaction
export type { CrossAuthorize, CrossHandler } from './hooks/cross-handler.js';
export { AddressGuard, BlockedAddressError, LOOPBACK_CIDRS, parseCidr } from './hooks/address-guard.js';
export { ExternalCaller } from './hooks/external.js';
export { moduleHookKey } from './hooks/modules/index.js';

// ---- The image builders of the docker hook (`OCI_BUILDER`, docs/reference/katalog.md §16.2)
export { Builder as OciBuilder } from './hooks/docker.js';
export { LOG_REDACT_KEYS, REDACTED, createRedactingLogger, redactForLog } from './log-redact.js';
