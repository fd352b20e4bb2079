/**
 * The `ork simulate` driver: one operator, its CRs, the offline engine's in-memory cluster. Each
 * scenario step changes the cluster (a CR applied or updated, a child's observed state, new hook
 * results) and then lets the real pipeline (@orkestra/reconciler/offline) run as the operator
 * would: reconciles until one writes nothing, or the deletion path until the finalizer is gone.
 * The report is read from the cluster's write log; nothing here re-implements a pipeline step.
 * With `katalog:` steps (docs/reference/runtime.md §24) every CR is reconciled with the revision the rollout's pure
 * `assign` gives it (one OfflineEngine per CR and revision over one shared cluster), and the
 * rollout's pure `tick` runs after the reconciles, as the rollout controller does
 * (docs/reference/runtime.md §24).
 */
import { ConditionType, OrkestraAnnotation, parseDuration } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { createTemplateEngine } from '@orkestra/template';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { MemoryCluster, OfflineEngine, mergePatch, patchResults, uidOf } from '@orkestra/reconciler/offline';
import {
  RolloutCommandError,
  assign,
  completeAt,
  control,
  katalogRevision,
  startRollout,
  tick,
} from '@orkestra/reconciler/rollout';
import type { RolloutState } from '@orkestra/reconciler/rollout';
import { IntervalGate, planRolloutNotifications } from '@orkestra/reconciler/offline';
import type {
  ClusterWrite,
  DueNotification,
  OfflineFailures,
  OfflineResults,
  OfflineRun,
} from '@orkestra/reconciler/offline';
import { checkCustomResource } from '../cr-input.js';
import type { CustomResource } from '../cr-input.js';
import { createSeededRandom } from '../../process/seeded-random.js';
import { formatChildRef, normalizeChildRef } from './cluster-model.js';
import { ScenarioError } from './scenario.js';
import type { ContextPatch, KatalogChange, RolloutCommandName, ScenarioStep } from './scenario.js';
import { isMap } from '../../is-map.js';

type Json = Record<string, unknown>;

/** MAX_RUNS bounds the reconciles (or deletion-path runs) one step may take to settle. */
const MAX_RUNS = 10;

