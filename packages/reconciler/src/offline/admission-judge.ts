/**
 * The reconcile's steps 6–8 (normalize, mutation, validation; docs/reference/runtime.md §7) as one
 * pure verdict on a CR, for the operator's admission webhooks (docs/reference/katalog.md §12,
 * ADR 0089, ADR 0092): the rules CEL cannot express are judged, and the mutations schema defaults
 * cannot express planned, at admission by the very code that runs them at reconcile time, so the
 * two agree. Nothing is written and no hook runs.
 */
import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { readsCalls } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import type { Clock } from '../clock.js';
import type { ExternalCaller } from '../hooks/external.js';
import { compileExternalCalls, externalHook, runExternalCalls } from '../hooks/external/index.js';
import type { CompiledExternal } from '../hooks/external/index.js';
import type { HookServices } from '../hooks/hook-unit.js';
import { compileKatalog } from '../runtime/compile-katalog.js';
import type { CompiledCrd } from '../runtime/compile-katalog.js';
import { conditionsOptions } from '../runtime/conditions.js';
import { normalizeCr, planMutation, validateCr } from '../runtime/stages/admission.js';
import { initialContext } from '../runtime/stages/hooks.js';
import { mergePatch } from './memory-cluster.js';

/** AdmissionVerdict is what the reconcile would say of a CR: messages of failed deny and warn rules. */
export interface AdmissionVerdict {
  readonly denied: readonly string[];
  readonly warnings: readonly string[];
}

/** JudgeOptions are one verdict's inputs besides the CR. */
export interface JudgeOptions {
  /** Indexes in the entry's `validation.rules` to judge; default all. */
  readonly rules?: ReadonlySet<number>;
  /** The other CRs of the entry, for `unique`; default none. */
  readonly others?: () => readonly KubeObject[];
}

/**
 * JudgeCalls makes the entry's `validation.external` calls at admission (ADR 0093): the caller
 * whose address guard, Secrets and protocols the reconcile's calls use, and the signal that bounds
 * them (well under the webhook's timeout).
 */
export interface JudgeCalls {
  readonly caller: Pick<ExternalCaller, 'runAll'>;
  readonly signal: AbortSignal;
}

/** AdmissionJudge judges CRs of a Katalog's entries. */
export interface AdmissionJudge {
  /** judge returns the verdict on `cr` of entry `entry` (its name under `spec.crds`); undefined for an unknown or disabled entry. */
  judge(entry: string, cr: KubeObject, options?: JudgeOptions): AdmissionVerdict | undefined;
  /**
   * judgeWithCalls is judge after the entry's `validation.external` calls, made with `calls` as
   * step 8 makes them (`runExternalCalls`), their results the rules' `external`. A failed call
   * without `continueOnError` throws the reconcile's ExternalCallFailed.
   */
  judgeWithCalls(
    entry: string,
    cr: KubeObject,
    calls: JudgeCalls,
    options?: JudgeOptions,
  ): Promise<AdmissionVerdict | undefined>;
  /**
   * mutate returns what step 7 writes into `cr`'s spec (a merge patch of `spec`), with the rules of
   * `rules` (indexes in `mutation.rules`; default all), repeated on its own result as the
   * runtime's next reconciles repeat it (a value renders from the spec before the step, so a rule
   * reading a field an earlier rule sets takes a second pass), until nothing changes, at most
   * MUTATION_PASSES times; undefined when nothing changes or the entry is unknown. A value that
   * cannot be converted to its `valueType` throws the reconcile's TemplateError.
   */
  mutate(
    entry: string,
    cr: KubeObject,
    options?: { readonly rules?: ReadonlySet<number> },
  ): Readonly<Record<string, unknown>> | undefined;
  /**
   * mutateWithCalls is mutate after the entry's `mutation.external` calls (ADR 0112), made once
   * with `calls` on the normalized CR as step 8 makes its own (`runExternalCalls`), their results
   * the rules' `external`. A failed call without `continueOnError` throws ExternalCallFailed.
   */
  mutateWithCalls(
    entry: string,
    cr: KubeObject,
    calls: JudgeCalls,
    options?: { readonly rules?: ReadonlySet<number> },
  ): Promise<Readonly<Record<string, unknown>> | undefined>;
}

/** MUTATION_PASSES bounds the passes of step 7 at admission: rules that keep changing what they set (a clock, each other) stop there. */
const MUTATION_PASSES = 4;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value != null && typeof value === 'object' && !Array.isArray(value);

/** mergeDiff is the merge patch (RFC 7386) that turns `before` into `after`: null for a removed member, lists whole. */
function mergeDiff(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const set = (key: string, value: unknown): void => {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const [key, value] of Object.entries(after)) {
    const old = Object.hasOwn(before, key) ? before[key] : undefined;
    if (isRecord(value) && isRecord(old)) {
      const inner = mergeDiff(old, value);
      if (Object.keys(inner).length > 0) set(key, inner);
    } else if (!Object.hasOwn(before, key) || JSON.stringify(old) !== JSON.stringify(value)) set(key, value);
  }
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) set(key, null);
  return out;
}

/**
 * createAdmissionJudge compiles the Katalog once (a TemplateError for a bad template) and judges
 * with the clock given (default the system's).
 *
 * @example
 * const judge = createAdmissionJudge(katalog);
 * judge.judge('website', cr, { rules: new Set([2]) })?.denied;
 */
