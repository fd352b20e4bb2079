/**
 * Hot reload, a start-up part (docs/reference/runtime.md §2): the Katalog file is watched; a file
 * that does not validate is logged and the running Katalog stays. Reloads are serialized — one at
 * a time, the latest file content wins. A change of `spec.rollout` alone is not a new revision:
 * the policy is read live (docs/reference/runtime.md §24.1).
 */
import { crdInstallOptions } from './webhook.js';
import { unwatchFile, watchFile } from 'node:fs';
import { resolve } from 'node:path';
import { katalogRevision } from '@orkestra/reconciler/rollout';
import type { RolloutController } from '@orkestra/reconciler/rollout';
import type { Katalog, LoadedModuleExport } from '@orkestra/types';
import { formatIssue, loadKatalogFile } from '../../katalog-file.js';
import type { ApiTransport } from '../api-transport.js';
import type { RunConfig } from '../config.js';
import { installCrds } from '../install-crds.js';
import type { OperatorLogger } from '../logger.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorRuntime } from '../operator-runtime.js';
import { operatorVersion } from '../../version.js';
import { apiServerVersion, checkCompatibility } from './compatibility.js';
import { OperatorStartError, errorMessage } from './errors.js';
import type { Rollouts } from './rollouts.js';
import type { MakeRuntime, RolloutHolder } from './runtime-factory.js';
import type { StartGate } from './start-gate.js';
import type { OperatorState } from './state.js';

/** ReloadResult is how a Katalog reload ended. */
export type ReloadResult =
  | { readonly outcome: 'reloaded' | 'unchanged' }
  | { readonly outcome: 'rejected'; readonly errors: readonly string[] };

/** Reloader reloads the Katalog file, now or when it changes. */
export interface Reloader {
  /** Reloads now, after the reloads before it. */
  reload(): Promise<ReloadResult>;
  /** The last reload (shutdown waits for it). */
  settled(): Promise<ReloadResult>;
  /** Stops watching the file. */
  unwatch(): void;
}

/** ReloaderOptions is what a reload reads and replaces. */
export interface ReloaderOptions {
  readonly config: RunConfig;
  readonly cwd: string;
  readonly state: OperatorState;
  readonly api: ApiTransport;
  readonly logger: OperatorLogger;
  readonly metrics: OperatorMetrics;
  readonly rollouts: Rollouts;
  readonly makeRuntime: MakeRuntime;
  readonly gate: StartGate;
  /** Watch the file (default true), polling every `watchIntervalMs` (default 1 000). */
  readonly watch: boolean | undefined;
  readonly watchIntervalMs: number | undefined;
  /** The version `orkestra_katalog_info` reports for a Katalog. */
  readonly versionOf: (katalog: Katalog) => string;
  /** Loads a Katalog's module hooks (ADR 0052): a reload adds the ones it names. */
  readonly loadHooks: (katalog: Katalog) => Promise<ReadonlyMap<string, LoadedModuleExport>>;
}

function sameProviders(a: Katalog, b: Katalog): boolean {
  return JSON.stringify(a.spec.providers) === JSON.stringify(b.spec.providers);
}

