/**
 * The `ork simulate` engine: one operator, one CR, an in-memory cluster. Each scenario step
 * changes the model (a CR applied or updated, a child's observed state, new hook results) and runs
 * what the runtime would run next: a reconcile (render-cr.ts, then create/apply/prune against the
 * model, docs/reference/runtime.md §9) or the deletion path (docs/reference/runtime.md §10.2).
 */
import { ConditionReason, ConditionType, OrkestraFinalizer, evaluateConditions } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { createTemplateEngine } from '@orkestra/template';
import type { TemplateEngine } from '@orkestra/template';
import { compareToCache, kindFor, kinds } from '@orkestra/registry';
import type { KubeObject, Owner } from '@orkestra/registry';
import { buildChildrenContext, compileKatalog } from '@orkestra/reconciler';
import type { ChildState, CompiledCrd } from '@orkestra/reconciler';
import { checkCustomResource } from '../cr-input.js';
import type { CustomResource } from '../cr-input.js';
import { fakeUid, findEntry, renderCr } from '../render-cr.js';
import type { RenderContext, RenderedCr } from '../render-cr.js';
import { createSeededRandom } from '../seeded-random.js';
import {
  childId,
  formatChildRef,
  inventoryItemOf,
  jobCompleted,
  listKeyOf,
  mergePatch,
  normalizeChildRef,
  waveOf,
} from './cluster-model.js';
import type { ModelChild } from './cluster-model.js';
import { ScenarioError } from './scenario.js';
import type { ContextPatch, ScenarioStep } from './scenario.js';

type Json = Record<string, unknown>;

const isMap = (value: unknown): value is Json =>
  value != null && typeof value === 'object' && !Array.isArray(value);

/** ReadyState is the CR's Ready condition after a step. */
interface ReadyState {
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
  /** Children in the model after the step. */
  readonly children: readonly string[];
  readonly ready: ReadyState | undefined;
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
  cr: CustomResource;
  entryName: string;
  uid: string;
  namespace: string | undefined;
  finalizer: boolean;
}

interface WorkingContext {
  cross: Json;
  git: Json | undefined;
  external: Json;
  docker: Json | undefined;
  providers: Record<string, Json>;
}

/**
 * Simulator holds the model of the cluster and runs scenario steps against it. Steps that the
 * model cannot take (an update before any CR, an observed child that does not exist) throw a
 * ScenarioError naming the step's position.
 *
 * @example
 * const simulator = new Simulator({ katalog, now: new Date('2026-01-01T00:00:00Z') });
 * for (const step of scenario.steps) console.log(simulator.run(step).applies);
 */