/** ReadyState is the CR's Ready condition after a step. */
export interface ReadyState {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** StatusChange is one changed leaf of the status: `before` undefined means added, `after` undefined removed. */
export interface StatusChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** RolloutReport is the rollout after a step; revisions are named by their Katalog file. */
export interface RolloutReport {
  readonly phase: RolloutState['phase'];
  readonly step: number;
  readonly paused: boolean;
  readonly stable: string;
  readonly target: string;
  readonly message: string;
}

/** CrReport is one CR of the scenario after a step (docs/reference/runtime.md §24: several CRs, one rollout). */
export interface CrReport {
  readonly name: string;
  readonly crNamespace: string | undefined;
  /** The Katalog file (or revision) of `status.katalogRevision`; undefined before a reconcile recorded one. */
  readonly revision: string | undefined;
  readonly children: readonly string[];
  readonly ready: ReadyState | undefined;
  readonly synced: ReadyState | undefined;
  readonly status: Json | undefined;
}

/** StepReport is what one scenario step did. */
export interface StepReport {
  readonly step: ScenarioStep;
  /** What happened, e.g. `apply crs/hello.yaml`, `update`, `observe Deployment/hello-web`, `delete`. */
  readonly action: string;
  /** `Kind namespace/name` of the CR, when there is one. */
  readonly cr: string | undefined;
  readonly crNamespace: string | undefined;
  /** The CR's generation after the step. */
  readonly generation: number | undefined;
  /** Whether a reconcile ran (not when there is no CR, nor for a delete step). */
  readonly reconciled: boolean;
  readonly creates: readonly string[];
  readonly applies: readonly string[];
  readonly prunes: readonly string[];
  /** Children in the cluster after the step. */
  readonly children: readonly string[];
  readonly ready: ReadyState | undefined;
  /** The Synced condition (the last reconcile applied everything) after the step. */
  readonly synced: ReadyState | undefined;
  /** The ValidationWarning message when that condition is True. */
  readonly warning: string | undefined;
  /** The CR's status after the step; undefined once the CR is gone. */
  readonly status: Json | undefined;
  /** Changed status leaves, without `conditions` and `inventory` (shown as ready and child writes). */
  readonly statusChanges: readonly StatusChange[];
  /** Delete steps: the deletion path, in order. */
  readonly deletionOrder: readonly string[] | undefined;
  /** Delete steps whose deletion path failed (ADR 0116): the finalizers the CR keeps; undefined otherwise. */
  readonly finalizers?: readonly string[];
  /** docs/reference/runtime.md §24: the rollout, once a `katalog:` step started one. */
  readonly rollout: RolloutReport | undefined;
  /** docs/reference/runtime.md §24: every CR of the scenario, in the order applied (with rollouts or more than one CR). */
  readonly crs: readonly CrReport[];
  /**
   * Team notifications the step's reconciles would send (docs/reference/katalog.md §15.4), after
   * the interval gate, with the rendered message; the simulation sends nothing.
   */
  readonly notifications: readonly SimulatedNotification[];
  readonly notes: readonly string[];
}

/** SimulatedNotification is one message a step would send: the CR whose reconcile triggered it, the team, the channels, the text. */
export interface SimulatedNotification extends DueNotification {
  readonly cr: string;
}

/** SimulatorOptions configures a Simulator. */
export interface SimulatorOptions {
  readonly katalog: Katalog;
  /** The clock at the first step; steps move it with `advance`. */
  readonly now: Date;
  /** How reports name the first Katalog's revision (its file). Default: `katalog`. */
  readonly katalogSource?: string;
  /**
   * Record `status.katalogRevision` and run rollouts (docs/reference/runtime.md §24). Default:
   * off (one-Katalog reports stay as they were); `ork simulate` turns it on when a step changes
   * the Katalog.
   */
  readonly revisions?: boolean;
}

interface CrState {
  readonly ref: ObjectRef;
  readonly uid: string;
  /** One engine per Katalog revision, all over the simulator's one cluster. */
  readonly engines: Map<string, OfflineEngine>;
  readonly namespace: string | undefined;
  readonly label: string;
  /** Failed attempts in a row (docs/reference/katalog.md §20.1); reset by a success or a new generation. */
  failures?: { readonly count: number; readonly generation: unknown };
  /** The enqueueGate held this step's event (docs/reference/katalog.md §20.3): the CR is not queued. */
  held?: boolean;
}

/** Revision is a loaded Katalog and the file it came from. */
interface Revision {
  readonly katalog: Katalog;
  readonly source: string;
}

/**
 * Simulator holds the offline engines of the scenario's CRs (one per CR and Katalog revision,
 * over one in-memory cluster) and runs scenario steps against them. Steps that
 * cannot be taken (an update before any CR, an observed child that does not exist) throw a
 * ScenarioError naming the step's position.
 *
 * @example
 * const simulator = new Simulator({ katalog, now: new Date('2026-01-01T00:00:00Z') });
 * for (const step of scenario.steps) console.log((await simulator.run(step)).applies);
 */
export class Simulator {
  #nowMs: number;
  /** Every live CR by metadata.name, in the order applied. */
  readonly #crs = new Map<string, CrState>();
  /** The CR of the latest steps (the last applied, or a step's `cr:`). */
  #current: string | undefined;
  readonly #cluster: MemoryCluster;
  readonly #revisions = new Map<string, Revision>();
  readonly #recordRevisions: boolean;
  #rollout: RolloutState;
  readonly #clock = {
    now: (): number => this.#nowMs,
    setTimeout: (): object => ({}),
    clearTimeout: (): void => undefined,
  };
  /** One interval gate for the operator's notifications, as the runtime keeps one per Katalog. */
  readonly #notificationGate = new IntervalGate({ clock: this.#clock });
  /** The notifications of the current step's runs. */
  #notified: SimulatedNotification[] = [];
  /** The hook and provider results the steps gave so far (`patchResults`). */
  #context: OfflineResults = patchResults({}, {});
  /** The deletion steps the steps scripted to fail so far (`deletionFailures`, ADR 0116), merged as results are. */
  #deletionFailures: OfflineFailures = {};

  constructor(options: SimulatorOptions) {
    this.#nowMs = options.now.getTime();
    this.#cluster = new MemoryCluster({ clock: this.#clock });
    this.#recordRevisions = options.revisions ?? false;
    const revision = katalogRevision(options.katalog);
    this.#revisions.set(revision, { katalog: options.katalog, source: options.katalogSource ?? 'katalog' });
    this.#rollout = completeAt(revision, this.#nowMs, 'first revision');
  }

