/**
 * The runtime factory, a start-up part: how a Katalog becomes an OperatorRuntime with the
 * process's connection, tuning, metrics, providers and cross-read authorization — at start-up
 * and at every reload that changes the revision.
 */
import { resolve } from 'node:path';
import { parse } from 'yaml';
import type { KubeConfig } from '@kubernetes/client-node';
import type { PreparedRollout, RolloutController } from '@orkestra/reconciler/rollout';
import type { Katalog, Provider } from '@orkestra/types';
import { crossAuthorizer, tokenFileReader } from '../../auth/cross-access.js';
import { GateAudience, createKubeGate, kubeReviewApi } from '../../auth/kube-gate.js';
import type { RecentEvents } from '../../control-center/recent-events.js';
import type { ApiTransport } from '../api-transport.js';
import type { RunConfig } from '../config.js';
import type { OperatorLogger } from '../logger.js';
import { metricSamples } from '../metrics.js';
import type { OperatorMetrics } from '../metrics.js';
import { createOperatorRuntime } from '../operator-runtime.js';
import type { OperatorRuntime } from '../operator-runtime.js';
import type { Environment } from './discovery.js';
import type { OperatorState } from './state.js';

/** RolloutHolder is filled with a runtime's rollout controller right after the runtime is made. */
export interface RolloutHolder {
  controller?: RolloutController | undefined;
}

/** MakeRuntime makes the runtime of a Katalog, given with its file's text (and its prepared revision, when revisions are on). */
export type MakeRuntime = (
  forKatalog: Katalog,
  text: string,
  prepared?: PreparedRollout,
  holder?: RolloutHolder,
) => OperatorRuntime;

/** RuntimeFactoryOptions is what every runtime of the process shares. */
export interface RuntimeFactoryOptions {
  readonly config: RunConfig;
  readonly env: Environment;
  readonly cwd: string;
  readonly watchNamespace: string | undefined;
  readonly kubeConfig: KubeConfig;
  readonly api: ApiTransport;
  readonly logger: OperatorLogger;
  readonly metrics: OperatorMetrics;
  readonly providers: ReadonlyMap<string, Provider>;
  readonly recentEvents: RecentEvents;
  readonly state: OperatorState;
}

/** runtimeFactory returns the process's MakeRuntime; cross reads are authorized on their own port (docs/reference/runtime.md §18.5, docs/adr/0030). */
export function runtimeFactory(o: RuntimeFactoryOptions): MakeRuntime {
  const { config, state } = o;
  const cross = {
    authorize: crossAuthorizer(
      config.crossAuth === 'none'
        ? undefined
        : createKubeGate({ reviews: kubeReviewApi(o.api.client), audience: GateAudience.Cross }),
    ),
    token: tokenFileReader(resolve(o.cwd, config.crossTokenFile)),
  };
  return (forKatalog, text, prepared, holder = {}) =>
    createOperatorRuntime({
      katalog: forKatalog,
      source: sourceOf(text),
      metricSamples: () => metricSamples(o.metrics.registry),
      kubeConfig: o.kubeConfig,
      userAgent: o.api.userAgent,
      logger: o.logger,
      leaderElected: state.reconciling(),
      ...(state.member == null ? {} : { shard: state.member.runtimeShard }),
      tuning: {
        maxConcurrentWrites: config.maxConcurrentWrites,
        reconcileTimeoutMs: config.reconcileTimeoutMs,
        watchIdleTimeoutMs: config.watchIdleTimeoutMs,
        workDir: config.workDir,
        maxWorkDirBytes: config.maxWorkDirBytes,
        maxConcurrentBuilds: config.maxConcurrentBuilds,
        resyncSkipRecent: config.resyncSkipRecent,
        ...(o.watchNamespace == null ? {} : { namespace: o.watchNamespace }),
        operatorNamespace: config.namespace,
        allowPrivateAddresses: config.allowPrivateAddresses,
      },
      metrics: o.metrics.sink,
      providers: o.providers,
      moduleHooks: state.moduleHooks,
      env: o.env,
      cross,
      ...(config.controlCenter
        ? {
            onEvent: (subject, type, reason, message) => o.recentEvents.add(subject, type, reason, message),
          }
        : {}),
      ...(prepared == null
        ? {}
        : {
            revisions: {
              current: prepared.revision,
              previous: prepared.previous,
              // The controller of this runtime's rollout is made right after it, before any worker starts.
              assign: (cr) => holder.controller?.assign(cr) ?? 'previous',
            },
          }),
    });
}

/**
 * sourceOf is the Katalog file as written, for the Live API's `/katalog/raw` (runtime.md §18.6):
 * the text already passed the loader's limits (size, depth, alias expansion), so aliases are
 * resolved here without a count limit. Undefined when it does not parse (then `/katalog/raw` is 404).
 */
function sourceOf(text: string): unknown {
  try {
    return parse(text, { merge: true, maxAliasCount: -1 }) as unknown;
  } catch {
    return undefined;
  }
}
