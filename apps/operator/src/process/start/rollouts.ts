/**
 * Revisions and rollouts, a start-up part (docs/reference/runtime.md §24). Without access to
 * ConfigMaps in the operator's namespace they are off and a new Katalog applies to every CR at
 * once. The Katalog's ConfigMaps are read from a watch, so nothing polls them (ADR 0034).
 */
import { RolloutController, RolloutStore, RolloutWatch, prepareRollout } from '@orkestra/reconciler/rollout';
import type { PreparedRollout } from '@orkestra/reconciler/rollout';
import type { Katalog } from '@orkestra/types';
import type { ApiTransport } from '../api-transport.js';
import type { RunConfig } from '../config.js';
import type { OperatorLogger } from '../logger.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorRuntime } from '../operator-runtime.js';
import { errorMessage } from './errors.js';
import type { OperatorState } from './state.js';

/** Rollouts is the rollout part: the ConfigMap watch, and how a Katalog gets its revision and controller. */
export interface Rollouts {
  readonly watch: RolloutWatch;
  /** Records the Katalog's revision (undefined: revisions are off). */
  prepare(katalog: Katalog, text: string): Promise<PreparedRollout | undefined>;
  /** The controller of a prepared revision's rollout over the runtime `target` returns. */
  make(prepared: PreparedRollout | undefined, target: () => OperatorRuntime): RolloutController | undefined;
}

/** CreateRolloutsOptions is what the rollout part reads. */
export interface CreateRolloutsOptions {
  readonly api: ApiTransport;
  readonly config: RunConfig;
  readonly state: OperatorState;
  readonly logger: OperatorLogger;
  readonly metrics: OperatorMetrics;
  readonly tickMs: number | undefined;
}

/** createRollouts makes the rollout part; its watch starts with the first `prepare`. */
export function createRollouts(o: CreateRolloutsOptions): Rollouts {
  const { config, state, logger } = o;
  const katalogName = state.katalogName;
  const watch = new RolloutWatch({
    listWatch: o.api.listWatch,
    namespace: config.namespace,
    katalogName,
    logger: { warn: (fields, message) => logger.warn({ ...fields }, message) },
    watchIdleTimeoutMs: config.watchIdleTimeoutMs,
  });
  const store = new RolloutStore({
    client: o.api.client,
    namespace: config.namespace,
    katalogName,
    cache: watch,
  });
  // A command of `ork rollout` (or the operator's own write) arrives as a watch event: one tick.
  // A replica that does not lead (another shard) follows the state, re-queuing its CRs (ADR 0058).
  watch.onRolloutChange(() => {
    state.rollout?.nudge();
    void state.rollout?.follow();
  });
  let watching: Promise<void> | undefined;
  const prepare = async (forKatalog: Katalog, text: string): Promise<PreparedRollout | undefined> => {
    try {
      // Started once; a start that failed is tried again at the next reload.
      await (watching ??= watch.start(AbortSignal.timeout(60_000)).catch((error: unknown) => {
        watching = undefined;
        throw error;
      }));
      return await prepareRollout({ store, katalog: forKatalog, text, now: Date.now() });
    } catch (error) {
      logger.warn(
        { err: { message: errorMessage(error) }, namespace: config.namespace },
        'Katalog revisions are off (cannot read or write ConfigMaps in the operator namespace): a new Katalog applies to every CR at once',
      );
      return undefined;
    }
  };
  const make = (
    prepared: PreparedRollout | undefined,
    target: () => OperatorRuntime,
  ): RolloutController | undefined =>
    prepared == null
      ? undefined
      : new RolloutController({
          store,
          state: prepared.state,
          resourceVersion: prepared.resourceVersion,
          policy: () => state.katalog.spec.rollout,
          crs: () => target().crs(),
          enqueue: (cr) => target().enqueue(cr),
          ready: () => target().crsReady(),
          events: {
            normal: (s, r, m) => target().events.normal(s, r, m),
            warning: (s, r, m) => target().events.warning(s, r, m),
          },
          namespace: config.namespace,
          katalogName,
          logger,
          ...(o.tickMs == null ? {} : { tickMs: o.tickMs }),
          onState: (rollout, crs, events) => {
            // Teams told of the tick's outcomes (katalog.md §2.3, ADR 0066): queued, never awaited.
            if (events.length > 0) target().engine.notifyRollout(events, rollout);
            const counts: Record<string, number> = { [rollout.target]: 0, [rollout.stable]: 0 };
            for (const cr of crs) {
              const revision = state.rollout?.assign(cr) === 'previous' ? rollout.stable : rollout.target;
              counts[revision] = (counts[revision] ?? 0) + 1;
            }
            o.metrics.rollout({
              phase:
                rollout.phase === 'Progressing' &&
                (rollout.paused || state.katalog.spec.rollout?.paused === true)
                  ? 'Paused'
                  : rollout.phase,
              step: rollout.step,
              crs: counts,
              gateFailures: events.filter((e) => e.reason === 'RolloutGateFailed').length,
              rolledBack: events.filter((e) => e.reason === 'RolledBack').length,
            });
          },
        });
  return { watch, prepare, make };
}
