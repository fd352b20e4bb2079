/**
 * The rollout controller (docs/reference/runtime.md §24.3): on the leader, a tick reads the
 * rollout state (where `ork rollout` writes its commands), advances it over the CRs in the primary
 * caches, writes it back, re-queues the CRs whose revision changed, and reports steps and failed
 * gates as Events. Ticks repeat only while a rollout is under way; otherwise one runs when an
 * input changes (`nudge`: a command arrived through the watch, the policy was reloaded), so an
 * operator with no rollout under way makes no request for it (ADR 0034).
 */
import { ConflictError } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import type { Logger, Rollout } from '@orkestra/types';
import { systemClock } from '../clock.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { EventSubject } from '../events/event-recorder.js';
import { assign, tick } from './plan.js';
import type { RolloutEvent, RolloutState } from './plan.js';
import { rolloutObjectName } from './revision.js';
import type { RolloutStore } from './rollout-store.js';

/** RolloutControllerOptions configures a RolloutController. */
export interface RolloutControllerOptions {
  readonly store: Pick<RolloutStore, 'read' | 'write'>;
  /** The state to start from (the operator decides it at start-up and on reload). */
  readonly state: RolloutState;
  /** The state's resource version; undefined when it has not been stored yet. */
  readonly resourceVersion: string | undefined;
  /** `spec.rollout` of the running Katalog (read at every tick: a reload may change it). */
  readonly policy: () => Rollout | undefined;
  /** Every CR of the Katalog's entries: the primary caches, or a sharded replica's cross-shard view while it leads (ADR 0058). */
  readonly crs: () => readonly KubeObject[];
  /** Re-queues a CR whose revision changed. */
  readonly enqueue: (cr: KubeObject) => void;
  readonly events: {
    normal(subject: EventSubject, reason: string, message: string): unknown;
    warning(subject: EventSubject, reason: string, message: string): unknown;
  };
  /** Namespace of the rollout ConfigMap (the subject of rollout-level Events). */
  readonly namespace: string;
  readonly katalogName: string;
  readonly logger: Logger;
  /** Whether the caches hold every CR (the runtime has synced); no tick runs before. */
  readonly ready: () => boolean;
  /** Called after every tick with the state, the CRs and the tick's events (metrics). */
  readonly onState?: (
    state: RolloutState,
    crs: readonly KubeObject[],
    events: readonly RolloutEvent[],
  ) => void;
  readonly clock?: Clock;
  /** Tick interval while a rollout is under way (and while waiting for the caches), ms. Default 2 000. */
  readonly tickMs?: number;
}

/** RolloutController drives one Katalog's rollout. */
export class RolloutController {
  readonly #o: RolloutControllerOptions;
  readonly #clock: Clock;
  #state: RolloutState;
  #resourceVersion: string | undefined;
  #timer: TimerHandle | undefined;
  #running = false;
  #ticking: Promise<void> = Promise.resolve();
  #inTick = false;
  #again = false;

  constructor(options: RolloutControllerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#state = options.state;
    this.#resourceVersion = options.resourceVersion;
  }

  /** state is the rollout as this process last read or wrote it. */
  get state(): RolloutState {
    return this.#state;
  }

  /** assign is the revision of one CR: `current` (the target) or `previous` (the stable one). */
  assign(cr: KubeObject): 'current' | 'previous' {
    return assign(this.#state, cr) === 'target' ? 'current' : 'previous';
  }

  /** start runs a tick now; further ticks follow while a rollout is under way, or on `nudge`. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** nudge runs a tick soon: an input changed (the stored state, the policy, a CR). */
  nudge(): void {
    if (!this.#running) return;
    if (this.#inTick) {
      this.#again = true;
      return;
    }
    this.#schedule(0);
  }

  /**
   * follow adopts the stored state on a replica that does not run the ticks (a shard that is not
   * the leader, ADR 0058): the CRs of its caches whose revision changed are re-queued, so a wave the
   * leader starts reaches every shard. No-op while this controller ticks itself.
   */
  async follow(): Promise<void> {
    if (this.#running) return;
    try {
      const stored = await this.#o.store.read();
      if (stored == null || stored.state.target !== this.#state.target) return;
      const before = this.#state;
      this.#state = stored.state;
      this.#resourceVersion = stored.resourceVersion;
      if (!this.#o.ready()) return;
      for (const cr of this.#o.crs())
        if (assign(before, cr) !== assign(stored.state, cr)) this.#o.enqueue(cr);
    } catch (error) {
      this.#o.logger.warn(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'could not follow the rollout state',
      );
    }
  }

  /** stop ends the ticks and waits for one in progress. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer != null) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
  }

  /** underWay: the rollout moves by itself (a gate may open or time out), so ticks repeat. */
  #underWay(): boolean {
    const state = this.#state;
    return state.phase === 'Progressing' && !state.paused && this.#o.policy()?.paused !== true;
  }

  #schedule(delayMs: number): void {
    if (this.#timer != null) this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#inTick = true;
      this.#ticking = this.tickOnce().finally(() => {
        this.#inTick = false;
        if (!this.#running || this.#timer != null) return;
        const again = this.#again;
        this.#again = false;
        if (again) this.#schedule(0);
        else if (!this.#o.ready() || this.#underWay()) this.#schedule(this.#o.tickMs ?? 2_000);
      });
    }, delayMs);
  }

  /** tickOnce reads the stored state, advances it and writes it back (exported for tests). */
  async tickOnce(): Promise<void> {
    try {
      await this.#tick();
    } catch (error) {
      if (error instanceof ConflictError) return; // someone (ork rollout) wrote in between: next tick
      this.#o.logger.warn(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'rollout tick failed',
      );
    }
  }

  async #tick(): Promise<void> {
    if (!this.#o.ready()) return;
    const before = this.#state;
    const stored = await this.#o.store.read();
    // Commands of `ork rollout` arrive through the stored state; a state for another target belongs
    // to a newer Katalog (a reload under way): leave it alone.
    if (stored != null && stored.state.target !== before.target) return;
    const state = stored?.state ?? before;
    this.#resourceVersion = stored?.resourceVersion;
    const crs = this.#o.crs();
    const result = tick(state, this.#o.policy(), crs, this.#clock.now());
    const next = result.state;
    if (stored == null || JSON.stringify(stored.state) !== JSON.stringify(next)) {
      const written = await this.#o.store.write(next, this.#resourceVersion);
      this.#resourceVersion = written.resourceVersion;
    }
    this.#state = next;
    for (const cr of crs) if (assign(before, cr) !== assign(next, cr)) this.#o.enqueue(cr);
    for (const event of result.events) this.#emit(event);
    if (next.phase !== before.phase || next.step !== before.step || next.paused !== before.paused)
      this.#o.logger.info(
        { rollout: { ...next, rolledBack: next.rolledBack.length } },
        `rollout: ${next.message}`,
      );
    this.#o.onState?.(next, crs, result.events);
  }

  #emit(event: RolloutEvent): void {
    const subject: EventSubject = event.cr ?? {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: this.#o.namespace, name: rolloutObjectName(this.#o.katalogName) },
    };
    if (event.type === 'Normal') this.#o.events.normal(subject, event.reason, event.message);
    else this.#o.events.warning(subject, event.reason, event.message);
  }
}
