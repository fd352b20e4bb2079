/**
 * The autoscaler runner (docs/reference/runtime.md §15): every interval on an injected clock it reads the inputs,
 * runs `decide`, applies the changes through the entry's three operations, logs each change with
 * its inputs and counts decisions. Start it on the leader only.
 */
import type { Logger } from '@orkestra/types';
import { systemClock } from '../clock.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { AutoscaleCrossRead } from './cross-sources.js';
import { decide, initialAutoscaleState, percentile95 } from './decide.js';
import type {
  AutoscaleConfig,
  AutoscaleDecision,
  AutoscaleInputs,
  AutoscaleState,
  AutoscaleTarget,
} from './decide.js';

/** AutoscalerTarget is the entry the autoscaler changes (the dispatcher, queue and resync behind it). */
export interface AutoscalerTarget {
  resizeWorkers(workers: number): unknown;
  /** 0 = unlimited. */
  setQueueDepthLimit(maxDepth: number): unknown;
  setResyncInterval(intervalMs: number): unknown;
}

/** AutoscalerOptions configures an Autoscaler. */
export interface AutoscalerOptions {
  readonly config: AutoscaleConfig;
  readonly target: AutoscalerTarget;
  /** Reads one tick's inputs; see `dispatcherInputs`. */
  readonly inputs: () => AutoscaleInputs;
  /** Source of time and timers; `now()` must be epoch milliseconds for rule time conditions. Default `systemClock`. */
  readonly clock?: Clock;
  /** Receives one info line per change (with its inputs) and warnings for failed operations. Default: none. */
  readonly logger?: Pick<Logger, 'info' | 'warn'>;
  /** The CRD entry name, for logs. Default `""`. */
  readonly entry?: string;
  /**
   * Reads what rule conditions see under `cross.<name>` (katalog.md §18.2), awaited before each
   * scheduled tick; see `autoscaleCrossReader`. Default: nothing is read.
   */
  readonly readCross?: () => Promise<AutoscaleCrossRead>;
}

/** AutoscaleLastDecision is the last tick's outcome and why (the Live API's `autoscale.last`). */
export interface AutoscaleLastDecision {
  /** When, ISO 8601. */
  readonly at: string;
  /** The rule whose override is in force, or null. */
  readonly rule: string | null;
  readonly changes: readonly AutoscaleDecision['changes'][number][];
  /** One sentence: what changed and why, or why nothing did. */
  readonly why: string;
  /** `cross.<name>` values that could not be read, with why. */
  readonly unavailable: readonly string[];
}

/** AutoscaleDecisionCounts counts applied changes per target and direction (`orkestra_autoscale_decisions_total`). */
export type AutoscaleDecisionCounts = Readonly<
  Record<AutoscaleTarget, { readonly up: number; readonly down: number }>
>;

/**
 * Autoscaler runs `decide` every `config.intervalMs` for one entry. Nothing is persisted: a new
 * Autoscaler starts from the declared values.
 *
 * @example
 * const autoscaler = new Autoscaler({
 *   config: resolveAutoscaleConfig(entry.autoscale, entry),
 *   target: { resizeWorkers: (n) => dispatcher.resize(n), setQueueDepthLimit: (n) => queue.setMaxDepth(n), setResyncInterval: (ms) => resync.setInterval(ms) },
 *   inputs: dispatcherInputs({ dispatcher, queue, intervalMs: 15_000 }),
 *   logger,
 * });
 * autoscaler.start();
 */