/** reloadOnce is one reload: validate, then keep the revision (policy only) or replace the runtime. */
async function reloadOnce(o: ReloaderOptions): Promise<ReloadResult> {
  const { config, state, logger } = o;
  if (state.stopping) return { outcome: 'unchanged' };
  const next = loadKatalogFile(config.katalog, { cwd: o.cwd });
  if (!next.ok) {
    const errors = next.errors.map((issue) => formatIssue(issue));
    for (const line of errors) logger.error({ file: config.katalog }, `katalog reload rejected: ${line}`);
    return { outcome: 'rejected', errors };
  }
  if (next.text === state.katalogText) return { outcome: 'unchanged' };
  if (next.katalog.metadata.name !== state.katalogName) {
    const line = `metadata.name changed from ${state.katalogName} to ${next.katalog.metadata.name}; the name keys the Lease and the metrics, so this needs a restart`;
    logger.error({ file: config.katalog }, `katalog reload rejected: ${line}`);
    return { outcome: 'rejected', errors: [line] };
  }
  // A changed lifecycle.compatibility is checked as at start; outside the range the reload is rejected (ADR 0063).
  if (
    JSON.stringify(next.katalog.lifecycle?.compatibility ?? null) !==
    JSON.stringify(state.katalog.lifecycle?.compatibility ?? null)
  ) {
    try {
      await checkCompatibility(next.katalog, {
        operatorVersion: operatorVersion(),
        serverVersion: () => apiServerVersion(o.api),
        logger,
      });
    } catch (error) {
      const errors =
        error instanceof OperatorStartError && error.details.length > 0
          ? [...error.details]
          : [errorMessage(error)];
      for (const line of errors) logger.error({ file: config.katalog }, `katalog reload rejected: ${line}`);
      return { outcome: 'rejected', errors };
    }
  }
  for (const warning of next.warnings) logger.warn({ katalogPath: warning.path }, formatIssue(warning));
  if (!sameProviders(state.katalog, next.katalog)) {
    logger.warn(
      { file: config.katalog },
      'spec.providers changed: providers are loaded at start-up; restart to apply',
    );
  }
  if (state.rollout != null && katalogRevision(next.katalog) === katalogRevision(state.katalog)) {
    state.katalog = next.katalog;
    state.katalogText = next.text;
    logger.info(
      { file: config.katalog, rollout: state.katalog.spec.rollout ?? null },
      'katalog reloaded: same revision, rollout policy updated',
    );
    state.rollout.nudge();
    return { outcome: 'reloaded' };
  }
  let candidate: OperatorRuntime;
  let candidateRollout: RolloutController | undefined;
  const previousRollout = state.rollout;
  await previousRollout?.stop();
  try {
    // Converters are built at start: a reload keeps the running endpoint (a new conversion needs a restart).
    if (config.installCrds)
      await installCrds(o.api.client, next.katalog, crdInstallOptions(config, state.webhook));
    const prepared = await o.rollouts.prepare(next.katalog, next.text);
    const holder: RolloutHolder = {};
    const made = o.makeRuntime(next.katalog, next.text, prepared, holder);
    candidate = made;
    candidateRollout = o.rollouts.make(prepared, () => made);
    holder.controller = candidateRollout;
  } catch (error) {
    const line = errorMessage(error);
    logger.error({ file: config.katalog }, `katalog reload rejected: ${line}`);
    if (state.leading) previousRollout?.start();
    return { outcome: 'rejected', errors: [line] };
  }
  const previous = state.runtime;
  // The new runtime's assignments apply from here on (its workers start below).
  state.rollout = candidateRollout;
  await previous.stop(config.shutdownTimeoutMs);
  if (state.stopping) return { outcome: 'unchanged' };
  state.runtime = candidate;
  state.katalog = next.katalog;
  state.katalogText = next.text;
  o.metrics.katalogLoaded(o.versionOf(state.katalog));
  logger.info(
    {
      file: config.katalog,
      version: state.katalog.metadata.version,
      entries: Object.keys(state.katalog.spec.crds),
    },
    'katalog reloaded',
  );
  void o.gate.start(candidate);
  if (state.reconciling()) candidate.startWorkers();
  if (state.leading && state.member != null) candidate.watchAllShards();
  if (state.leading) candidateRollout?.start();
  return { outcome: 'reloaded' };
}

/** createReloader makes the reload part and starts watching the file. */
export function createReloader(o: ReloaderOptions): Reloader {
  let reloading: Promise<ReloadResult> = Promise.resolve({ outcome: 'unchanged' });
  const reloadNow = (): Promise<ReloadResult> => reloadOnce(o);
  const reload = (): Promise<ReloadResult> => {
    reloading = reloading.then(reloadNow, reloadNow);
    return reloading;
  };
  const watchedFile = resolve(o.cwd, o.config.katalog);
  const onFileChange = (): void => {
    void reload();
  };
  if (o.watch ?? true) {
    watchFile(watchedFile, { interval: o.watchIntervalMs ?? 1_000, persistent: false }, onFileChange);
  }
  return { reload, settled: () => reloading, unwatch: () => unwatchFile(watchedFile, onFileChange) };
}
