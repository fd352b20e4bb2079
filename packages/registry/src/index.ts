/**
 * @orkestra/registry turns rendered Katalog entries into Kubernetes manifests and writes them only
 * when they differ from the cache. It never renders templates (that is @orkestra/template) and
 * never watches (the reconciler's informers implement ObjectReader).
 *
 * Main exports: `kinds` (one KindModule per resource list, facts from @orkestra/types'
 * RESOURCE_KINDS), `createKubeClient` (counted, typed API client), `ensureObject`/`removeObject`,
 * `compareToCache`, the typed errors (OrkestraErrors whose `code` is the condition reason).
 *
 * @example
 * const client = createKubeClient({ kubeConfig });
 * const child = kinds.deployments.resolve(
 *   { entry: { image: 'nginx:1.27', port: 80 }, path: 'onReconcile.deployments[0]' },
 *   { apiVersion: 'demo.example.com/v1', kind: 'Website', name: 'shop', namespace: 'web', uid, crd: 'website' },
 * );
 * await kinds.deployments.ensure(child.manifest, { mode: 'apply', cache, client });
 */
export { kinds, kindFor, kindForObject } from './kinds/index.js';
export type { KindListKey } from './kinds/index.js';
export { isOnceSecret } from './kinds/secrets.js';
export { defineKind, systemLabels } from './kind-module.js';
export type {
  BuildContext,
  EntrySource,
  KindBody,
  KindDefinition,
  KindEnrich,
  KindModule,
  RenderedEntry,
  ResolveHints,
  ResolvedChild,
} from './kind-module.js';
export { Fields } from './fields.js';
export { ensureObject } from './ensure.js';
export type { EnsureOptions } from './ensure.js';
export { removeObject } from './remove.js';
export type { RemoveOptions } from './remove.js';
export {
  appliedHash,
  compareToCache,
  DEFAULT_RULES,
  isSubset,
  NO_RULES,
  normalize,
  withAppliedHash,
} from './compare.js';
export type { NormalizeRules } from './compare.js';
export { canonicalJson } from './canonical-json.js';
export { canonicalQuantity, parseQuantity } from './quantity.js';
export { shortenLabelValue } from './label-value.js';
export { ownerReferenceFor } from './owner.js';
export type { Owner } from './owner.js';
export { Annotations, Labels, MANAGED_BY_VALUE } from './metadata-keys.js';
export { OperationResult, WriteMode } from './operation-result.js';
export type { EnsureResult, RemoveResult } from './operation-result.js';
export { createKubeClient } from './create-kube-client.js';
export { KeepAliveAgents } from './keep-alive-agent.js';
export type { KeepAliveAgentsOptions } from './keep-alive-agent.js';
export type { KubeClientOptions } from './create-kube-client.js';
export { PropagationPolicy } from './kube-client.js';
export type {
  ApplyOptions,
  ApplyResult,
  DeleteOptions,
  KubeClient,
  KubeList,
  ListOptions,
  ObjectReader,
  ObjectWriter,
  PatchOptions,
  ResourceInfo,
} from './kube-client.js';
export { formatRef, refOf } from './kube-object.js';
export type { GroupVersionKind, KubeMetadata, KubeObject, ObjectRef, OwnerReference } from './kube-object.js';
export { RequestCounter, RequestVerb, diffCounts } from './request-counter.js';
export type { RequestCounts } from './request-counter.js';
export {
  AlreadyExistsError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  KubeApiError,
  KubeErrorCode,
  NotFoundError,
  RegistryError,
  RegistryErrorCode,
  createKubeApiError,
  kubeErrorCodeOf,
} from './errors.js';
export type { KubeApiErrorOptions, StatusCause } from './errors.js';