export class Autoscaler {
  readonly #config: AutoscaleConfig;
  readonly #target: AutoscalerTarget;
  readonly #inputs: () => AutoscaleInputs;
  readonly #clock: Clock;
  readonly #logger: Pick<Logger, 'info' | 'warn'> | undefined;
  readonly #entry: string;
  readonly #readCross: (() => Promise<AutoscaleCrossRead>) | undefined;
  #cross: AutoscaleCrossRead = { values: {}, unavailable: [] };
  #last: AutoscaleLastDecision | undefined;
  #state: AutoscaleState;
  #timer: TimerHandle | undefined;
  #ticks = 0;
  readonly #counts: Record<AutoscaleTarget, { up: number; down: number }> = {
    workers: { up: 0, down: 0 },
    queueDepth: { up: 0, down: 0 },
    resync: { up: 0, down: 0 },
  };

  constructor(options: AutoscalerOptions) {
    this.#config = options.config;
    this.#target = options.target;
    this.#inputs = options.inputs;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger;
    this.#entry = options.entry ?? '';
    this.#readCross = options.readCross;
    this.#state = initialAutoscaleState(options.config);
  }

  /** last is the last tick's decision and why; undefined before the first tick. */
  get last(): AutoscaleLastDecision | undefined {
    return this.#last;
  }

  /** refreshCross reads the `cross` values the next tick sees; it never rejects. */
  async refreshCross(): Promise<void> {
    if (this.#readCross == null) return;
    try {
      this.#cross = await this.#readCross();
    } catch (error) {
      this.#cross = {
        values: {},
        unavailable: [`cross: ${error instanceof Error ? error.message : String(error)}`],
      };
    }
  }

  /** state is the state carried to the next tick. */
  get state(): AutoscaleState {
    return this.#state;
  }

  /** ticks is the number of ticks run. */
  get ticks(): number {
    return this.#ticks;
  }

  /** running tells whether ticks are scheduled. */
  get running(): boolean {
    return this.#timer != null;
  }

  /** decisions returns the applied changes per target and direction, cumulative. */
  decisions(): AutoscaleDecisionCounts {
    return {
      workers: { ...this.#counts.workers },
      queueDepth: { ...this.#counts.queueDepth },
      resync: { ...this.#counts.resync },
    };
  }

  /** start schedules a tick every interval; calling it again does nothing. */
  start(): void {
    if (this.#timer != null) return;
    this.#schedule();
  }

  /** stop cancels the next tick. */
  stop(): void {
    if (this.#timer != null) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** tick runs one evaluation now and applies its changes. */
  tick(): AutoscaleDecision {
    const measured = this.#inputs();
    const inputs = this.#readCross == null ? measured : { ...measured, cross: this.#cross.values };
    const now = this.#clock.now();
    const decision = decide(inputs, this.#state, this.#config, now);
    this.#ticks++;
    this.#state = decision.state;
    this.#last = {
      at: new Date(now).toISOString(),
      rule: decision.rule,
      changes: decision.changes,
      why: whyOf(decision),
      unavailable: this.#cross.unavailable,
    };
    for (const change of decision.changes) {
      try {
        if (change.target === 'workers') this.#target.resizeWorkers(change.to);
        else if (change.target === 'queueDepth') this.#target.setQueueDepthLimit(change.to);
        else this.#target.setResyncInterval(change.to);
      } catch (error) {
        this.#logger?.warn(
          { entry: this.#entry, ...change, err: error },
          `autoscale: could not set ${change.target}`,
        );
        continue;
      }
      this.#counts[change.target][change.to > change.from ? 'up' : 'down']++;
      this.#logger?.info(
        { entry: this.#entry, ...change, inputs, signals: decision.signals },
        `autoscale: ${change.target} ${change.from} → ${change.to} (${change.reason}${change.rule == null ? '' : ` ${change.rule}`})`,
      );
    }
    return decision;
  }

  #schedule(): void {
    const run = (): void => {
      if (this.#timer == null) return;
      try {
        this.tick();
      } catch (error) {
        this.#logger?.warn({ entry: this.#entry, err: error }, 'autoscale: tick failed');
      }
      this.#schedule();
    };
    this.#timer = this.#clock.setTimeout(() => {
      // Without cross sources the tick runs at once; with them, after their read (which never rejects).
      if (this.#readCross == null) run();
      else void this.refreshCross().then(run);
    }, this.#config.intervalMs);
  }
}

/** whyOf says in one sentence what a decision changed and why, or why nothing changed. */
function whyOf(decision: AutoscaleDecision): string {
  if (decision.changes.length > 0)
    return decision.changes
      .map((c) => `${c.target} ${c.from} → ${c.to} (${c.reason}${c.rule == null ? '' : ` ${c.rule}`})`)
      .join('; ');
  if (decision.rule != null) return `rule ${decision.rule} holds its values`;
  const on = (Object.entries(decision.signals) as [string, boolean][]).filter(([, v]) => v).map(([k]) => k);
  return `no change: no rule passed${on.length === 0 ? '' : `; signals ${on.join(', ')}`}`;
}

/** DispatcherInputsOptions names the measurement sources of `dispatcherInputs`. */
export interface DispatcherInputsOptions {
  /** The part of Dispatcher read: capacity, busy ratio, recent durations, cumulative outcome counts. */
  readonly dispatcher: {
    readonly capacity: number;
    busyRatio(windowMs: number): number;
    recentDurations(sinceMs?: number): number[];
    stats(): { readonly finished: number; readonly retryableErrors: number };
  };
  /** The part of WorkQueue read: ready keys. */
  readonly queue: { len(): number };
  /** The autoscale interval. */
  readonly intervalMs: number;
  /** The dispatcher's clock. Default `systemClock`. */
  readonly clock?: Clock;
}

/**
 * dispatcherInputs returns an inputs provider over a Dispatcher and its WorkQueue: `depth` = ready
 * keys, `workers` = capacity, `busyPercent` over the last interval, `p95Ms` of at most the last 1000
 * durations finished in the last five intervals, `errorRatePercent` = retryable failures ÷ finished
 * since the previous call (the previous tick).
 */
export function dispatcherInputs(options: DispatcherInputsOptions): () => AutoscaleInputs {
  const clock = options.clock ?? systemClock;
  let previous = options.dispatcher.stats();
  return () => {
    const { dispatcher, intervalMs } = options;
    const stats = dispatcher.stats();
    const finished = stats.finished - previous.finished;
    const errors = stats.retryableErrors - previous.retryableErrors;
    previous = stats;
    return {
      depth: options.queue.len(),
      workers: dispatcher.capacity,
      busyPercent: dispatcher.busyRatio(intervalMs) * 100,
      p95Ms: percentile95(dispatcher.recentDurations(clock.now() - 5 * intervalMs)),
      errorRatePercent: finished > 0 ? (errors / finished) * 100 : 0,
    };
  };
}
