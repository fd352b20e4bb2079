/**
 * The graceful shutdown of a running operator, a start-up part (docs/reference/runtime.md §17):
 * stop accepting work, finish in-flight reconciles, release the Leases, close providers and the
 * HTTP servers, flush the logs. SIGTERM/SIGINT run it (unless not asked to), and so do a lost
 * Lease and `Operator.shutdown`.
 */
import type { RolloutWatch } from '@orkestra/reconciler/rollout';
import type { Provider } from '@orkestra/types';
import type { ShardMember } from '../../sharding/shard-member.js';
import type { RunConfig } from '../config.js';
import type { HttpServers } from '../http-server.js';
import type { LeaderElector } from '../leader-election.js';
import type { OperatorLogger } from '../logger.js';
import { closeProviders } from '../provider-loader.js';
import { installShutdown } from '../shutdown.js';
import type { Shutdown } from '../shutdown.js';
import type { Reloader } from './reload.js';
import type { StartGate } from './start-gate.js';
import type { OperatorState } from './state.js';

/** OperatorShutdownOptions is what shutting down stops, releases and closes. */
export interface OperatorShutdownOptions {
  readonly config: RunConfig;
  readonly logger: OperatorLogger;
  readonly state: OperatorState;
  readonly gate: StartGate;
  readonly servers: HttpServers;
  readonly reloader: Reloader;
  readonly rolloutWatch: RolloutWatch;
  readonly elector: LeaderElector | undefined;
  readonly member: ShardMember | undefined;
  readonly providers: ReadonlyMap<string, Provider>;
  /** Install SIGTERM/SIGINT handlers. Default true. */
  readonly handleSignals: boolean | undefined;
  /** Called when a second signal arrives during shutdown. Default: resolve `done` with the code. */
  readonly forceExit: ((code: number) => void) | undefined;
}

/** installOperatorShutdown installs the shutdown sequence; `done` resolves with the exit code once it ran. */
export function installOperatorShutdown(o: OperatorShutdownOptions): {
  readonly shutdown: Shutdown;
  readonly done: Promise<number>;
} {
  const { config, logger, state } = o;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolvePromise) => {
    resolveDone = resolvePromise;
  });
  let finished = false;
  const shutdown = installShutdown({
    signals: (o.handleSignals ?? true) ? ['SIGTERM', 'SIGINT'] : [],
    logger,
    exit: (code) => {
      if (finished) resolveDone(code);
      else if (o.forceExit != null) o.forceExit(code);
      else resolveDone(code);
    },
    steps: [
      {
        name: 'stop accepting work',
        run: () => {
          state.stopping = true;
          o.gate.cancel();
          o.servers.markExiting();
          o.reloader.unwatch();
        },
      },
      {
        name: 'finish in-flight reconciles',
        // After losing the Lease nothing may be written any more: abort at once.
        run: async () => {
          await o.reloader.settled();
          await state.rollout?.stop();
          await o.member?.stopSharder();
          await state.runtime.stop(state.reconciling() || o.elector == null ? config.shutdownTimeoutMs : 0);
          await o.rolloutWatch.stop();
        },
        timeoutMs: config.shutdownTimeoutMs + 5_000,
      },
      {
        name: 'release the lease',
        run: async () => {
          await Promise.all([o.elector?.release(), o.member?.release()]);
        },
        timeoutMs: 5_000,
      },
      { name: 'close providers', run: () => closeProviders(o.providers, { logger }), timeoutMs: 5_000 },
      {
        name: 'close HTTP servers',
        run: async () => {
          await o.servers.close();
          await o.state.webhook?.close();
        },
        timeoutMs: 5_000,
      },
      {
        name: 'flush logs',
        run: () => {
          finished = true;
          logger.flush();
        },
      },
    ],
  });
  void done.then(() => shutdown.uninstall());
  return { shutdown, done };
}
