/**
 * @orkestra/types defines the Katalog: its zod schema and inferred types, the loader that turns YAML
 * into a typed Katalog or a list of positioned errors, the generated JSON Schema, condition
 * evaluation, dot paths, durations, metadata keys, condition types and reasons, typed errors and the
 * Provider and KubeReader interfaces. It depends on zod and yaml only, and never talks to Kubernetes.
 *
 * Main exports: loadKatalog, Katalog (schema and type), evaluateConditions, getPath, stringForm,
 * parseDuration, RESOURCE_KINDS, OrkestraLabel/OrkestraAnnotation/OrkestraFinalizer,
 * ConditionType/ConditionReason, OrkestraError and friends, Provider.
 *
 * @example
 * import { loadKatalog, evaluateConditions } from '@orkestra/types';
 * const result = loadKatalog({ path: 'katalog.yaml' });
 * if (result.ok) {
 *   const deployment = result.katalog.spec.crds['website']?.operatorBox.onReconcile.deployments[0];
 *   if (deployment) evaluateConditions(deployment, { spec: { tier: 'gold' } }).passed;
 * } else {
 *   for (const e of result.errors) console.error(`${e.file}:${e.line}:${e.column} ${e.path}: ${e.message}`);
 * }
 */

// Metadata keys, conditions, errors
export {
  ORKESTRA_PREFIX,
  KATALOG_API_VERSION,
  KATALOG_KIND,
  MANAGED_BY,
  OrkestraLabel,
  OrkestraAnnotation,
  OrkestraFinalizer,
  isReservedLabelKey,
  isReservedAnnotationKey,
} from './metadata.js';
export {
  ConditionType,
  ConditionStatus,
  ConditionReason,
  RetryClass,
  reasonRetryClass,
} from './conditions.js';
export {
  OrkestraError,
  TerminalError,
  ProviderError,
  KatalogError,
  DurationError,
  toOrkestraError,
  formatKatalogIssue,
} from './errors.js';
export type { OrkestraErrorOptions, KatalogIssue } from './errors.js';

// Kinds, paths, durations, cron
export {
  RESOURCE_KINDS,
  RESOURCE_LIST_KEYS,
  SECRET_TLS_DEFAULT_NAME_SUFFIX,
  apiGroupOf,
  guessPlural,
  resourceKindInfo,
  resourceKindOf,
} from './kinds/index.js';
export type { ResourceKindInfo, ResourceListKey } from './kinds/index.js';
export { hasBuiltinKinds } from './builtin-kinds.js';
export { getPath, stringForm, numberForm, formatPath } from './paths.js';
export type { PathSegment } from './paths.js';
export type { EnrichRule } from './schema/crd-parts.js';
export { closestMatch, levenshtein } from './suggest.js';
export { parseDuration, isDuration, Duration, DURATION_PATTERN } from './duration.js';
export { parseCron, validateCron, cronMatches } from './cron.js';
export type { CronSpec, CronTimeParts } from './cron.js';

// Loader, sources, JSON Schema
export { EXTERNAL_RESULT_KEYS, migrateKatalog } from './upstream/index.js';
export { UPSTREAM_API_VERSIONS } from './metadata.js';
export type {
  DialectChange,
  DialectProblem,
  MigrateKatalogOptions,
  MigrateKatalogResult,
} from './upstream/index.js';
export { loadKatalog, loadKatalogOrThrow } from './load-katalog.js';
export {
  YAML_DEPTH_LIMIT,
  YAML_SIZE_LIMIT,
  checkYamlText,
  decodeYamlBytes,
  readYamlFile,
} from './yaml-input.js';
export type { YamlInputCode, YamlInputProblem, YamlInputResult } from './yaml-input.js';
export type { LoadKatalogOptions, LoadKatalogResult, KatalogInputSource } from './load-katalog.js';
export { katalogSourceOf, katalogPathOf } from './source.js';
export type { KatalogSource } from './source.js';
export { katalogJsonSchema, KATALOG_SCHEMA_ID } from './json-schema.js';

// Conditions
export {
  evaluateConditions,
  evaluateCondition,
  typeName,
  zonedParts,
  cronMinute,
  lastCronFire,
} from './evaluate-conditions.js';
export type { CronMinute } from './evaluate-conditions.js';
export { copySourceWatches, copiesOf, copyKindOf } from './copies.js';
export type { CopyKind } from './copies.js';
export { repoHostAllowed } from './repo-hosts.js';
export type {
  EvaluateConditionsOptions,
  ConditionsResult,
  ConditionOutcome,
  ZonedParts,
} from './evaluate-conditions.js';
export {
  Condition,
  ConditionList,
  Gate,
  Operator,
  SHORTHAND_OPERATORS,
  Expected,
  TimeWindow,
  DayOfWeek,
  TimeZone,
} from './schema/condition.js';
export type { FieldCondition, TimeCondition } from './schema/condition.js';
export { Notification, NOTIFY_DEFAULT_INTERVAL } from './schema/notification.js';
export type { Notify, RolloutNotify, RolloutOutcome } from './schema/notification.js';

// Schema primitives
export {
  Tpl,
  Literal,
  Identifier,
  DnsLabel,
  EntryName,
  TplList,
  TplMap,
  LabelMap,
  AnnotationMap,
  IntLike,
  BoolLike,
  Quantity,
  IntOrPercent,
  IntOrName,
  TemplateValue,
  DotPath,
  CronSchedule,
  isTemplate,
} from './schema/primitives.js';