  /** The CR of the current step, when there is one. */
  get #state(): CrState | undefined {
    return this.#current == null ? undefined : this.#crs.get(this.#current);
  }

  /** The Katalog of the newest revision (the one in Git): it decides which kinds a CR may have. */
  get #katalog(): Katalog {
    return (this.#revisions.get(this.#rollout.target) as Revision).katalog;
  }

  /** run applies one step to the cluster, lets the engine settle, and returns the step's report. */
  async run(step: ScenarioStep): Promise<StepReport> {
    if (step.advanceMs != null) this.#nowMs += step.advanceMs;
    this.#notified = [];
    if (step.context != null) this.#patchContext(step.context);
    if (step.deletionFailures != null)
      this.#deletionFailures = patchResults(this.#deletionFailures, step.deletionFailures);
    if (step.cr != null) {
      if (!this.#crs.has(step.cr))
        throw new ScenarioError(
          step.position,
          `step ${step.number} (${step.name}): cr ${step.cr}: no such CR (CRs: ${[...this.#crs.keys()].join(', ') || 'none'})`,
        );
      this.#current = step.cr;
    }
    const notes: string[] = [];
    let action = step.context == null ? 'resync' : 'context';
    if (step.katalog != null) {
      action = `katalog ${step.katalog.source}`;
      this.#changeKatalog(step.katalog, notes);
    } else if (step.rollout != null) {
      action = `rollout ${step.rollout}`;
      this.#control(step, step.rollout);
    } else if (step.apply != null) {
      action = `apply ${step.apply.source}`;
      this.#apply(step, step.apply.cr, notes);
    } else if (step.update != null) {
      action = 'update';
      const state = this.#requireCr(step, 'update');
      const current = this.#cluster.get(state.ref);
      this.#checked(step, mergePatch(current, step.update), 'the CR after this update');
      this.#cluster.observe(state.ref, step.update as Json);
      this.#admit(state, current, notes);
    } else if (step.observe != null) {
      action = `observe ${step.observe.map((o) => o.ref).join(', ')}`;
      for (const change of step.observe) this.#observe(step, change.ref, change.patch, change.position);
    } else if (step.delete === true) {
      return this.#delete(step);
    }
    const state = this.#state;
    // A CR whose deletion is under way (a deletion step failed, ADR 0116): the runtime retries its
    // deletion path, so a step without an action continues it.
    if (state != null && this.#cluster.get(state.ref)?.metadata['deletionTimestamp'] != null)
      return this.#delete(step);
    if (state == null) {
      notes.push('no CR yet: nothing to reconcile');
      return this.#report(step, action, { notes });
    }
    return this.#reconcile(step, state, action, notes);
  }

  // ---- revisions and rollouts (docs/reference/runtime.md §24) ---------------------------------

  /** #changeKatalog is a new Katalog in Git: a new revision, and a rollout to it from the last complete one (as prepareRollout decides). */
  #changeKatalog(change: KatalogChange, notes: string[]): void {
    const revision = katalogRevision(change.katalog);
    const known = this.#revisions.get(revision);
    this.#revisions.set(revision, known ?? { katalog: change.katalog, source: change.source });
    const state = this.#rollout;
    if (state.target === revision) {
      notes.push(`${change.source} is the current revision ${revision}: no rollout`);
      return;
    }
    const stable = state.phase === 'Complete' ? state.target : state.stable;
    this.#rollout = startRollout(stable, revision, change.katalog.spec.rollout, this.#nowMs);
    notes.push(
      `revision ${this.#revisionName(revision)} (${revision}) after ${this.#revisionName(stable)} (${stable})`,
    );
  }

  #control(step: ScenarioStep, command: RolloutCommandName): void {
    try {
      this.#rollout = control(this.#rollout, command, this.#nowMs);
    } catch (error) {
      if (!(error instanceof RolloutCommandError)) throw error;
      throw new ScenarioError(step.position, `step ${step.number} (${step.name}): ${error.message}`);
    }
  }

  /** #revisionName is the Katalog file a revision came from, or the revision when unknown. */
  #revisionName(revision: string): string {
    return this.#revisions.get(revision)?.source ?? revision;
  }

  /** #revisionOf is the revision `assign` gives a CR now. */
  #revisionOf(state: CrState): string {
    const cr = this.#cluster.get(state.ref);
    if (cr == null) return this.#rollout.target;
    return assign(this.#rollout, cr) === 'target' ? this.#rollout.target : this.#rollout.stable;
  }

  /** #engineOf is the CR's engine for the revision it is assigned now (created on first use). */
  #engineOf(state: CrState): OfflineEngine {
    const revision = this.#revisionOf(state);
    let engine = state.engines.get(revision);
    if (engine == null) {
      engine = new OfflineEngine({
        katalog: (this.#revisions.get(revision) as Revision).katalog,
        clock: this.#clock,
        cluster: this.#cluster,
        engine: createTemplateEngine({ random: createSeededRandom(state.uid), clock: this.#clock }),
        notificationGate: this.#notificationGate,
        ...(this.#recordRevisions ? { revision } : {}),
      });
      state.engines.set(revision, engine);
    }
    return engine;
  }

  // ---- events ---------------------------------------------------------------------------------

  #checked(step: ScenarioStep, value: unknown, source: string): CustomResource {
    try {
      return checkCustomResource(value, source);
    } catch (error) {
      throw new ScenarioError(step.position, error instanceof Error ? error.message : String(error));
    }
  }

  #apply(step: ScenarioStep, input: CustomResource, notes: string[]): void {
    const found = Object.entries(this.#katalog.spec.crds).find(
      ([, e]) =>
        e.enabled &&
        `${e.apiTypes.group}/${e.apiTypes.version}` === input.apiVersion &&
        e.apiTypes.kind === input.kind,
    );
    if (found == null) {
      throw new ScenarioError(
        step.position,
        `no CRD entry of Katalog ${this.#katalog.metadata.name} serves ${input.apiVersion} ${input.kind}`,
      );
    }
    const [entryName, entry] = found;
    const name = input.metadata.name;
    const namespace = entry.namespaced ? (input.metadata.namespace ?? 'default') : undefined;
    const ref: ObjectRef = {
      apiVersion: input.apiVersion,
      kind: input.kind,
      name,
      ...(namespace == null ? {} : { namespace }),
    };
    let state = this.#crs.get(name);
    if (
      state != null &&
      (state.ref.kind !== ref.kind ||
        state.ref.apiVersion !== ref.apiVersion ||
        state.namespace !== namespace)
    ) {
      throw new ScenarioError(
        step.position,
        `CRs are named by metadata.name in a scenario; ${input.kind} ${namespace == null ? '' : `${namespace}/`}${name} is not the ${state.label} of the earlier steps`,
      );
    }
    const uid = input.metadata.uid ?? uidOf(`${entryName}/${namespace ?? ''}/${name}`);
    if (state == null) {
      state = {
        ref,
        uid,
        engines: new Map(),
        namespace,
        label: `${input.kind} ${namespace == null ? '' : `${namespace}/`}${name}`,
      };
      this.#crs.set(name, state);
    }
    this.#current = name;
    const before = this.#cluster.get(ref);
    const { status: _status, ...body } = input;
    const stored = this.#cluster.put({
      ...structuredClone(body),
      metadata: {
        ...structuredClone(input.metadata),
        ...(namespace == null ? {} : { namespace }),
        uid,
      },
    } as KubeObject);
    if (before != null && before.metadata['generation'] === stored.metadata['generation'])
      notes.push('the spec did not change (generation unchanged)');
    this.#admit(state, before, notes);
  }

  /** #admit is the informer event of a CR change: the entry's enqueueGate may hold it (katalog.md §20.3). */
  #admit(state: CrState, old: KubeObject | undefined, notes: string[]): void {
    const engine = this.#engineOf(state);
    // An enqueueGate's external calls are answered from the scenario's results at this step.
    engine.results = this.#results();
    if (engine.admit(state.ref, old)) return;
    state.held = true;
    notes.push('enqueueGate held the event: the CR is not queued (nothing is written)');
  }

  #observe(step: ScenarioStep, ref: string, patch: Json | null, position: ScenarioStep['position']): void {
    const state = this.#state;
    const crNamespace = state?.namespace;
    const wanted = normalizeChildRef(ref, crNamespace);
    // The current CR's children first, then any CR's (children of several CRs have distinct names).
    const children = [
      ...(state == null ? [] : this.#children(state)),
      ...[...this.#crs.values()].filter((s) => s !== state).flatMap((s) => this.#children(s)),
    ];
    const child = children.find((c) => formatChildRef(c, crNamespace) === wanted);
    if (state == null || child == null) {
      const known = children.map((c) => formatChildRef(c, crNamespace));
      throw new ScenarioError(
        position,
        `step ${step.number} (${step.name}): observe ${ref}: no such child in the simulated cluster (children: ${known.join(', ') || 'none'})`,
      );
    }
    this.#cluster.observe(refOfObject(child), patch);
  }

  #patchContext(patch: ContextPatch): void {
    this.#context = patchResults(this.#context, patch);
  }

  #results(): OfflineResults {
    return structuredClone(this.#context);
  }

  // ---- reconcile ------------------------------------------------------------------------------

  /**
   * #reconcile lets the operator settle: every CR is reconciled with its assigned revision; then
   * the rollout ticks over the CRs' statuses, and when it moved (a wave admitted, a gate failed)
   * the CRs are reconciled again, until it stands still. The report's writes are the step's CR's.
   */
  async #reconcile(step: ScenarioStep, state: CrState, action: string, notes: string[]): Promise<StepReport> {
    const before = statusOf(this.#cluster.get(state.ref));
    const generation = this.#cluster.get(state.ref)?.metadata['generation'];
    const writes: ClusterWrite[] = [];
    for (let round = 0; round < MAX_RUNS; round++) {
      for (const cr of this.#crs.values()) {
        const own = await this.#settle(cr, cr === state ? notes : []);
        if (cr === state) writes.push(...own);
      }
      if (!this.#recordRevisions) break;
      const live = [...this.#crs.values()].flatMap((cr) => {
        const object = this.#cluster.get(cr.ref);
        return object == null ? [] : [object];
      });
      const policy = (this.#revisions.get(this.#rollout.target) as Revision).katalog.spec.rollout;
      const result = tick(this.#rollout, policy, live, this.#nowMs);
      for (const event of result.events)
        notes.push(
          `rollout: ${event.reason}${event.cr == null ? '' : ` ${event.cr.metadata.name ?? ''}`}: ${event.message}`,
        );
      this.#notifyRollout(result.events, result.state);
      if (result.state === this.#rollout) break;
      this.#rollout = result.state;
    }
    const after = this.#cluster.get(state.ref);
    if (
      generation != null &&
      after?.metadata['generation'] !== generation &&
      writes.some((w) => isCr(w, state))
    )
      notes.push(
        `mutation rules changed the spec: the runtime merge-patches it (generation ${String(after?.metadata['generation'])})`,
      );
    const refs = (verb: ClusterWrite['verb']): string[] => [
      ...new Set(
        writes
          .filter((w) => w.verb === verb && !isCr(w, state))
          .map((w) => formatChildRef(w.ref, state.namespace)),
      ),
    ];
    return this.#report(step, action, {
      reconciled: true,
      creates: refs('create'),
      applies: refs('apply'),
      prunes: refs('delete'),
      statusChanges: diffStatus(before, statusOf(after)),
      notes,
    });
  }

  /** #settle runs one CR as the operator's own-write re-queue would: until a run writes nothing or fails. */
  async #settle(state: CrState, notes: string[]): Promise<ClusterWrite[]> {
    const engine = this.#engineOf(state);
    engine.results = this.#results();
    engine.deletionFailures = structuredClone(this.#deletionFailures);
    const writes: ClusterWrite[] = [];
    // Only the last run's timing counts: the runtime re-runs after an own write and replaces the timer.
    let timing: string[] = [];
    if (state.held === true) {
      state.held = false;
      // katalog.md §20.3: an event held until the enqueueGate's calls answered is queued once they pass it.
      if (!(await engine.requeued(state.ref))) return writes;
      notes.push('enqueueGate passed the held event once its external calls answered: the CR is queued');
    }
    for (let i = 0; i < MAX_RUNS; i++) {
      // katalog.md §20.6: a cleanup deleted the CR, and its deletion path removed it.
      if (this.#cluster.get(state.ref) == null) break;
      const generation = this.#cluster.get(state.ref)?.metadata['generation'];
      const retry =
        this.#katalog.spec.crds[engine.entryFor(state.ref.apiVersion, state.ref.kind) ?? '']?.queue
          .retryBackoff;
      // katalog.md §20.1: a new generation restarts the retry budget; an exhausted CR waits for one.
      const failures =
        state.failures != null && state.failures.generation === generation ? state.failures.count : 0;
      if (retry != null && retry.maxAttempts > 0 && failures >= retry.maxAttempts) {
        notes.push(
          `retries exhausted (${retry.maxAttempts} attempts): not reconciled until the spec or a watched input changes`,
        );
        break;
      }
      const last = retry != null && retry.maxAttempts > 0 && failures + 1 >= retry.maxAttempts;
      const run = await engine.reconcile(
        state.ref,
        last ? { lastAttempt: { attempts: retry.maxAttempts } } : {},
      );
      writes.push(...run.writes);
      notes.push(...run.notes);
      this.#notifiedBy(state, run);
      if (run.gated === true) {
        notes.push('reconcileGate held the reconcile: Gated=True, nothing else is written');
        timing = [];
        break;
      }
      const rolled = run.rolledBack == null ? undefined : rollbackNote(run.rolledBack);
      if (rolled != null && !notes.includes(rolled)) notes.push(rolled);
      timing = timingNotes(run, failures, retry, (count) => (state.failures = { count, generation }));
      const cleanup = cleanupNotes(
        run,
        this.#katalog.spec.crds[run.entry]?.cleanup?.deleteAfter,
        this.#nowMs,
      );
      // The deletion the cleanup started is reported once, whatever the deletion path's runs say after it.
      if (cleanup.some((n) => n.startsWith('cleanup: deleted'))) notes.push(...cleanup);
      else timing.push(...cleanup);
      if (run.writes.length === 0 || run.error != null) break;
    }
    notes.push(...timing);
    return writes;
  }

  #requireCr(step: ScenarioStep, what: string): CrState {
    if (this.#state == null)
      throw new ScenarioError(
        step.position,
        `step ${step.number} (${step.name}): ${what} needs a CR; apply one first`,
      );
    return this.#state;
  }

  // ---- deletion (docs/reference/runtime.md §10.2) ------------------------------------------------------------

  /**
   * #delete deletes the CR as a user would and runs the deletion path until the CR is gone. Cleanup
   * jobs are assumed to finish: a Job the path created is marked Complete before the next run. A
   * run that fails (a deletion step scripted to fail, ADR 0116) ends the step: the CR stays with its
   * finalizer, as the runtime leaves it until its retry, and a later step continues the path.
   */
  async #delete(step: ScenarioStep): Promise<StepReport> {
    const state = this.#requireCr(step, 'delete');
    const cluster = this.#cluster;
    const engine = this.#engineOf(state);
    const notes: string[] = [];
    const order: string[] = [];
    const generation = Number(cluster.get(state.ref)?.metadata['generation'] ?? 1);
    const hadFinalizer =
      ((cluster.get(state.ref)?.metadata['finalizers'] as unknown[] | undefined) ?? []).length > 0;
    engine.results = this.#results();
    engine.deletionFailures = structuredClone(this.#deletionFailures);
    const start = cluster.writes.length;
    const continued = cluster.get(state.ref)?.metadata['deletionTimestamp'] != null;
    if (!continued) cluster.requestDelete(state.ref);
    let ready: ReadyState | undefined;
    let deletingShown = false;
    const recordWrite = (write: ClusterWrite, run: OfflineRun | undefined): void => {
      const cr = isCr(write, state);
      const ref = formatChildRef(write.ref, state.namespace);
      if (cr && write.verb === 'status' && !deletingShown) {
        const now = readyOf(run?.cr ?? cluster.get(state.ref));
        if (now != null) {
          order.push(`status Ready=${now.status} ${now.reason}`);
          ready = now;
          deletingShown = true;
        }
      } else if (cr && write.verb === 'removed') order.push('finalizer-removed');
      else if (!cr && write.verb === 'create' && write.ref.kind === 'Job') order.push(`cleanup-job ${ref}`);
      else if (!cr && write.verb === 'delete') order.push(`delete ${ref}`);
      else if (!cr && write.verb === 'removed' && write.collected === true)
        order.push(`garbage-collected ${ref}`);
    };
    /** record merges a run's provider calls into its writes, in the order they happened. */
    const record = (run: OfflineRun): void => {
      const calls = [...run.providerCalls];
      const flush = (upTo: number): void => {
        while (calls.length > 0 && (calls[0]?.afterWrites ?? 0) <= upTo) {
          const call = calls.shift();
          // Every pass of the deletion path calls the providers again (they are idempotent); report each once.
          const line =
            call?.verb === 'delete'
              ? `provider-delete ${call.provider}/${call.declaration}`
              : call?.verb === 'retain'
                ? `provider-retain ${call.provider}/${call.declaration}`
                : call?.verb === 'onDelete'
                  ? // A module's deletion step (ADR 0109): not loaded offline, shown where it runs.
                    `${call.provider === 'remote' ? 'reconciler' : 'hook'}-onDelete ${call.declaration}`
                  : undefined;
          if (line != null && !order.includes(line)) order.push(line);
        }
      };
      run.writes.forEach((write, index) => {
        flush(index);
        recordWrite(write, run);
      });
      flush(Number.MAX_SAFE_INTEGER);
    };
    let failed: OfflineRun | undefined;
    const events: string[] = [];
    if (!hadFinalizer) {
      notes.push(
        'the CR never got the orkestra.konductor.io/finalizer finalizer (its namespace is blocked): Kubernetes removes it at once',
      );
      for (const write of cluster.writes.slice(start)) if (!isCr(write, state)) recordWrite(write, undefined);
    } else {
      for (let i = 0; i < MAX_RUNS && cluster.get(state.ref) != null; i++) {
        const run = await engine.reconcile(state.ref);
        this.#notifiedBy(state, run);
        record(run);
        for (const event of run.events) events.push(`${event.type} ${event.reason}: ${event.message}`);
        // A failed pass is retried by the runtime with backoff, not at once: the CR stays as it is.
        if (run.error != null) {
          failed = run;
          break;
        }
        for (const write of run.writes) {
          if (write.verb === 'create' && write.ref.kind === 'Job' && cluster.get(write.ref) != null)
            cluster.observe(write.ref, { status: { conditions: [{ type: 'Complete', status: 'True' }] } });
        }
      }
      if (cluster.get(state.ref) != null && failed == null)
        notes.push(`the CR is still there after ${MAX_RUNS} runs of the deletion path`);
    }
    const left = cluster.get(state.ref);
    if (failed?.error != null && left != null)
      return this.#stuck(step, state, failed, { order, notes, events, generation });
    this.#crs.delete(state.ref.name);
    this.#current = [...this.#crs.keys()].at(-1);
    return {
      ...this.#report(step, 'delete', { notes }),
      cr: state.label,
      crNamespace: state.namespace,
      generation,
      ready,
      deletionOrder: order,
      children: [],
      synced: undefined,
      warning: undefined,
      status: undefined,
    };
  }

  /**
   * #stuck reports a deletion pass that failed (ADR 0116): the CR keeps its finalizer, its Ready and
   * Synced conditions say why (as the runtime writes them), and the runtime's retry is named.
   */
  #stuck(
    step: ScenarioStep,
    state: CrState,
    run: OfflineRun,
    parts: { order: string[]; notes: string[]; events: string[]; generation: number },
  ): StepReport {
    const cr = this.#cluster.get(state.ref);
    const finalizers = (cr?.metadata['finalizers'] as string[] | undefined) ?? [];
    const ready = readyOf(cr);
    const generation = Number(cr?.metadata['generation'] ?? 1);
    const retry = this.#katalog.spec.crds[run.entry]?.queue.retryBackoff;
    const failures =
      state.failures != null && state.failures.generation === generation ? state.failures.count : 0;
    const notes = [
      ...parts.notes,
      ...parts.events.map((event) => `event ${event}`),
      `the deletion path failed (${run.error?.code ?? ''}): the runtime retries it, and so does a later step here`,
      ...timingNotes(run, failures, retry, (count) => (state.failures = { count, generation })),
    ];
    return {
      ...this.#report(step, 'delete', { notes }),
      generation: parts.generation,
      ready,
      deletionOrder: parts.order,
      finalizers,
    };
  }

  // ---- report ---------------------------------------------------------------------------------

  /** #notifyRollout plans the tick's rollout notifications as the runtime does (katalog.md §2.3, ADR 0066). */
  #notifyRollout(events: readonly { reason: string; message: string }[], rollout: RolloutState): void {
    const katalog = this.#katalog;
    const notify = katalog.spec.rollout?.notify;
    const notification = katalog.spec.notification;
    if (events.length === 0 || notify == null || notification == null) return;
    const engine = createTemplateEngine({ clock: this.#clock });
    const plan = {
      katalogName: katalog.metadata.name,
      notification,
      gate: this.#notificationGate,
      render: (template: string, context: Readonly<Record<string, unknown>>) =>
        String(engine.renderTemplate(template, context)),
    };
    const state = {
      ...rollout,
      stable: this.#revisionName(rollout.stable),
      target: this.#revisionName(rollout.target),
    };
    for (const due of planRolloutNotifications(plan, notify, events, state))
      this.#notified.push({ ...due, cr: 'rollout' });
  }

  #notifiedBy(state: CrState, run: OfflineRun): void {
    for (const due of run.notifications) this.#notified.push({ ...due, cr: state.label });
  }

  #children(state: CrState): KubeObject[] {
    const uid = this.#cluster.get(state.ref)?.metadata.uid ?? '';
    return [...this.#cluster.childStore.listAllOwned(uid)];
  }

  #report(
    step: ScenarioStep,
    action: string,
    parts: Partial<
      Pick<StepReport, 'reconciled' | 'creates' | 'applies' | 'prunes' | 'statusChanges' | 'notes'>
    >,
  ): StepReport {
    const state = this.#state;
    const cr = state == null ? undefined : this.#cluster.get(state.ref);
    const status = cr == null ? undefined : statusOf(cr);
    const conditions = Array.isArray(status?.['conditions']) ? (status['conditions'] as Json[]) : [];
    const warning = conditions.find(
      (c) => c['type'] === ConditionType.ValidationWarning && c['status'] === 'True',
    );
    return {
      step,
      action,
      cr: state?.label,
      crNamespace: state?.namespace,
      generation: cr == null ? undefined : Number(cr.metadata['generation'] ?? 1),
      reconciled: parts.reconciled ?? false,
      creates: parts.creates ?? [],
      applies: parts.applies ?? [],
      prunes: parts.prunes ?? [],
      children: state == null ? [] : this.#children(state).map((c) => formatChildRef(c, state.namespace)),
      ready: readyOf(cr),
      synced: conditionStateOf(cr, ConditionType.Synced),
      warning: warning == null ? undefined : String(warning['message'] ?? ''),
      status: cr == null ? undefined : structuredClone(status),
      statusChanges: parts.statusChanges ?? [],
      deletionOrder: undefined,
      rollout: this.#rolloutReport(),
      crs: this.#crReports(),
      notifications: this.#notified,
      notes: parts.notes ?? [],
    };
  }

  #rolloutReport(): RolloutReport | undefined {
    if (!this.#recordRevisions) return undefined;
    const r = this.#rollout;
    return {
      phase: r.phase,
      step: r.step,
      paused: r.paused,
      stable: this.#revisionName(r.stable),
      target: this.#revisionName(r.target),
      message: r.message,
    };
  }

  #crReports(): CrReport[] {
    if (!this.#recordRevisions && this.#crs.size < 2) return [];
    return [...this.#crs.entries()].map(([name, state]) => {
      const cr = this.#cluster.get(state.ref);
      const revision = statusOf(cr)['katalogRevision'];
      return {
        name,
        crNamespace: state.namespace,
        revision: typeof revision === 'string' ? this.#revisionName(revision) : undefined,
        children: this.#children(state).map((c) => formatChildRef(c, state.namespace)),
        ready: readyOf(cr),
        synced: conditionStateOf(cr, ConditionType.Synced),
        status: cr == null ? undefined : structuredClone(statusOf(cr)),
      };
    });
  }
}

