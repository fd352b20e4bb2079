/**
 * @orkestra/operator is the `ork` CLI and the operator process. Sources are grouped by what runs
 * where: `commands/` (one file per `ork` command), `process/` (the operator process: config,
 * logger, metrics, HTTP, leader election, providers, shutdown), `offline/` (validate, render,
 * simulate, explain without a cluster) and `generate/` (CRDs, RBAC, bundle, Helm values).
 *
 * Main exports: main (the CLI, in-process), commands (the registry), and the library functions
 * behind the commands: strictCheck, generateCrds, generateRbac, generateBundle. `ork render` and
 * `ork simulate` drive the reconciler's own pipeline through `@orkestra/reconciler/offline`.
 *
 * @example
 * import { main } from '@orkestra/operator';
 * const code = await main(['validate', 'katalog.yaml', '--strict'], {
 *   stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(),
 * });
 */
export { main } from './cli.js';
export { commands } from './commands/index.js';
export { ExitCode, UsageError, parseCommandArgs } from './commands/command.js';
export type { CliIo, CliOutput, Command, CommandArgs } from './commands/command.js';
export { loadKatalogFile, formatIssue } from './katalog-file.js';
export type { KatalogFile, LoadKatalogFileOptions, LoadKatalogFileResult } from './katalog-file.js';
export { strictCheck } from './offline/strict-check.js';
export type { StrictCheckOptions, StrictCheckResult } from './offline/strict-check.js';
export { CrInputError, checkCustomResource, readCustomResources } from './offline/cr-input.js';
export type {
  CustomResource,
  CustomResourceMetadata,
  ReadCustomResourcesOptions,
} from './offline/cr-input.js';
export { crdFor, crdSchema, generateCrds } from './generate/generate-crds.js';
export { generateRbac, pinnedNamespace } from './generate/generate-rbac.js';
export type { PolicyRule, Rbac, RbacOptions } from './generate/generate-rbac.js';
export { DEFAULT_IMAGE_REPOSITORY, KATALOG_MOUNT_PATH, generateBundle } from './generate/generate-bundle.js';
export type { Bundle, BundleOptions } from './generate/generate-bundle.js';
export type { Manifest } from './generate/manifest-meta.js';
export { toMultiDocumentYaml } from './generate/manifest-yaml.js';
export { operatorVersion } from './version.js';

// ---- operator process (`ork run` building blocks): config, logger, metrics, HTTP, leader election, providers, shutdown ----
export { LogLevel, OciBuilder, RUN_FLAGS_USAGE, parseRunConfig } from './process/config.js';
export type { ParseRunConfigOptions, ParseRunConfigResult, RunConfig } from './process/config.js';
// Errors `ork` caught and printed as messages, published for fuzzers and debuggers (issue 20).
export { CAUGHT_ERROR_CHANNEL } from './caught-error.js';
export type { CaughtError } from './caught-error.js';
export { LOG_REDACT_KEYS, REDACTED, createLogger, redactForLog } from './process/logger.js';
export type { CreateLoggerOptions, OperatorLogger } from './process/logger.js';
export {
  AutoscaleDirection,
  BUILD_DURATION_BUCKETS,
  ProviderOperation,
  RECONCILE_TIME_BUCKETS,
  REST_CLIENT_DURATION_BUCKETS,
  ReconcileResult,
  WORKQUEUE_DURATION_BUCKETS,
  createOperatorMetrics,
} from './process/metrics.js';
// The label values the runtime emits are the reconciler's, re-exported for metrics consumers.
export {
  AutoscaleTarget,
  ChildWriteOperation,
  RelistReason,
  SecretGenerationReason,
  StatusWriteResult,
  ValidationResult,
} from '@orkestra/reconciler';
export type {
  Collector,
  CreateOperatorMetricsOptions,
  MetricsSink,
  OperatorMetrics,
  QueueGauges,
  ScrapeGauges,
} from './process/metrics.js';
export {
  BindAddressError,
  createEventLoopWatch,
  parseBindAddress,
  startHttpServers,
} from './process/http-server.js';
export type {
  BindAddress,
  EventLoopWatch,
  EventLoopWatchOptions,
  ExtraRoute,
  HttpServers,
  MetricsSource,
  Readiness,
  ReadinessCheck,
  StartHttpServersOptions,
} from './process/http-server.js';
export {
  LeaderElectionError,
  LeaderElector,
  defaultIdentity,
  leaseNameFor,
} from './process/leader-election.js';
export type {
  EventApi,
  LeaderElectorOptions,
  LeaderElectorState,
  LeaseApi,
} from './process/leader-election.js';
export {
  ProviderLoadError,
  ProviderLoadErrorCode,
  ProvidersLoadError,
  closeProviders,
  loadProviders,
  providerKindsUsed,
  satisfiesRange,
  substituteEnv,
} from './process/provider-loader.js';
export type { LoadProvidersOptions, LoadedProviders } from './process/provider-loader.js';
// The operator process itself (`ork run`), for the benchmark's runtime child (tools/bench).
export { OperatorStartError, startOperator } from './process/operator.js';
export type { Operator, StartOperatorOptions } from './process/operator.js';
export { installShutdown } from './process/shutdown.js';
export type {
  InstallShutdownOptions,
  Shutdown,
  ShutdownStep,
  ShutdownStepOutcome,
  SignalSource,
} from './process/shutdown.js';
// ---- end operator process ----
