import type { Logger } from '@orkestra/types';

/** ShutdownStep is one thing to do on shutdown, e.g. "stop workers" or "release lease". */
export interface ShutdownStep {
  readonly name: string;
  /** Does the work; `signal` fires when the step's timeout passes. */
  readonly run: (signal: AbortSignal) => unknown;
  /** How long the step may take before shutdown moves on. Default 5 000 ms. */
  readonly timeoutMs?: number;
}

/** ShutdownStepOutcome is how one step ended. */
export interface ShutdownStepOutcome {
  readonly name: string;
  readonly outcome: 'done' | 'failed' | 'timeout';
  readonly error?: unknown;
}

/** SignalSource is the part of `process` installShutdown listens on. */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/** InstallShutdownOptions configures installShutdown. */
export interface InstallShutdownOptions {
  /** Signals that start the shutdown. Default SIGTERM and SIGINT. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Run in order, each once. */
  readonly steps: readonly ShutdownStep[];
  /** Ends the process. Default `process.exit`. */
  readonly exit?: (code: number) => void;
  /** Where signals come from. Default `process`. */
  readonly source?: SignalSource;
  /** Logs each step. Default none. */
  readonly logger?: Logger;
  /** A second signal during shutdown exits at once with status 1 (impatient Ctrl-C). Default true. */
  readonly exitOnSecondSignal?: boolean;
}

/** Shutdown is an installed shutdown sequence. */
export interface Shutdown {
  /**
   * trigger starts the sequence (as a signal does) and resolves when every step ended, after
   * `exit(exitCode)` was called. A second call returns the same promise.
   */
  trigger(options?: {
    readonly reason?: string;
    readonly exitCode?: number;
  }): Promise<readonly ShutdownStepOutcome[]>;
  /** True once the sequence started. */
  readonly started: boolean;
  /** uninstall removes the signal listeners. */
  uninstall(): void;
}

async function runStep(step: ShutdownStep): Promise<ShutdownStepOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`shutdown step ${step.name} timed out`));
      resolve('timeout');
    }, step.timeoutMs ?? 5_000);
  });
  try {
    const ended = await Promise.race([
      Promise.resolve()
        .then(() => step.run(controller.signal))
        .then(() => 'done' as const),
      timedOut,
    ]);
    return { name: step.name, outcome: ended };
  } catch (error) {
    return { name: step.name, outcome: 'failed', error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * installShutdown runs `steps` once, in order, when one of `signals` arrives (or on `trigger`):
 * each step gets its own timeout, a failing or slow step is logged and the next one runs, and
 * then the process exits with 0 (docs/reference/runtime.md §17).
 *
 * @example
 * installShutdown({
 *   steps: [
 *     { name: 'stop workers', run: () => runtime.stop({ timeoutMs: 30_000 }), timeoutMs: 32_000 },
 *     { name: 'release lease', run: () => elector.release(), timeoutMs: 5_000 },
 *   ],
 * });
 */
export function installShutdown(options: InstallShutdownOptions): Shutdown {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const source: SignalSource = options.source ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const logger = options.logger;
  let running: Promise<readonly ShutdownStepOutcome[]> | undefined;

  const sequence = async (reason: string, exitCode: number): Promise<readonly ShutdownStepOutcome[]> => {
    logger?.info({ reason }, 'shutting down');
    const outcomes: ShutdownStepOutcome[] = [];
    for (const step of options.steps) {
      const started = Date.now();
      const outcome = await runStep(step);
      outcomes.push(outcome);
      const fields = { step: step.name, durationMs: Date.now() - started };
      if (outcome.outcome === 'done') logger?.debug(fields, 'shutdown step done');
      else if (outcome.outcome === 'timeout') logger?.warn(fields, 'shutdown step timed out');
      else logger?.error({ ...fields, err: outcome.error }, 'shutdown step failed');
    }
    logger?.info({ exitCode }, 'shutdown complete');
    exit(exitCode);
    return outcomes;
  };

  const trigger: Shutdown['trigger'] = (triggerOptions = {}) => {
    running ??= sequence(triggerOptions.reason ?? 'requested', triggerOptions.exitCode ?? 0);
    return running;
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (running != null) {
      if (options.exitOnSecondSignal ?? true) {
        logger?.warn({ signal }, 'second signal during shutdown: exiting now');
        exit(1);
      }
      return;
    }
    void trigger({ reason: signal });
  };
  for (const signal of signals) source.on(signal, onSignal);

  return {
    trigger,
    get started() {
      return running != null;
    },
    uninstall: () => {
      for (const signal of signals) source.off(signal, onSignal);
    },
  };
}