function isCr(write: ClusterWrite, state: CrState): boolean {
  return (
    write.ref.apiVersion === state.ref.apiVersion &&
    write.ref.kind === state.ref.kind &&
    write.ref.name === state.ref.name &&
    (write.ref.namespace ?? '') === (state.ref.namespace ?? '')
  );
}

function refOfObject(object: KubeObject): ObjectRef {
  const namespace = object.metadata.namespace;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name ?? '',
    ...(namespace == null ? {} : { namespace }),
  };
}

function statusOf(cr: KubeObject | undefined): Json {
  return isMap(cr?.['status']) ? (cr['status'] as Json) : {};
}

function readyOf(cr: KubeObject | undefined): ReadyState | undefined {
  return conditionStateOf(cr, ConditionType.Ready);
}

function conditionStateOf(cr: KubeObject | undefined, type: string): ReadyState | undefined {
  const conditions = statusOf(cr)['conditions'];
  const condition = Array.isArray(conditions)
    ? (conditions as Json[]).find((c) => c['type'] === type)
    : undefined;
  return condition == null
    ? undefined
    : {
        status: String(condition['status']),
        reason: String(condition['reason']),
        message: String(condition['message'] ?? ''),
      };
}

const HIDDEN_STATUS_KEYS = new Set(['conditions', 'inventory']);

