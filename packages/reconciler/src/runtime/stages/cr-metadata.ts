/**
 * The CR's own metadata (docs/reference/runtime.md §7 step 18, katalog.md §3.3): the entry's
 * `labels` and `annotations` (ADR 0004, upstream's entry labels), rendered against the CR with the
 * context of the desired set, and the annotations hooks asked for, written together as one
 * metadata merge patch after a successful reconcile. Keys are added or updated, never removed:
 * the runtime cannot tell a key it wrote from one the user wrote.
 */
import { refOf } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import { ConditionReason, TerminalError } from '@orkestra/types';
import { errorForLog } from '../log-error.js';
import type { RunContext } from '../reconcile-pipeline.js';
import { crWritten } from './run-state.js';
import type { RunState, StageServices } from './run-state.js';

const METADATA_RETRY_MS = 1000;

/** A label value as the API server accepts it: at most 63 characters, alphanumeric at both ends. */
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/**
 * renderCrMetadata renders the entry's `labels` and `annotations` into the run state. A label value
 * the API server would refuse is a `TemplateError` naming the label's Katalog path, so the CR gets
 * a status condition instead of a patch that fails on every reconcile.
 */
export function renderCrMetadata(
  services: Pick<StageServices, 'crd'>,
  context: TemplateContext,
  state: RunState,
): void {
  const compiled = services.crd.crMetadata;
  if (compiled == null) return;
  const rendered = compiled.render(context) as {
    labels?: Record<string, unknown>;
    annotations?: Record<string, unknown>;
  };
  for (const [key, value] of Object.entries(rendered.labels ?? {})) {
    const text = stringOf(value);
    if (text.length > 63 || !LABEL_VALUE.test(text))
      throw new TerminalError(
        `labels.${key} renders ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}, which is not a label value (at most 63 characters: letters, digits, '-', '_', '.', alphanumeric at both ends)`,
        { code: ConditionReason.TemplateError, katalogPath: `${services.crd.katalogPath}.labels.${key}` },
      );
    state.labels.set(key, text);
  }
  for (const [key, value] of Object.entries(rendered.annotations ?? {}))
    state.annotations.set(key, stringOf(value));
}

function stringOf(value: unknown): string {
  if (value == null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * writeCrMetadata is step 18: one metadata merge patch (with the cached resource version) of the
 * labels and annotations whose value changed; nothing when none did. A failure re-queues.
 */
export async function writeCrMetadata(
  services: StageServices,
  cr: KubeObject,
  state: RunState,
  ctx: RunContext,
): Promise<void> {
  if (state.annotations.size === 0 && state.labels.size === 0) return;
  const current = services.primary.getByName(cr.metadata.namespace, cr.metadata.name ?? '') ?? cr;
  const annotations = changed(state.annotations, current.metadata.annotations);
  const labels = changed(state.labels, current.metadata.labels);
  if (annotations == null && labels == null) return;
  try {
    const patched = await services.client.mergePatch(refOf(current), {
      metadata: {
        ...(labels == null ? {} : { labels }),
        ...(annotations == null ? {} : { annotations }),
        resourceVersion: current.metadata.resourceVersion,
      },
    });
    services.primary.upsertFromWrite(patched);
    crWritten(state);
  } catch (error) {
    ctx.logger.warn(
      {
        err: errorForLog(error),
        labels: Object.keys(labels ?? {}),
        annotations: Object.keys(annotations ?? {}),
      },
      'writing CR metadata failed; retrying',
    );
    state.requeueAt.push(services.clock.now() + METADATA_RETRY_MS);
  }
}

/** changed is the wanted keys whose value differs from the existing one, or undefined when none does. */
function changed(
  wanted: ReadonlyMap<string, string>,
  existing: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [key, value] of wanted) if (existing?.[key] !== value) out[key] = value;
  return Object.keys(out).length === 0 ? undefined : out;
}
