/**
 * The `ork simulate` driver: one operator, one CR, the offline engine's in-memory cluster. Each
 * scenario step changes the cluster (a CR applied or updated, a child's observed state, new hook
 * results) and then lets the real pipeline (@orkestra/reconciler/offline) run as the operator
 * would: reconciles until one writes nothing, or the deletion path until the finalizer is gone.
 * The report is read from the cluster's write log; nothing here re-implements a pipeline step.
 */
import { ConditionType } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { createTemplateEngine } from '@orkestra/template';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { OfflineEngine, mergePatch, uidOf } from '@orkestra/reconciler/offline';
import type { ClusterWrite, OfflineResults, OfflineRun } from '@orkestra/reconciler/offline';
import { checkCustomResource } from '../cr-input.js';
import type { CustomResource } from '../cr-input.js';
import { createSeededRandom } from '../../process/seeded-random.js';
import { formatChildRef, normalizeChildRef } from './cluster-model.js';
import { ScenarioError } from './scenario.js';
import type { ContextPatch, ScenarioStep } from './scenario.js';

type Json = Record<string, unknown>;

const isMap = (value: unknown): value is Json =>
  value != null && typeof value === 'object' && !Array.isArray(value);

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
  readonly notes: readonly string[];
}

/** SimulatorOptions configures a Simulator. */
export interface SimulatorOptions {
  readonly katalog: Katalog;
  /** The clock at the first step; steps move it with `advance`. */
  readonly now: Date;
}

interface CrState {
  readonly ref: ObjectRef;
  readonly engine: OfflineEngine;
  readonly namespace: string | undefined;
  readonly label: string;
}

interface WorkingContext {
  cross: Json;
  git: Json | undefined;
  external: Json;
  docker: Json | undefined;
  providers: Record<string, Json>;
}

/**
 * Simulator holds the offline engine of one CR and runs scenario steps against it. Steps that
 * cannot be taken (an update before any CR, an observed child that does not exist) throw a
 * ScenarioError naming the step's position.
 *
 * @example
 * const simulator = new Simulator({ katalog, now: new Date('2026-01-01T00:00:00Z') });
 * for (const step of scenario.steps) console.log((await simulator.run(step)).applies);
 */
