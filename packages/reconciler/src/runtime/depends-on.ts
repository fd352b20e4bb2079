/**
 * `dependsOn` gating at start-up (docs/reference/katalog.md §21, docs/reference/runtime.md §2 step 7): an entry's workers start
 * only once each dependency is `started` or `healthy`; a background check every 5 s starts the
 * rest, and after an entry started nothing gates it again.
 */
import type { Clock, TimerHandle } from '../clock.js';

/** DependencyCondition is what a dependency must reach before the dependent entry starts. */
export const DependencyCondition = { Started: 'started', Healthy: 'healthy' } as const;
export type DependencyCondition = (typeof DependencyCondition)[keyof typeof DependencyCondition];

/** HEALTHY_MAX_CONSECUTIVE_FAILURES: from this many failed reconciles in a row an entry is not healthy. */
export const HEALTHY_MAX_CONSECUTIVE_FAILURES = 5;

/** DependencyStats is what the gate reads of a dependency. */
export interface DependencyStats {
  /** The primary cache has completed its first list. */
  readonly synced: boolean;
  /** The entry's workers run. */
  readonly workersStarted: boolean;
  /** CRs in the primary cache. */
  readonly objects: number;
  /** Reconciles that ended without an error. */
  readonly successes: number;
  /** Reconciles in a row that ended with an error. */
  readonly consecutiveFailures: number;
  /** The entry's CRD is gone (docs/reference/runtime.md §2.9): neither started nor healthy. Default false. */
  readonly deactivated?: boolean;
}

/**
 * dependencyMet tells whether a dependency meets its condition: `started` = synced, workers
 * running and not deactivated (its CRD exists); `healthy` = started, and no CRs or at least one successful reconcile, and fewer than 5
 * failed reconciles in a row.
 */
export function dependencyMet(condition: DependencyCondition, stats: DependencyStats): boolean {
  const started = stats.synced && stats.workersStarted && stats.deactivated !== true;
  if (condition === DependencyCondition.Started) return started;
  return (
    started &&
    (stats.objects === 0 || stats.successes > 0) &&
    stats.consecutiveFailures < HEALTHY_MAX_CONSECUTIVE_FAILURES
  );
}

/** GatedEntry is one entry the gate starts. */
export interface GatedEntry {
  readonly name: string;
  readonly dependsOn: readonly { readonly name: string; readonly condition: DependencyCondition }[];
  stats(): DependencyStats;
  /** Starts the entry's workers (and whatever runs with them). */
  start(): void;
}

/** StartGateOptions configures a StartGate. */
export interface StartGateOptions {
  readonly entries: readonly GatedEntry[];
  readonly clock: Clock;
  /** How often waiting entries are checked. Default 5000 ms. */
  readonly intervalMs?: number;
  /** Called when an entry starts, and once per check for each entry still waiting (with what it waits for). */
  readonly onStarted?: (name: string) => void;
  readonly onWaiting?: (name: string, waitingFor: readonly string[]) => void;
}

/**
 * StartGate starts entries in dependency order without ever blocking: `start()` starts every entry
 * whose dependencies are met (repeating while that makes progress, so a chain of `started`
 * dependencies starts at once) and re-checks the others every `intervalMs` until all started or
 * `stop()` is called.
 *
 * @example
 * const gate = new StartGate({ entries, clock });
 * gate.start();
 * gate.waiting(); // → ['shop'] while `database` is not healthy
 */
export class StartGate {
  readonly #entries: readonly GatedEntry[];
  readonly #byName: ReadonlyMap<string, GatedEntry>;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #onStarted: ((name: string) => void) | undefined;
  readonly #onWaiting: ((name: string, waitingFor: readonly string[]) => void) | undefined;
  readonly #started = new Set<string>();
  #timer: TimerHandle | undefined;
  #running = false;

  constructor(options: StartGateOptions) {
    this.#entries = options.entries;
    this.#byName = new Map(options.entries.map((e) => [e.name, e]));
    this.#clock = options.clock;
    this.#intervalMs = options.intervalMs ?? 5000;
    this.#onStarted = options.onStarted;
    this.#onWaiting = options.onWaiting;
  }

  /** start starts what can start now and schedules the background check for the rest. */
  start(): void {
    this.#running = true;
    this.#check();
  }

  /** stop cancels the background check; entries already started keep running. */
  stop(): void {
    this.#running = false;
    if (this.#timer != null) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** waiting lists the entries whose workers have not started yet. */
  waiting(): string[] {
    return this.#entries.filter((e) => !this.#started.has(e.name)).map((e) => e.name);
  }

  /** unmet lists the dependencies of an entry that do not meet their condition now. */
  unmet(name: string): string[] {
    const entry = this.#byName.get(name);
    if (entry == null) return [];
    return entry.dependsOn
      .filter((d) => {
        const dependency = this.#byName.get(d.name);
        return dependency == null || !dependencyMet(d.condition, dependency.stats());
      })
      .map((d) => `${d.name} (${d.condition})`);
  }

  #check(): void {
    this.#timer = undefined;
    if (!this.#running) return;
    let progress = true;
    while (progress) {
      progress = false;
      for (const entry of this.#entries) {
        if (this.#started.has(entry.name) || this.unmet(entry.name).length > 0) continue;
        this.#started.add(entry.name);
        entry.start();
        this.#onStarted?.(entry.name);
        progress = true;
      }
    }
    const waiting = this.waiting();
    if (waiting.length === 0) return;
    for (const name of waiting) this.#onWaiting?.(name, this.unmet(name));
    this.#timer = this.#clock.setTimeout(() => this.#check(), this.#intervalMs);
  }
}
