/**
 * The start gate, a start-up part (docs/reference/runtime.md §2 steps 6–7): starting a runtime
 * that fails (discovery, a CRD not served yet, a sync timeout) is logged and retried, and the
 * process stays up and not ready meanwhile. A runtime replaced by a reload, or a shutdown, ends
 * the retries.
 */
import type { OperatorLogger } from '../logger.js';
import type { OperatorRuntime } from '../operator-runtime.js';
import { errorMessage } from './errors.js';
import type { OperatorState } from './state.js';

/** StartGate starts runtimes until they run. */
export interface StartGate {
  /** Resolves once `target` started, or once it no longer needs to (replaced, or shutting down); never rejects. */
  start(target: OperatorRuntime): Promise<void>;
  /** Cancels a pending retry (shutdown). */
  cancel(): void;
  /**
   * Resolves the first time the current runtime has started (its informers synced) — not when a
   * start only ended because a reload replaced the runtime or the process is stopping. A sharded
   * replica joins the shards then (runtime.md §25.1).
   */
  readonly synced: Promise<void>;
}

/** createStartGate makes the start gate; a failed start is tried again after `retryMs`. */
export function createStartGate(o: {
  readonly state: OperatorState;
  readonly logger: OperatorLogger;
  readonly retryMs: number;
}): StartGate {
  const { state, logger, retryMs } = o;
  let retryTimer: NodeJS.Timeout | undefined;
  let markSynced = (): void => undefined;
  const synced = new Promise<void>((resolve) => {
    markSynced = resolve;
  });
  const start = (target: OperatorRuntime): Promise<void> =>
    new Promise((resolveStart) => {
      const attempt = (): void => {
        target.start().then(
          () => {
            if (target === state.runtime && !state.stopping) {
              logger.info({ leader: state.leading }, 'operator ready');
              markSynced();
            }
            resolveStart();
          },
          (error: unknown) => {
            if (state.stopping || target !== state.runtime) {
              resolveStart();
              return;
            }
            logger.error(
              { err: { message: errorMessage(error) }, retryInMs: retryMs },
              'runtime start failed; retrying',
            );
            retryTimer = setTimeout(attempt, retryMs);
          },
        );
      };
      attempt();
    });
  return { start, cancel: () => clearTimeout(retryTimer), synced };
}
