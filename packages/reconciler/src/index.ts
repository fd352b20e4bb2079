/**
 * @orkestra/reconciler runs a Katalog against a cluster: informers and their read-only cache, the
 * workqueue, the resizable dispatcher that runs reconciles, resync, the reconcile pipeline with
 * status, finalizers, pruning, hooks (cross, git, external, docker), provider dispatch and the
 * autoscaler (see the README).
 *
 * Main exports: createKatalogRuntime (the whole runtime of one Katalog, with `dependsOn` start
 * gating, timed re-queues for rotations and time conditions, a RuntimeObserver for metrics and
 * `snapshot()` for scrape-time gauges), compileKatalog, CrdController, CrdPipeline; the engine
 * room (Informer, ObjectCache, KubeListWatchClient, WorkQueue, Dispatcher, Resync); and the Clock
 * seam (systemClock, ManualClock).
 *
 * @example
 * const runtime = createKatalogRuntime({ katalog, kubeConfig, logger, observer: metrics.sink });
 * await runtime.start(); // informers, first list, then workers in dependsOn order
 * metrics.addCollector((gauges) => {
 *   for (const entry of runtime.snapshot().entries) gauges.queue(entry.controller, entry);
 * });
 * await runtime.stop({ timeoutMs: 30_000 });
 */
