/**
 * @orkestra/operator is the `ork` CLI and the operator process. Sources are grouped by what runs
 * where: `commands/` (one file per `ork` command), `process/` (the operator process; its start-up
 * parts are `process/start/`, docs/adr/0044-operator-start-up-parts.md), `offline/` (validate,
 * render, simulate, explain without a cluster) and `generate/` (CRDs, RBAC, bundle, Helm values).
 *
 * This index is what tools outside the package use (the benchmark and the chaos tests): the CLI
 * in-process (`main`), the operator process (`startOperator`, `parseRunConfig`), its logger, the
 * caught-error channel and the RBAC generator. Everything else is imported by path inside the package.
 *
 * @example
 * import { main } from '@orkestra/operator';
 * const code = await main(['validate', 'katalog.yaml', '--strict'], {
 *   stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(),
 * });
 */
export { main } from './cli.js';
export { generateRbac } from './generate/generate-rbac.js';
export type { PolicyRule } from './generate/generate-rbac.js';
export type { Manifest } from './generate/manifest-meta.js';

// ---- The operator process (`ork run`): its config, logger and caught-error channel
export { LogLevel, parseRunConfig } from './process/config.js';
export { createLogger } from './process/logger.js';
export type { OperatorLogger } from './process/logger.js';
export { CAUGHT_ERROR_CHANNEL } from './caught-error.js';
export type { CaughtError } from './caught-error.js';
export { startOperator } from './process/operator.js';
export { MIGRATION_PACING } from './conversion/migrate-storage.js';
export type { Operator } from './process/operator.js';
