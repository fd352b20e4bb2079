/**
 * @orkestra/reconciler runs a Katalog against a cluster: informers and their read-only caches, the
 * work queue, the resizable dispatcher, resync, the reconcile pipeline (status, finalizers,
 * pruning, hooks, provider dispatch) and the autoscaler. It never renders a manifest itself (that
 * is @orkestra/registry) and never names a provider (it loads the `Provider` interface by name).
 *
 * This index is only what other packages import (ADR 0013, ADR 0091): the runtime, the one tuning
 * object and the shard a runtime owns, the observer the operator's metrics implement and the
 * informers they read, what the Control Center's views read (child readiness, the hook table's
 * names), the cross-read handler's types, the outbound address guard the security tests drive and
 * log redaction. Offline runs of the same pipeline are `@orkestra/reconciler/offline`; Katalog
 * revisions and rollouts are `@orkestra/reconciler/rollout`. Everything else is imported by path
 * inside the package.
 *
 * @example
 * const runtime = createKatalogRuntime({ katalog, kubeConfig, logger, observer: metrics.sink,
 *   options: { maxConcurrentWrites: 16 } });
 * await runtime.start(); // informers, first list, then workers in dependsOn order
 * await runtime.stop({ timeoutMs: 30_000 });
 */

// ---- The runtime of one Katalog, the shard it owns and the one tuning object (docs/reference/runtime.md §22)
export { createKatalogRuntime } from './runtime/katalog-runtime.js';
export type { KatalogRuntime } from './runtime/katalog-runtime.js';
export type { RuntimeShard } from './runtime/shard.js';
export { keyOf } from './kube-object.js';
export { RUNTIME_TUNING_DEFAULTS } from './runtime/tuning.js';
export type { RuntimeTuning } from './runtime/tuning.js';
export { DRIFT_LIMIT_DEFAULTS } from './runtime/drift-limiter.js';

// ---- Observation: the RuntimeObserver the operator's MetricsSink satisfies and what it reads
export type { RuntimeObserver } from './runtime/runtime-observer.js';
export { Informer } from './informer.js';
export { AutoscaleTarget } from './autoscaler/decide.js';
export type { EventSubject } from './events/event-recorder.js';
// The counted list/watch transport, so a process that runs the runtime sends every request alike (ADR 0035).
export { KubeListWatchClient } from './list-watch-client.js';

// ---- What the Control Center's views read: child readiness (kstatus rules, ADR 0009) and the hook table
export { childReadiness } from './readiness/child-readiness.js';
export { hookNames, hookSummary } from './hooks/table.js';

// ---- Hooks the process configures: module hooks by key, external calls, the docker hook's image
// builders (`OCI_BUILDER`, docs/reference/katalog.md §16.2)
export { moduleHookKey } from './hooks/modules/index.js';
export { ExternalCaller } from './hooks/external.js';
export { Builder as OciBuilder } from './hooks/docker.js';

// ---- Cross reads served to other operators, the outbound address guard, log redaction
export type { CrossAuthorize, CrossHandler } from './hooks/cross-handler.js';
export { AddressGuard, BlockedAddressError, LOOPBACK_CIDRS, parseCidr } from './hooks/address-guard.js';
export { REDACTED, createRedactingLogger } from './log-redact.js';