/** diffStatus lists changed status leaves, without conditions and inventory, and without provider specs. */
/** rollbackNote says what the run of a rolled-back CR did (docs/reference/katalog.md §20.4). */
function rollbackNote(how: NonNullable<OfflineRun['rolledBack']>): string {
  const what = {
    onRollback: 'the onRollback children are applied over .previous',
    'previous-spec': 'the entry’s templates are applied with the previous spec',
    held: 'nothing is applied',
  }[how];
  return `rollback: the CR is rolled back (Ready=False RolledBack); ${what} until its spec changes`;
}

/**
 * timingNotes says when the runtime would reconcile the CR next (docs/reference/katalog.md §20): the
 * entry's `requeue` after a success, the backoff of the n-th retry after a retryable failure, or
 * that the retries are exhausted. `record` keeps the failure count.
 */
function timingNotes(
  run: OfflineRun,
  failures: number,
  retry: { initial: string; max: string; multiplier: number; maxAttempts: number } | undefined,
  record: (count: number) => void,
): string[] {
  if (run.error == null) {
    record(0);
    const requeueMs = run.result?.requeueMs;
    return requeueMs == null
      ? []
      : [`requeue: reconciled again in ${formatMs(requeueMs)} unless an event comes first`];
  }
  if (!run.error.retryable || retry == null) return [];
  const count = failures + 1;
  record(count);
  if (retry.maxAttempts > 0 && count >= retry.maxAttempts)
    return [
      `attempt ${count} of ${retry.maxAttempts} failed: RetriesExhausted, no retry until the spec or a watched input changes`,
    ];
  const delay = Math.min(
    parseDuration(retry.initial) * retry.multiplier ** (count - 1),
    parseDuration(retry.max),
  );
  return [
    `attempt ${count}${retry.maxAttempts > 0 ? ` of ${retry.maxAttempts}` : ''} failed: retried in ${formatMs(delay)}`,
  ];
}