export class Simulator {
  readonly #katalog: Katalog;
  #nowMs: number;
  #state: CrState | undefined;
  readonly #children = new Map<string, ModelChild>();
  /** Completed Jobs that were deleted: kept in the inventory, never created again (docs/reference/katalog.md §5.2). */
  readonly #finishedJobs = new Map<string, ModelChild>();
  readonly #context: WorkingContext = {
    cross: {},
    git: undefined,
    external: {},
    docker: undefined,
    providers: {},
  };
  #compiled: Map<string, CompiledCrd> | undefined;
  /** Render notes already reported: each is printed once, at the first step that produces it. */
  readonly #seenNotes = new Set<string>();

  constructor(options: SimulatorOptions) {
    this.#katalog = options.katalog;
    this.#nowMs = options.now.getTime();
  }

  /** run applies one step to the model and returns its report. */
  run(step: ScenarioStep): StepReport {
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
      const before = JSON.stringify(state.cr['spec'] ?? {});
      state.cr = this.#checked(step, mergePatch(state.cr, step.update), 'the CR after this update');
      if (JSON.stringify(state.cr['spec'] ?? {}) !== before) this.#bumpGeneration(state);
    } else if (step.observe != null) {
      action = `observe ${step.observe.map((o) => o.ref).join(', ')}`;
      for (const change of step.observe) this.#observe(step, change.ref, change.patch, change.position);
    } else if (step.delete === true) {
      return this.#delete(step);
    }
    if (this.#state == null) {
      notes.push('no CR yet: nothing to reconcile');
      return this.#report(step, action, { notes });
    }
    return this.#reconcile(step, action, notes);
  }

  // ---- events ---------------------------------------------------------------------------------

  /** #checked is checkCustomResource for a CR the scenario changed, failing at the step. */
  #checked(step: ScenarioStep, value: unknown, source: string): CustomResource {
    try {
      return checkCustomResource(value, source);
    } catch (error) {
      throw new ScenarioError(step.position, error instanceof Error ? error.message : String(error));
    }
  }

  #apply(step: ScenarioStep, input: CustomResource, notes: string[]): void {
    const found = findEntry(this.#katalog, input.apiVersion, input.kind);
    if (found == null) {
      throw new ScenarioError(
        step.position,
        `no CRD entry of Katalog ${this.#katalog.metadata.name} serves ${input.apiVersion} ${input.kind}`,
      );
    }
    const [entryName, entry] = found;
    const metadata = input.metadata;
    const name = metadata.name;
    const namespace = entry.namespaced ? (metadata.namespace ?? 'default') : undefined;
    const state = this.#state;
    if (state != null) {
      const meta = state.cr['metadata'] as Json;
      if (state.entryName !== entryName || meta['name'] !== name || meta['namespace'] !== namespace) {
        throw new ScenarioError(
          step.position,
          `a scenario drives one CR; ${input.kind} ${namespace == null ? '' : `${namespace}/`}${name} is not the CR of the earlier steps`,
        );
      }
      const before = JSON.stringify(state.cr['spec'] ?? {});
      state.cr = {
        ...structuredClone(input),
        metadata: {
          ...structuredClone(metadata),
          name,
          ...(namespace == null ? {} : { namespace }),
          uid: state.uid,
          generation: meta['generation'],
        },
        status: state.cr['status'] ?? {},
      };
      if (JSON.stringify(state.cr['spec'] ?? {}) !== before) this.#bumpGeneration(state);
      else notes.push('the spec did not change (generation unchanged)');
      return;
    }
    const uid = metadata.uid ?? fakeUid(entryName, namespace, name);
    this.#state = {
      entryName,
      uid,
      namespace,
      finalizer: false,
      cr: {
        ...structuredClone(input),
        metadata: {
          ...structuredClone(metadata),
          name,
          ...(namespace == null ? {} : { namespace }),
          uid,
          generation: 1,
        },
        spec: isMap(input['spec']) ? structuredClone(input['spec']) : {},
        status: {},
      },
    };
  }

  #observe(step: ScenarioStep, ref: string, patch: Json | null, position: ScenarioStep['position']): void {
    const crNamespace = this.#state?.namespace;
    const wanted = normalizeChildRef(ref, crNamespace);
    const child = [...this.#children.values()].find((c) => formatChildRef(c.object, crNamespace) === wanted);
    if (child == null) {
      const known = [...this.#children.values()].map((c) => formatChildRef(c.object, crNamespace));
      throw new ScenarioError(
        position,
        `step ${step.number} (${step.name}): observe ${ref}: no such child in the simulated cluster (children: ${known.join(', ') || 'none'})`,
      );
    }
    if (patch == null) {
      this.#children.delete(child.id);
      if (child.completed) this.#finishedJobs.set(child.id, child);
      return;
    }
    child.object = mergePatch(child.object, patch) as KubeObject;
    if (child.object.kind === 'Job' && jobCompleted(child.object)) child.completed = true;
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

  // ---- reconcile (docs/reference/runtime.md §7, §9) ----------------------------------------------------------

  #reconcile(step: ScenarioStep, action: string, notes: string[]): StepReport {
    const state = this.#state as CrState;
    const first = this.#render(state, undefined);
    if (first.failedStage !== 'namespace') state.finalizer = true;
    if (first.mutatedSpec != null) {
      state.cr = { ...state.cr, spec: first.mutatedSpec };
      this.#bumpGeneration(state);
      notes.push(
        `mutation rules changed the spec: the runtime merge-patches it (generation ${String((state.cr['metadata'] as Json)['generation'])})`,
      );
    }
    const writes =
      first.failure == null ||
      first.failedStage === 'providers' ||
      (first.failedStage === 'children' && first.failure.reason === ConditionReason.NamespaceRestricted);
    const prunes =
      first.failure == null || first.failedStage === 'providers' ? this.#candidates(first) : undefined;
    const creates: string[] = [];
    const applies: string[] = [];
    if (writes) {
      for (const desired of first.children) {
        const id = childId(desired.manifest);
        const existing = this.#children.get(id);
        const ref = formatChildRef(desired.manifest, state.namespace);
        const record = {
          mode: desired.mode,
          source: desired.source,
          prune: desired.prune,
        };
        if (desired.mode === 'create') {
          if (existing != null || this.#finishedJobs.has(id)) {
            if (existing != null) Object.assign(existing, record);
            continue;
          }
          this.#children.set(id, {
            id,
            object: withGeneration(desired.manifest, 1),
            ...record,
            completed: false,
          });
          creates.push(ref);
          continue;
        }
        const compared = compareToCache(
          desired.manifest,
          existing?.object,
          kindFor(listKeyOf(desired.source))?.rules,
        );
        if (compared === 'match' && existing != null) {
          Object.assign(existing, record);
          continue;
        }
        applies.push(ref);
        if (existing == null) {
          this.#children.set(id, {
            id,
            object: withGeneration(desired.manifest, 1),
            ...record,
            completed: false,
          });
          continue;
        }
        const previousGeneration = Number(existing.object.metadata['generation'] ?? 1);
        const specChanged =
          JSON.stringify(existing.object['spec']) !== JSON.stringify(desired.manifest['spec']);
        existing.object = withGeneration(
          {
            ...desired.manifest,
            ...(existing.object['status'] === undefined ? {} : { status: existing.object['status'] }),
          },
          previousGeneration + (specChanged ? 1 : 0),
        );
        Object.assign(existing, record);
      }
    }
    const pruned: string[] = [];
    for (const child of prunes ?? []) {
      this.#children.delete(child.id);
      pruned.push(formatChildRef(child.object, state.namespace));
    }

    // Status (step 17): declared fields see the children as the model now holds them.
    const childStates: ChildState[] = first.children.map((c) => ({
      listKey: listKeyOf(c.source) as ChildState['listKey'],
      object: this.#children.get(childId(c.manifest))?.object,
    }));
    const result = this.#render(state, buildChildrenContext(childStates));
    const status: Json = {
      ...result.status,
      inventory: this.#inventory(),
    };
    const before = isMap(state.cr['status']) ? (state.cr['status'] as Json) : {};
    state.cr = { ...state.cr, status };
    for (const note of result.notes) {
      if (note.startsWith('mutation rules changed the CR') || this.#seenNotes.has(note)) continue;
      this.#seenNotes.add(note);
      notes.push(note);
    }
    return this.#report(step, action, {
      reconciled: true,
      creates,
      applies,
      prunes: pruned,
      statusChanges: diffStatus(before, status),
      notes,
    });
  }

  /** #candidates returns the children pruning deletes (docs/reference/runtime.md §9.6): owned, not desired, apply mode, not Jobs, prune allowed. */
  #candidates(rendered: RenderedCr): ModelChild[] {
    const desired = new Set(rendered.children.map((c) => childId(c.manifest)));
    return [...this.#children.values()].filter(
      (c) => !desired.has(c.id) && c.mode === 'apply' && c.prune && c.object.kind !== 'Job',
    );
  }

  #inventory(): Json[] {
    const items = [...this.#children.values(), ...this.#finishedJobs.values()].map(inventoryItemOf);
    const key = (i: (typeof items)[number]): string =>
      `${i.apiVersion}/${i.kind}/${i.namespace ?? ''}/${i.name}`;
    return items.sort((a, b) => key(a).localeCompare(key(b))) as unknown as Json[];
  }

  #render(state: CrState, children: Json | undefined): RenderedCr {
    const context: RenderContext = {
      cross: this.#context.cross,
      external: this.#context.external as RenderContext['external'] & object,
      providers: this.#context.providers as RenderContext['providers'] & object,
      ...(this.#context.git == null ? {} : { git: this.#context.git }),
      ...(this.#context.docker == null ? {} : { docker: this.#context.docker }),
      ...(children == null ? {} : { children }),
    };
    // #apply checked the entry and name, so renderCr's RenderInputError cannot happen here.
    return renderCr(this.#katalog, state.cr, {
      engine: this.#engine(state),
      now: new Date(this.#nowMs),
      context,
    });
  }

  #engine(state: CrState): TemplateEngine {
    return createTemplateEngine({
      random: createSeededRandom(state.uid),
      clock: { now: () => this.#nowMs },
    });
  }

  #bumpGeneration(state: CrState): void {
    const metadata = state.cr.metadata;
    state.cr = {
      ...state.cr,
      metadata: { ...metadata, generation: Number(metadata['generation'] ?? 1) + 1 },
    };
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

  #delete(step: ScenarioStep): StepReport {
    const state = this.#requireCr(step, 'delete');
    const notes: string[] = [];
    const order: string[] = [];
    const ref = (c: ModelChild): string => formatChildRef(c.object, state.namespace);
    if (!state.finalizer) {
      notes.push(
        `the CR never got the ${OrkestraFinalizer.Finalizer} finalizer (its namespace is blocked): Kubernetes removes it at once`,
      );
    } else {
      order.push(`status Ready=False ${ConditionReason.Deleting}`);
      const crd = this.#compiledCrd(state.entryName);
      const box = crd.entry.operatorBox;
      const engine = this.#engine(state);
      const evalOptions = {
        now: () => new Date(this.#nowMs),
        renderTemplate: (source: string, ctx: Readonly<Record<string, unknown>>) =>
          engine.renderTemplate(source, ctx),
      };
      const cr = state.cr;
      const context: Json = {
        apiVersion: cr['apiVersion'],
        kind: cr['kind'],
        metadata: cr['metadata'],
        spec: cr['spec'] ?? {},
        status: cr['status'] ?? {},
      };
      const owner: Owner = {
        apiVersion: crd.apiVersion,
        kind: crd.apiTypes.kind,
        name: String((cr['metadata'] as Json)['name']),
        ...(state.namespace == null ? {} : { namespace: state.namespace }),
        uid: state.uid,
        crd: crd.name,
      };
      const onDelete = box.onDelete;
      const gate = onDelete == null || evaluateConditions(onDelete, context, evalOptions).passed;
      if (onDelete != null && !gate)
        notes.push('the onDelete gate fails: cleanup jobs and ordered groups are skipped');
      if (onDelete != null && gate) {
        for (const job of crd.onDeleteJobs) {
          const copies = job.compiled.expand(context, {
            include: (ctx, g) =>
              evaluateConditions(g as Parameters<typeof evaluateConditions>[0], ctx, evalOptions).passed,
          });
          for (const copy of copies) {
            const resolved = kinds.jobs.resolve({ entry: { ...copy.entry }, path: job.source }, owner);
            order.push(`cleanup-job ${formatChildRef(resolved.manifest, state.namespace)}`);
          }
        }
        if (crd.onDeleteJobs.length > 0)
          notes.push(
            'cleanup jobs are created without an owner reference and awaited until they finish (assumed here)',
          );
        if (onDelete.ordered) {
          for (const group of crd.onDeleteGroups) {
            if (!evaluateConditions(group.group, context, evalOptions).passed) continue;
            const members: ModelChild[] = [];
            for (const target of group.refs) {
              const id = deleteIdOf(target.listKey, target.value.render(context), owner);
              const child = id == null ? undefined : this.#children.get(id);
              if (child != null && !members.includes(child)) members.push(child);
            }
            if (members.length === 0) continue;
            order.push(
              `group ${group.group.name} (${group.group.propagation}): ${members.map(ref).join(', ')}`,
            );
            for (const m of members) this.#children.delete(m.id);
          }
        }
      }
      for (const [provider, name, retain] of providerDeletes(box.providers, cr['status'])) {
        order.push(`${retain ? 'provider-retain' : 'provider-delete'} ${provider}/${name}`);
      }
      const explicit = [...this.#children.values()]
        .filter((c) => !reachableByGc(c, state))
        .map((c, index) => ({ c, index }))
        .sort((a, b) => waveOf(b.c) - waveOf(a.c) || a.index - b.index)
        .map(({ c }) => c);
      for (const c of explicit) {
        order.push(`explicit-delete ${ref(c)}`);
        this.#children.delete(c.id);
      }
      order.push('finalizer-removed');
    }
    for (const c of this.#children.values()) order.push(`garbage-collected ${ref(c)}`);
    this.#children.clear();
    this.#finishedJobs.clear();
    const crRef = crLabel(state);
    const generation = Number((state.cr['metadata'] as Json)['generation'] ?? 1);
    this.#state = undefined;
    return {
      ...this.#report(step, 'delete', { notes }),
      cr: crRef,
      crNamespace: state.namespace,
      generation,
      ready: state.finalizer ? { status: 'False', reason: ConditionReason.Deleting, message: '' } : undefined,
      deletionOrder: order,
    };
  }

  #compiledCrd(entryName: string): CompiledCrd {
    this.#compiled ??= new Map(compileKatalog(this.#katalog).crds);
    const crd = this.#compiled.get(entryName);
    if (crd == null) throw new Error(`CRD entry ${entryName} is not enabled`);
    return crd;
  }

  // ---- report ---------------------------------------------------------------------------------

  #report(
    step: ScenarioStep,
    action: string,
    parts: Partial<
      Pick<StepReport, 'reconciled' | 'creates' | 'applies' | 'prunes' | 'statusChanges' | 'notes'>
    >,
  ): StepReport {
    const state = this.#state;
    const status = state == null ? undefined : (state.cr['status'] as Json | undefined);
    const conditions = Array.isArray(status?.['conditions']) ? (status['conditions'] as Json[]) : [];
    const ready = conditions.find((c) => c['type'] === ConditionType.Ready);
    const warning = conditions.find(
      (c) => c['type'] === ConditionType.ValidationWarning && c['status'] === 'True',
    );
    return {
      step,
      action,
      cr: state == null ? undefined : crLabel(state),
      crNamespace: state?.namespace,
      generation: state == null ? undefined : Number((state.cr['metadata'] as Json)['generation'] ?? 1),
      reconciled: parts.reconciled ?? false,
      creates: parts.creates ?? [],
      applies: parts.applies ?? [],
      prunes: parts.prunes ?? [],
      children: [...this.#children.values()].map((c) => formatChildRef(c.object, state?.namespace)),
      ready:
        ready == null
          ? undefined
          : {
              status: String(ready['status']),
              reason: String(ready['reason']),
              message: String(ready['message'] ?? ''),
            },
      warning: warning == null ? undefined : String(warning['message'] ?? ''),
      status: status == null ? undefined : structuredClone(status),
      statusChanges: parts.statusChanges ?? [],
      deletionOrder: undefined,
      notes: parts.notes ?? [],
    };
  }
}

function crLabel(state: CrState): string {
  const meta = state.cr['metadata'] as Json;
  return `${String(state.cr['kind'])} ${state.namespace == null ? '' : `${state.namespace}/`}${String(meta['name'])}`;
}

function withGeneration(manifest: KubeObject, generation: number): KubeObject {
  return { ...manifest, metadata: { ...manifest.metadata, generation } };
}

/**
 * reachableByGc tells whether Kubernetes garbage collection removes a child after the CR is gone:
 * for a namespaced CR, children in its namespace; for a cluster-scoped CR, children whose owner
 * reference names it (docs/reference/runtime.md §10.2 step 6).
 */
function reachableByGc(child: ModelChild, state: CrState): boolean {
  const ns = child.object.metadata.namespace;
  if (state.namespace != null) return ns === state.namespace;
  return child.object.metadata.ownerReferences?.some((o) => o.uid === state.uid) === true;
}

/** deleteIdOf returns the identity an onDelete group entry names (docs/reference/katalog.md §5.6), or undefined. */
function deleteIdOf(listKey: string, rendered: unknown, owner: Owner): string | undefined {
  const entry = isMap(rendered) ? rendered : {};
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  if (listKey === 'custom') {
    const metadata = isMap(entry['metadata']) ? entry['metadata'] : {};
    const name = text(metadata['name']) ?? text(entry['name']);
    const apiVersion = text(entry['apiVersion']);
    const kind = text(entry['kind']);
    if (name == null || apiVersion == null || kind == null) return undefined;
    return `${apiVersion}/${kind}/${text(metadata['namespace']) ?? text(entry['namespace']) ?? owner.namespace ?? ''}/${name}`;
  }
  const module = kindFor(listKey);
  if (module?.apiVersion == null || module.kind == null) return undefined;
  const name =
    text(entry['name']) ??
    (module.defaultNameSuffix == null ? undefined : `${owner.name}${module.defaultNameSuffix}`);
  if (name == null) return undefined;
  const namespace =
    module.namespaced === false ? '' : (text(entry['namespace']) ?? owner.namespace ?? 'default');
  return `${module.apiVersion}/${module.kind}/${namespace}/${name}`;
}

/**
 * providerDeletes lists provider declarations for the deletion path (docs/reference/runtime.md §10.2 step 5):
 * every declared one (gates ignored) and every one recorded in `status.providers`, in reverse
 * declaration order, each with whether `deletionPolicy: Retain` keeps it.
 */
function providerDeletes(
  declared: Readonly<Record<string, readonly { readonly name: string; readonly deletionPolicy?: string }[]>>,
  status: unknown,
): [string, string, boolean][] {
  const list: [string, string, boolean][] = [];
  const seen = new Set<string>();
  for (const [provider, declarations] of Object.entries(declared)) {
    for (const d of declarations) {
      list.push([provider, d.name, d.deletionPolicy === 'Retain']);
      seen.add(`${provider}/${d.name}`);
    }
  }
  const recorded = isMap(status) && isMap(status['providers']) ? status['providers'] : {};
  for (const [provider, records] of Object.entries(recorded)) {
    for (const name of Object.keys(isMap(records) ? records : {})) {
      if (!seen.has(`${provider}/${name}`)) list.push([provider, name, false]);
    }
  }
  return list.reverse();
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