export class Simulator {
  readonly #katalog: Katalog;
  #nowMs: number;
  #state: CrState | undefined;
  readonly #clock = {
    now: (): number => this.#nowMs,
    setTimeout: (): object => ({}),
    clearTimeout: (): void => undefined,
  };
  readonly #context: WorkingContext = {
    cross: {},
    git: undefined,
    external: {},
    docker: undefined,
    providers: {},
  };

  constructor(options: SimulatorOptions) {
    this.#katalog = options.katalog;
    this.#nowMs = options.now.getTime();
  }

  /** run applies one step to the cluster, lets the engine settle, and returns the step's report. */
  async run(step: ScenarioStep): Promise<StepReport> {
    if (step.advanceMs != null) this.#nowMs += step.advanceMs;
    if (step.context != null) this.#patchContext(step.context);
    const notes: string[] = [];
    let action = step.context == null ? 'resync' : 'context';
    if (step.apply != null) {
      action = `apply ${step.apply.source}`;
      this.#apply(step, step.apply.cr, notes);
    } else if (step.update != null) {
      action = 'update';
      const state = this.#requireCr(step, 'update');
      const current = state.engine.cluster.get(state.ref);
      this.#checked(step, mergePatch(current, step.update), 'the CR after this update');
      state.engine.cluster.observe(state.ref, step.update as Json);
    } else if (step.observe != null) {
      action = `observe ${step.observe.map((o) => o.ref).join(', ')}`;
      for (const change of step.observe) this.#observe(step, change.ref, change.patch, change.position);
    } else if (step.delete === true) {
      return this.#delete(step);
    }
    const state = this.#state;
    if (state == null) {
      notes.push('no CR yet: nothing to reconcile');
      return this.#report(step, action, { notes });
    }
    return this.#reconcile(step, state, action, notes);
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
    let state = this.#state;
    if (
      state != null &&
      (state.ref.kind !== ref.kind || state.ref.name !== name || state.namespace !== namespace)
    ) {
      throw new ScenarioError(
        step.position,
        `a scenario drives one CR; ${input.kind} ${namespace == null ? '' : `${namespace}/`}${name} is not the CR of the earlier steps`,
      );
    }
    const uid = input.metadata.uid ?? uidOf(`${entryName}/${namespace ?? ''}/${name}`);
    if (state == null) {
      const engine = new OfflineEngine({
        katalog: this.#katalog,
        clock: this.#clock,
        engine: createTemplateEngine({ random: createSeededRandom(uid), clock: this.#clock }),
      });
      state = {
        ref,
        engine,
        namespace,
        label: `${input.kind} ${namespace == null ? '' : `${namespace}/`}${name}`,
      };
      this.#state = state;
    }
    const before = state.engine.cluster.get(ref);
    const { status: _status, ...body } = input;
    const stored = state.engine.cluster.put({
      ...structuredClone(body),
      metadata: {
        ...structuredClone(input.metadata),
        ...(namespace == null ? {} : { namespace }),
        uid,
      },
    } as KubeObject);
    if (before != null && before.metadata['generation'] === stored.metadata['generation'])
      notes.push('the spec did not change (generation unchanged)');
  }

  #observe(step: ScenarioStep, ref: string, patch: Json | null, position: ScenarioStep['position']): void {
    const state = this.#state;
    const crNamespace = state?.namespace;
    const wanted = normalizeChildRef(ref, crNamespace);
    const children = state == null ? [] : this.#children(state);
    const child = children.find((c) => formatChildRef(c, crNamespace) === wanted);
    if (state == null || child == null) {
      const known = children.map((c) => formatChildRef(c, crNamespace));
      throw new ScenarioError(
        position,
        `step ${step.number} (${step.name}): observe ${ref}: no such child in the simulated cluster (children: ${known.join(', ') || 'none'})`,
      );
    }
    state.engine.cluster.observe(refOfObject(child), patch);
  }

  #patchContext(patch: ContextPatch): void {
    const ctx = this.#context;
    const named = (target: Json, items: Readonly<Record<string, Json | null>> | null | undefined): void => {
      for (const [name, value] of Object.entries(items ?? {})) {
        if (value == null) delete target[name];
        else target[name] = structuredClone(value);
      }
    };
    if ('cross' in patch) named(ctx.cross, patch.cross);
    if ('external' in patch) named(ctx.external, patch.external);
    if ('git' in patch) ctx.git = patch.git == null ? undefined : structuredClone(patch.git);
    if ('docker' in patch) ctx.docker = patch.docker == null ? undefined : structuredClone(patch.docker);
    for (const [provider, declarations] of Object.entries(patch.providers ?? {})) {
      const records = ctx.providers[provider] ?? {};
      named(records, declarations);
      ctx.providers[provider] = records;
    }
  }

  #results(): OfflineResults {
    const ctx = this.#context;
    return structuredClone({
      cross: ctx.cross,
      external: ctx.external as OfflineResults['external'] & object,
      providers: ctx.providers as OfflineResults['providers'] & object,
      ...(ctx.git == null ? {} : { git: ctx.git }),
      ...(ctx.docker == null ? {} : { docker: ctx.docker }),
    });
  }

  // ---- reconcile ------------------------------------------------------------------------------

  /** #reconcile runs the engine as the operator's own-write re-queue would: until a run writes nothing or fails. */
  async #reconcile(step: ScenarioStep, state: CrState, action: string, notes: string[]): Promise<StepReport> {
    state.engine.results = this.#results();
    const before = statusOf(state.engine.cluster.get(state.ref));
    const generation = state.engine.cluster.get(state.ref)?.metadata['generation'];
    const writes: ClusterWrite[] = [];
    for (let i = 0; i < MAX_RUNS; i++) {
      const run = await state.engine.reconcile(state.ref);
      writes.push(...run.writes);
      notes.push(...run.notes);
      if (run.writes.length === 0 || run.error != null) break;
    }
    const after = state.engine.cluster.get(state.ref);
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
          .map((w) => formatRef(w.ref, state.namespace)),
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
   * jobs are assumed to finish: a Job the path created is marked Complete before the next run.
   */
  async #delete(step: ScenarioStep): Promise<StepReport> {
    const state = this.#requireCr(step, 'delete');
    const cluster = state.engine.cluster;
    const notes: string[] = [];
    const order: string[] = [];
    const generation = Number(cluster.get(state.ref)?.metadata['generation'] ?? 1);
    const hadFinalizer =
      ((cluster.get(state.ref)?.metadata['finalizers'] as unknown[] | undefined) ?? []).length > 0;
    state.engine.results = this.#results();
    const start = cluster.writes.length;
    cluster.requestDelete(state.ref);
    let ready: ReadyState | undefined;
    let deletingShown = false;
    const recordWrite = (write: ClusterWrite, run: OfflineRun | undefined): void => {
      const cr = isCr(write, state);
      const ref = formatRef(write.ref, state.namespace);
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
    if (!hadFinalizer) {
      notes.push(
        'the CR never got the orkestra.konductor.io/finalizer finalizer (its namespace is blocked): Kubernetes removes it at once',
      );
      for (const write of cluster.writes.slice(start)) if (!isCr(write, state)) recordWrite(write, undefined);
    } else {
      for (let i = 0; i < MAX_RUNS && cluster.get(state.ref) != null; i++) {
        const run = await state.engine.reconcile(state.ref);
        record(run);
        if (run.writes.length === 0 && run.providerCalls.length === 0 && run.error != null) break;
        for (const write of run.writes) {
          if (write.verb === 'create' && write.ref.kind === 'Job' && cluster.get(write.ref) != null)
            cluster.observe(write.ref, { status: { conditions: [{ type: 'Complete', status: 'True' }] } });
        }
      }
      if (cluster.get(state.ref) != null)
        notes.push(`the CR is still there after ${MAX_RUNS} runs of the deletion path`);
    }
    this.#state = undefined;
    return {
      ...this.#report(step, 'delete', { notes }),
      cr: state.label,
      crNamespace: state.namespace,
      generation,
      ready,
      deletionOrder: order,
      children: [],
    };
  }

  // ---- report ---------------------------------------------------------------------------------

  #children(state: CrState): KubeObject[] {
    const uid = state.engine.cluster.get(state.ref)?.metadata.uid ?? '';
    return [...state.engine.cluster.childStore.listAllOwned(uid)];
  }

  #report(
    step: ScenarioStep,
    action: string,
    parts: Partial<
      Pick<StepReport, 'reconciled' | 'creates' | 'applies' | 'prunes' | 'statusChanges' | 'notes'>
    >,
  ): StepReport {
    const state = this.#state;
    const cr = state?.engine.cluster.get(state.ref);
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
      notes: parts.notes ?? [],
    };
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

function formatRef(ref: ObjectRef, crNamespace: string | undefined): string {
  return ref.namespace == null || ref.namespace === crNamespace
    ? `${ref.kind}/${ref.name}`
    : `${ref.kind}/${ref.namespace}/${ref.name}`;
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
