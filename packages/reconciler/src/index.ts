/**
 * @orkestra/reconciler runs a Katalog against a cluster. This release ships the engine room:
 * informers and their read-only cache, the workqueue, the resizable dispatcher that runs
 * reconciles, and resync. The reconcile pipeline, status, finalizers, pruning, hooks and provider
 * dispatch are not built yet (see the README).
 *
 * Main exports: Informer, ObjectCache, KubeListWatchClient, WorkQueue, Dispatcher, Resync, and the
 * Clock seam (systemClock, ManualClock).
 *
 * @example
 * const queue = new WorkQueue({ maxDepth: 0 });
 * const informer = new Informer({ client: new KubeListWatchClient({ kubeConfig }), resource });
 * informer.subscribe((change) => queue.add(change.key));
 * const dispatcher = new Dispatcher({ queue, reconcile, workers: 4 });
 * informer.start();
 * await informer.waitForSync();
 * dispatcher.start();
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
export type { InventoryItem, InventoryMode } from './status/inventory.js';
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