/** cleanupNotes says when a CR in its terminal state is deleted (docs/reference/katalog.md §20.6), or that it was. */
function cleanupNotes(run: OfflineRun, deleteAfter: string | undefined, nowMs: number): string[] {
  if (deleteAfter == null) return [];
  if (run.events.some((e) => e.reason === 'CleanedUp'))
    return [`cleanup: deleted, its terminal state held${deleteAfter === '0s' ? '' : ` for ${deleteAfter}`}`];
  const since = run.cr?.metadata.annotations?.[OrkestraAnnotation.CleanupPendingSince];
  if (since == null) return [];
  const left = Date.parse(since) + parseDuration(deleteAfter) - nowMs;
  return [
    `cleanup: in its terminal state since ${since}; deleted in ${formatMs(Math.max(0, left))} unless it leaves it`,
  ];
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Math.round(ms) / 1000}s`;
}

function diffStatus(before: Json, after: Json): StatusChange[] {
  const a = flatten(before);
  const b = flatten(after);
  const changes: StatusChange[] = [];
  for (const [path, value] of b) {
    const old = a.get(path);
    if (!a.has(path) || JSON.stringify(old) !== JSON.stringify(value))
      changes.push({ path, before: old, after: value });
  }
  const prefixes = [...b.keys()];
  for (const [path, value] of a) {
    // An empty map that gained keys is shown by its new leaves, not as a removal.
    if (!b.has(path) && !prefixes.some((p) => p.startsWith(`${path}.`)))
      changes.push({ path, before: value, after: undefined });
  }
  return changes;
}

function flatten(status: Json): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (value: unknown, path: string): void => {
    if (isMap(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, path === '' ? k : `${path}.${k}`);
      return;
    }
    if (/^providers\.[^.]+\.[^.]+\.spec(\.|$)/.test(path)) return;
    out.set(path, value);
  };
  for (const [key, value] of Object.entries(status)) if (!HIDDEN_STATUS_KEYS.has(key)) walk(value, key);
  return out;
}