export { ManualClock, flushMacrotask, systemClock } from './clock.js';
export type { Clock, TimerHandle } from './clock.js';
export { Priority, WorkQueue } from './work-queue.js';
export type { WorkQueueOptions, WorkQueueStats } from './work-queue.js';
export { Dispatcher, MAX_WORKERS, MIN_WORKERS, ReconcileOutcome, requestFromKey } from './dispatcher.js';
export type {
  DispatcherOptions,
  DispatcherQueue,
  DispatcherStats,
  DispatcherStopResult,
  ReconcileContext,
  ReconcileReport,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from './dispatcher.js';
export {
  DispatcherStoppedError,
  ReconcileErrorClass,
  ReconcileTimeoutError,
  classifyReconcileError,
} from './reconcile-error.js';
export { Resync, phaseOf } from './resync.js';
export type { ResyncItem, ResyncOptions } from './resync.js';
export { CacheChangeType, LAST_APPLIED_ANNOTATION, OWNER_UID_LABEL, ObjectCache } from './cache.js';
export type { CacheChange, ObjectCacheOptions, WatchEventType } from './cache.js';
export { isNewerResourceVersion, keyOf } from './kube-object.js';
export { Informer, RelistReason, resourcePath } from './informer.js';
export type { InformerLogger, InformerOptions, InformerStats, ResourceRef } from './informer.js';
export { KubeApiError, KubeListWatchClient, parseRetryAfter } from './list-watch-client.js';
export type {
  KubeListWatchClientOptions,
  ListResponse,
  ListWatchClient,
  ListWatchRequestCounts,
  RawWatchEvent,
  WatchHandle,
  WatchHandlers,
} from './list-watch-client.js';

// ---- Building blocks for the reconcile pipeline (issue 7): secrets, status, events, namespace
// guard, reason messages. Pure or injected-I/O modules; the controller wires them together.
export {
  MAX_MESSAGE_LENGTH,
  formatChildRef,
  formatReasonMessage,
  truncateMessage,
} from './reason-message.js';
export type { ChildRef } from './reason-message.js';
export { REDACTED_CREDENTIALS, redactUrlCredentials } from './redact-url.js';
export { compileNamespacePattern, createNamespaceGuard } from './namespace-guard.js';
export type { NamespaceGuard, NamespaceGuardOptions } from './namespace-guard.js';
export {
  DEFAULT_TLS_VALID_FOR,
  formatRfc3339,
  generationStamp,
  parseGeneratedAt,
  rotationIntervalMs,
  secretRotationState,
  tlsValidForMs,
} from './secrets/rotation.js';
export type {
  RotationEntry,
  RotationSecret,
  SecretRotationInput,
  SecretRotationState,
} from './secrets/rotation.js';
export { generateTlsMaterial, sanEntries } from './secrets/tls.js';
export type { TlsMaterial, TlsMaterialOptions, TlsMaterialRequest } from './secrets/tls.js';
// issue-18: child readiness (kstatus semantics, readyWhen) and the Ready summary.
export { childReadiness } from './readiness/child-readiness.js';
export type { ChildReadinessOptions } from './readiness/child-readiness.js';
export { isReady, ReadinessState } from './readiness/readiness.js';
export type { Readiness } from './readiness/readiness.js';
export { summarizeReadiness } from './readiness/summarize-readiness.js';
export type { ChildVerdict, ReadinessSummary } from './readiness/summarize-readiness.js';
export { buildStatus } from './status/build-status.js';
export type {
  BuildStatusInput,
  BuildStatusResult,
  ReadyState,
  StatusCondition,
} from './status/build-status.js';
export {
  RESERVED_STATUS_KEYS,
  applyStatusFields,
  compileStatusFields,
  convertStatusValue,
} from './status/status-fields.js';
export type {
  ApplyStatusFieldsOptions,
  CompileStatusFieldsOptions,
  CompiledStatusField,
  StatusFieldDeclaration,
  StatusFieldType,
} from './status/status-fields.js';
export { createMergePatch, dropNulls, jsonEqual } from './status/merge-patch.js';
export {
  BUILT_IN_CHILDREN_KEYS,
  buildChildrenContext,
  childForTemplates,
} from './status/children-context.js';
export type { ChildState, ChildrenContext } from './status/children-context.js';
export {
  compareInventoryItems,
  inventoryKey,
  mergeInventory,
  normalizeInventoryItem,
  parseInventory,
  removeFromInventory,
  sortInventory,
} from './status/inventory.js';
export type { InventoryItem, InventoryMode, InventoryReadiness } from './status/inventory.js';
export { EVENT_SOURCE_COMPONENT, EventRecorder, EventType } from './events/event-recorder.js';
export type {
  CoreEvent,
  EventRecorderOptions,
  EventRecorderStats,
  EventSubject,
  EventWriter,
} from './events/event-recorder.js';
// ---- end of issue 7 building blocks

// ---- The runtime (issue 7): Katalog compilation, the per-CRD controller and reconcile pipeline,
// child informers, and createKatalogRuntime for the operator.
export { compileKatalog } from './runtime/compile-katalog.js';
export type {
  CompileKatalogOptions,
  CompiledCrd,
  CompiledDeleteGroup,
  CompiledGroup,
  CompiledKatalog,
  CompiledMutationRule,
  CompiledResourceEntry,
  CompiledValidationRule,
  GroupName,
} from './runtime/compile-katalog.js';
export { createKatalogRuntime } from './runtime/katalog-runtime.js';
export type {
  CreateKatalogRuntimeOptions,
  KatalogRuntime,
  KatalogRuntimeTuning,
  RuntimeEntry,
} from './runtime/katalog-runtime.js';
export { CrdController } from './runtime/crd-controller.js';
export type { CrdControllerOptions } from './runtime/crd-controller.js';
export { CrdPipeline, inventoryOf } from './runtime/reconcile-pipeline.js';
export type {
  HookInput,
  PipelineHooks,
  PipelineOptions,
  RunContext,
  RunResult,
} from './runtime/reconcile-pipeline.js';
export { ChildCaches, gvkKey } from './runtime/child-caches.js';
export type { ChildCachesOptions, ChildKindSpec } from './runtime/child-caches.js';
export { buildDesiredSet, idOf } from './runtime/desired-set.js';
export type { BlockedChild, BuildDesiredSetInput, DesiredChild, DesiredSet } from './runtime/desired-set.js';
export { createStatusPatcher } from './runtime/status-patcher.js';
export type { StatusPatchTarget, StatusPatcher } from './runtime/status-patcher.js';
// ---- end of the runtime

// ---- issue 21: Katalog revisions and health-gated rollouts (docs/reference/runtime.md §23).
export { assign, control, completeAt, startRollout, tick, RolloutCommandError } from './rollout/plan.js';
export type { RolloutCommand, RolloutPhase, RolloutState } from './rollout/plan.js';
export { katalogRevision, revisionObjectName, rolloutObjectName } from './rollout/revision.js';
export { RolloutStore, createRolloutStore } from './rollout/rollout-store.js';
export type { StoredRollout } from './rollout/rollout-store.js';
export { RolloutController } from './rollout/rollout-controller.js';
export type { RolloutControllerOptions } from './rollout/rollout-controller.js';
export type { RuntimeRevisions } from './rollout/revisions.js';
export { prepareRollout } from './rollout/prepare.js';
export type { PreparedRollout } from './rollout/prepare.js';

// ---- Hooks and autoscaler (issue 8): standalone modules the pipeline calls with rendered
// declarations (external calls, cross reads in-process and over HTTP plus the serving handler, git,
// docker builds) and the autoscaler (pure `decide` and the `Autoscaler` runner).
export {
  AddressGuard,
  BlockedAddressError,
  METADATA_HOSTNAMES,
  blockedAddressReason,
} from './hooks/address-guard.js';
export type { AddressGuardOptions, ResolveHost } from './hooks/address-guard.js';
export { ExternalCaller, notCalledExternalResult } from './hooks/external.js';
export type {
  ExternalCallContext,
  ExternalCallDeclaration,
  ExternalCallResult,
  ExternalCallStats,
  ExternalCallerOptions,
  ExternalRunResult,
  ReadSecret,
} from './hooks/external.js';
export { CrossReaders, crossResultOf, notFoundCrossResult, readCross } from './hooks/cross.js';
export type {
  CrossDeclaration,
  CrossReadRecord,
  CrossResult,
  CrossTarget,
  CrossTargetCache,
  ReadCrossOptions,
  ReadCrossResult,
} from './hooks/cross.js';
export { CrossHttpClient, crossObjectUrl } from './hooks/cross-http.js';
export type {
  CrossHttpClientOptions,
  CrossHttpClientStats,
  CrossHttpDeclaration,
  CrossHttpResult,
} from './hooks/cross-http.js';
export { CROSS_PATH_PREFIX, createCrossHandler } from './hooks/cross-handler.js';
export type { CrossHandler, CrossHandlerEntry, CrossHandlerOptions } from './hooks/cross-handler.js';
export { GitCheckouts, GitPoller, shortCommitOf } from './hooks/git.js';
export type {
  GitCheckoutsOptions,
  GitDeclaration,
  GitPollerOptions,
  GitRefresh,
  GitResult,
  GitSyncContext,
} from './hooks/git.js';
export { Builder, DockerBuildManager } from './hooks/docker.js';
export type {
  DockerBuildDeclaration,
  DockerBuildFinished,
  DockerBuildManagerOptions,
  DockerBuildStats,
  DockerRequestContext,
  DockerRequestOutcome,
  DockerResult,
} from './hooks/docker.js';
export {
  AutoscaleReason,
  AutoscaleTarget,
  decide,
  initialAutoscaleState,
  percentile95,
  resolveAutoscaleConfig,
} from './autoscaler/decide.js';
export type {
  AutoscaleBounds,
  AutoscaleChange,
  AutoscaleConfig,
  AutoscaleDecision,
  AutoscaleInputs,
  AutoscaleOverride,
  AutoscaleRuleConfig,
  AutoscaleSignals,
  AutoscaleState,
  AutoscaleValues,
} from './autoscaler/decide.js';
export { Autoscaler, dispatcherInputs } from './autoscaler/autoscaler.js';
export type {
  AutoscaleDecisionCounts,
  AutoscalerOptions,
  AutoscalerTarget,
  DispatcherInputsOptions,
} from './autoscaler/autoscaler.js';
// ---- end of hooks and autoscaler

// ---- Hooks and providers wired into the pipeline (issues 8 and 9): compiled hook declarations,
// the per-entry hook slots over process-wide services, provider dispatch (step 16 and deletion
// step 5) and the read-only KubeReader providers get.
export { compileHooks } from './runtime/compile-hooks.js';
export type {
  CompiledCross,
  CompiledDocker,
  CompiledExternal,
  CompiledGit,
  CompiledHooks,
  CompiledProviderDeclaration,
} from './runtime/compile-hooks.js';
export { DOCKER_SAFETY_REQUEUE_MS, KatalogHooks, parseReaderId, readerId } from './runtime/katalog-hooks.js';
export type { GitReader, KatalogHooksOptions } from './runtime/katalog-hooks.js';
export {
  MAX_PROVIDER_OUTPUT_BYTES,
  ProviderDispatch,
  hashSpec,
  outputsProblem,
} from './runtime/provider-dispatch.js';
export type { ProviderDispatchOptions, ProviderStatusRecord } from './runtime/provider-dispatch.js';
export { KubeReadCache } from './runtime/kube-reader.js';
export type { KubeReadCacheOptions } from './runtime/kube-reader.js';
export { Pending } from './runtime/reconcile-pipeline.js';
export type { HookEffects, ProviderDeletion } from './runtime/reconcile-pipeline.js';
export type { RuntimeHookServices } from './runtime/katalog-runtime.js';
// ---- end of hooks and providers wiring

// ---- Runtime observation, start gating and timed re-queues (issue 7): the RuntimeObserver the
// operator's MetricsSink satisfies, scrape-time snapshots, dependsOn gating, time-condition
// re-queues, error logging, the discovery-free Event writer and the observed API client.
export {
  ChildWriteOperation,
  ObservedReconcileResult,
  SecretGenerationReason,
  StatusWriteResult,
  ValidationResult,
  completeObserver,
  noopObserver,
  resourceLabel,
} from './runtime/runtime-observer.js';
export type {
  CacheSnapshot,
  EntrySnapshot,
  RuntimeObserver,
  RuntimeSnapshot,
} from './runtime/runtime-observer.js';
export {
  DependencyCondition,
  HEALTHY_MAX_CONSECUTIVE_FAILURES,
  StartGate,
  dependencyMet,
} from './runtime/depends-on.js';
export type { DependencyStats, GatedEntry, StartGateOptions } from './runtime/depends-on.js';
export {
  collectTimeConditions,
  isTimeCondition,
  nextConditionChange,
  nextLocalMinute,
  nextTimeConditionChange,
} from './runtime/time-conditions.js';
export { errorForLog, isPanic, panicCause, serializeError } from './runtime/log-error.js';
export { createEventWriter } from './runtime/event-writer.js';
export type { CreateEventWriterOptions } from './runtime/event-writer.js';
export { observeKubeClient } from './runtime/observed-client.js';
export type { RequestObserver } from './runtime/observed-client.js';
export { retryAfterMsOf } from './reconcile-error.js';
// ---- end of runtime observation

// ---- Drift-fight limiter (runtime option `driftLimit`)
export { DRIFT_LIMIT_DEFAULTS, DriftLimiter } from './runtime/drift-limiter.js';
export type { DriftDecision, DriftLimiterOptions, DriftLimitTuning } from './runtime/drift-limiter.js';