export function createAdmissionJudge(
  katalog: Katalog,
  options: { readonly clock?: Pick<Clock, 'now'> } = {},
): AdmissionJudge {
  const clock = options.clock ?? { now: () => Date.now() };
  const engine = createTemplateEngine({ clock: { now: () => clock.now() } });
  const compiled = compileKatalog(katalog, { engine });
  const conditions = conditionsOptions(engine, clock);
  const externals = new Map<string, readonly CompiledExternal[]>();
  const mutationExternals = new Map<string, readonly CompiledExternal[]>();
  /** The mutation rules the validating judge's step 7 applies: those reading no `mutation.external` answer, which it has not (ADR 0114). */
  const withoutCalls = new Map<string, ReadonlySet<number>>();
  for (const [name, crd] of compiled.crds) {
    const mutation = katalog.spec.crds[name]?.mutation;
    if ((mutation?.external.length ?? 0) > 0)
      withoutCalls.set(
        name,
        new Set(
          (mutation?.rules ?? []).flatMap((rule, i) =>
            readsCalls(rule, mutation?.external).length > 0 ? [] : [i],
          ),
        ),
      );
    const calls = katalog.spec.crds[name]?.validation?.external ?? [];
    // At admission every call is made, those marked `fires.reconcile: false` too (ADR 0104).
    externals.set(
      name,
      compileExternalCalls(calls, `${crd.katalogPath}.validation.external`, engine, 'admission'),
    );
    const mutationCalls = katalog.spec.crds[name]?.mutation?.external ?? [];
    mutationExternals.set(
      name,
      compileExternalCalls(mutationCalls, `${crd.katalogPath}.mutation.external`, engine, 'admission'),
    );
  }
  /** Makes `declared` on `view` with `calls` (only what runExternalCalls reads of the hook services: the caller and the gate options). */
  const callAll = async (
    crd: CompiledCrd,
    view: KubeObject,
    declared: readonly CompiledExternal[],
    calls: JudgeCalls,
  ): Promise<Record<string, unknown>> => {
    const services = { external: calls.caller, conditions } as unknown as HookServices;
    const context = initialContext(view);
    return (await runExternalCalls(
      services,
      declared,
      { crd, cr: view, context, signal: calls.signal },
      {},
    )) as Record<string, unknown>;
  };
  /** Step 7 at admission, repeated on its own result; the merge patch of `spec` it makes. */
  const mutated = (
    crd: CompiledCrd,
    cr: KubeObject,
    rules: ReadonlySet<number> | undefined,
    external: Readonly<Record<string, unknown>> | undefined,
  ): Readonly<Record<string, unknown>> | undefined => {
    let current = cr;
    for (let pass = 0; pass < MUTATION_PASSES; pass++) {
      const plan = planMutation(crd, normalizeCr(crd, current), conditions, rules, {
        at: 'admission',
        ...(external == null ? {} : { external }),
      });
      if (plan == null) break;
      current = mergePatch(current, { spec: plan.changes }) as KubeObject;
    }
    if (current === cr) return undefined;
    const changes = mergeDiff(
      isRecord(cr['spec']) ? cr['spec'] : {},
      isRecord(current['spec']) ? current['spec'] : {},
    );
    return Object.keys(changes).length === 0 ? undefined : changes;
  };
  /**
   * Steps 6 and 7: the CR as step 8 sees it. The rules reading a `mutation.external` answer are left
   * out: the object judged already carries what the mutating webhook set with the answers.
   */
  const viewOf = (crd: CompiledCrd, cr: KubeObject): KubeObject => {
    const view = normalizeCr(crd, cr);
    const plan = planMutation(crd, view, conditions, withoutCalls.get(crd.name));
    return plan == null ? view : normalizeCr(crd, mergePatch(cr, { spec: plan.changes }) as KubeObject);
  };
  const verdict = (
    crd: CompiledCrd,
    view: KubeObject,
    context: Record<string, unknown>,
    judgeOptions: JudgeOptions,
  ): AdmissionVerdict => {
    const outcome = validateCr(
      crd,
      view,
      conditions,
      judgeOptions.others ?? (() => []),
      context,
      judgeOptions.rules,
      'admission',
    );
    return { denied: outcome.denied, warnings: outcome.warnings ?? [] };
  };
  return {
    judge(entry, cr, judgeOptions = {}) {
      const crd = compiled.crds.get(entry);
      if (crd == null) return undefined;
      const view = viewOf(crd, cr);
      return verdict(crd, view, initialContext(view), judgeOptions);
    },
    async judgeWithCalls(entry, cr, calls, judgeOptions = {}) {
      const crd = compiled.crds.get(entry);
      if (crd == null) return undefined;
      const view = viewOf(crd, cr);
      const context = initialContext(view);
      const declared = externals.get(entry) ?? [];
      if (declared.length > 0) context[externalHook.key] = await callAll(crd, view, declared, calls);
      return verdict(crd, view, context, judgeOptions);
    },
    mutate(entry, cr, mutateOptions = {}) {
      const crd = compiled.crds.get(entry);
      if (crd == null) return undefined;
      return mutated(crd, cr, mutateOptions.rules, undefined);
    },
    async mutateWithCalls(entry, cr, calls, mutateOptions = {}) {
      const crd = compiled.crds.get(entry);
      if (crd == null) return undefined;
      const declared = mutationExternals.get(entry) ?? [];
      const external =
        declared.length === 0 ? undefined : await callAll(crd, normalizeCr(crd, cr), declared, calls);
      return mutated(crd, cr, mutateOptions.rules, external);
    },
  };
}
