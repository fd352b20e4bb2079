/**
 * The writes of the admission stages (docs/reference/runtime.md §7 steps 5, 7 and 8): the finalizer
 * merge patch, the mutation merge patch and the validation verdict reported to the observer. The
 * decisions themselves are the pure functions of admission.ts and write-plan.ts.
 */
import { refOf } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import { ConditionReason, OrkestraError, OrkestraFinalizer } from '@orkestra/types';
import { formatReasonMessage } from '../../reason-message.js';
import type { CompiledCrd } from '../compile-katalog.js';
import type { FinalizerCleanup } from '../write-plan.js';
import { normalizeCr, planMutation, validateCr, validationError } from './admission.js';
import { crWritten, errorMessage } from './run-state.js';
import type { RunState, StageServices } from './run-state.js';

/** cleanupOf is what an entry cleans up at deletion besides its owned children (ADR 0011, write-plan.ts). */
export function cleanupOf(crd: CompiledCrd): FinalizerCleanup {
  return {
    extraFinalizers: crd.extraFinalizers,
    // Module hooks and a module reconciler may have an `onDelete` step (ADR 0099, ADR 0109): the
    // export is only known once loaded, so their finalizer lands before any child, as `onDelete`'s.
    hasOnDelete:
      crd.entry.operatorBox.onDelete != null ||
      crd.entry.operatorBox.hooks.length > 0 ||
      crd.entry.operatorBox.remote?.module != null,
    hasProviders: crd.hooks.providers.length > 0,
  };
}

/** finalizerMayWait: the entry cleans up nothing but its owned children, so its finalizer may wait for the desired set (ADR 0011). */
export function finalizerMayWait(crd: CompiledCrd): boolean {
  const cleanup = cleanupOf(crd);
  return cleanup.extraFinalizers.length === 0 && !cleanup.hasOnDelete && !cleanup.hasProviders;
}

/** missingFinalizers are ours (and the entry's extra ones) that the CR does not list yet. */
export function missingFinalizers(crd: CompiledCrd, cr: KubeObject): string[] {
  const wanted = [OrkestraFinalizer.Finalizer, ...crd.extraFinalizers];
  const current = (cr.metadata['finalizers'] as string[] | undefined) ?? [];
  return wanted.filter((f) => !current.includes(f));
}

/** ensureFinalizers is step 5: adds the missing finalizers with the cached resource version and returns the written CR. */
export async function ensureFinalizers(
  services: StageServices,
  cr: KubeObject,
  state: RunState,
): Promise<KubeObject> {
  const current = (cr.metadata['finalizers'] as string[] | undefined) ?? [];
  const missing = missingFinalizers(services.crd, cr);
  if (missing.length === 0) return cr;
  try {
    const patched = await services.client.mergePatch(refOf(cr), {
      metadata: { finalizers: [...current, ...missing], resourceVersion: cr.metadata.resourceVersion },
    });
    services.primary.upsertFromWrite(patched);
    crWritten(state);
    return structuredClone(patched);
  } catch (error) {
    const katalogPath = services.crd.katalogPath;
    throw new OrkestraError(
      formatReasonMessage(katalogPath, `adding finalizers ${missing.join(', ')}: ${errorMessage(error)}`),
      { code: ConditionReason.FinalizerFailed, katalogPath, cause: error },
    );
  }
}

/**
 * mutate is step 7: the planned spec changes, written as one merge patch with the cached resource
 * version; the rules read `external`, the answers of the `mutation` hook phase (ADR 0114).
 */
export async function mutate(
  services: StageServices,
  cr: KubeObject,
  view: KubeObject,
  state: RunState,
  external?: Readonly<Record<string, unknown>>,
): Promise<{ cr: KubeObject; view: KubeObject }> {
  const plan = planMutation(services.crd, view, services.conditions, undefined, {
    at: 'reconcile',
    external,
  });
  if (plan == null) return { cr, view };
  try {
    const patched = await services.client.mergePatch(refOf(cr), {
      metadata: { resourceVersion: cr.metadata.resourceVersion },
      spec: plan.changes,
    });
    services.primary.upsertFromWrite(patched);
    crWritten(state);
    const next = structuredClone(patched);
    return { cr: next, view: normalizeCr(services.crd, next) };
  } catch (error) {
    throw new OrkestraError(
      formatReasonMessage(services.crd.katalogPath, `mutation patch: ${errorMessage(error)}`),
      {
        code: ConditionReason.MutationFailed,
        katalogPath: `${services.crd.katalogPath}.mutation`,
        cause: error,
      },
    );
  }
}

/** validate is step 8: returns the warn-rule messages (undefined without warn rules); deny violations throw ValidationFailed. */
export function validate(
  services: StageServices,
  view: KubeObject,
  context?: TemplateContext,
): string[] | undefined {
  const crd = services.crd;
  if (crd.validation.length === 0) return undefined;
  const outcome = validateCr(crd, view, services.conditions, () => services.primary.list(), context);
  const warned = outcome.warnings ?? [];
  services.observer.validation(
    crd.name,
    outcome.denied.length > 0 ? 'denied' : warned.length > 0 ? 'warned' : 'passed',
  );
  if (outcome.denied.length > 0) throw validationError(crd, outcome.denied);
  return outcome.warnings;
}