// Resource entries (shared shapes; each kind's entry schema lives in its kind file, ADR 0007)
export {
  TEMPLATE_CONTEXT_KEYS,
  ForEach,
  EnvVar,
  EnvFrom,
  Probe,
  Probes,
  SecurityContext,
  PodSecurity,
  Volume,
  VolumeMount,
} from './schema/resources.js';
export { NamespaceEntry } from './kinds/namespaces.js';
export { ServiceAccountEntry } from './kinds/service-accounts.js';
export { PolicyRule, RoleEntry } from './kinds/roles.js';
export { RoleBindingEntry } from './kinds/role-bindings.js';
export { SecretTls, SecretEntry } from './kinds/secrets.js';
export { ConfigMapEntry } from './kinds/config-maps.js';
export { PersistentVolumeClaimEntry } from './kinds/persistent-volume-claims.js';
export { DeploymentEntry } from './kinds/deployments.js';
export { VolumeClaimTemplate, StatefulSetEntry } from './kinds/stateful-sets.js';
export { JobEntry } from './kinds/jobs.js';
export { CronJobEntry } from './kinds/cron-jobs.js';
export { ServiceEntry } from './kinds/services.js';
export { IngressEntry } from './kinds/ingresses.js';
export { NetworkPolicyEntry } from './kinds/network-policies.js';
export { HpaEntry, hpaProfile, HPA_PROFILE_NAMES } from './kinds/hpa.js';
export { PdbEntry } from './kinds/pdb.js';
export { CustomEntry } from './kinds/custom.js';

// Hooks, CRD parts, Katalog
export {
  ExternalCall,
  CrossRead,
  GitHook,
  DockerHook,
  RemoteReconciler,
  HOISTED_HOOKS,
  EXTERNAL_PROTOCOLS,
  KAFKA_SASL_MECHANISMS,
  ModuleHook,
} from './schema/hooks.js';
export {
  HOOK_MODULE_MARK,
  RECONCILER_MODULE_MARK,
  RECONCILER_RESULT_KEYS,
  isDefinedHook,
  isDefinedReconciler,
} from './hook-module.js';
export type {
  DefinedHook,
  DefinedReconciler,
  HookCr,
  HookDeleteFunction,
  HookDeleteRequest,
  HookFunction,
  HookRequest,
  HookResult,
  LoadedModuleExport,
  ReconcilerDeleteFunction,
  ReconcilerDeleteRequest,
  ReconcilerFunction,
  ReconcilerPrepared,
  ReconcilerRequest,
  ReconcilerResource,
  ReconcilerResult,
} from './hook-module.js';
export type { ExternalProtocolName } from './schema/hooks.js';
export { admissionOnlyReason, readsCalls } from './admission-only.js';
export { parseMongoQuery } from './schema/mongo-query.js';
export type { ParsedMongoQuery, MongoQueryParse } from './schema/mongo-query.js';
export {
  Normalize,
  MutationRule,
  Mutation,
  ValidationRule,
  Validation,
  StatusField,
  StatusBlock,
  ProviderRef,
  ProviderDeclarationEntry,
  ProviderDeclarationList,
  ProviderBlocks,
  AutoscaleRule,
  AutoscaleSource,
  Autoscale,
  Queue,
  DependsOn,
  WatchItem,
  enrichWatchItems,
  enrichRules,
  PreReconcile,
  SENTINELS,
  EmitEvents,
  Cleanup,
} from './schema/crd-parts.js';
export { AUTOSCALE_PROFILES, expandAutoscaleProfile } from './schema/autoscale-profiles.js';
export type { WorkloadAutoscale } from './schema/workload-autoscale.js';
export type { AutoscaleProfileName, AutoscaleProfileBaseline } from './schema/autoscale-profiles.js';
export type {
  EmitEvent,
  QueueBehaviour,
  RequeueRule,
  RetryBackoff,
  PreReconcileGate,
  Sentinel,
} from './schema/crd-parts.js';
export {
  Katalog,
  KatalogMetadata,
  KatalogSpec,
  CrdEntry,
  CrdMap,
  ApiTypes,
  OperatorBox,
  ResourceGroup,
  Rollback,
  OnDelete,
  DeleteGroup,
} from './schema/katalog.js';
export type { KatalogInput } from './schema/katalog.js';
export { goFieldKey } from './schema/conversion-template-paths.js';
export { storedVersionOf, versionNamesOf } from './schema/versions.js';
export type { Conversion, ConversionPath, ConversionRule, CrdVersion } from './schema/versions.js';
export { Rollout } from './schema/rollout.js';
export { Lifecycle, Publish, lifecycleNotices, versionInRange } from './schema/lifecycle.js';
export type { LifecycleNotice } from './schema/lifecycle.js';
export type { RolloutCanary } from './schema/rollout.js';

// Provider interfaces (docs/reference/runtime.md §14.7)
export type {
  JsonValue,
  JsonObject,
  Logger,
  KubeReader,
  OwnerSnapshot,
  Ownership,
  ProviderDeclaration,
  ProviderRecord,
  ProviderRequest,
  ProviderResult,
  ProviderDeleteResult,
  ProviderKind,
  Provider,
  ProviderInit,
  ProviderModule,
} from './provider.js';
