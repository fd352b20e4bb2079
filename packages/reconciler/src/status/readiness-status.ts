/**
 * Readiness on a CR's status (docs/reference/runtime.md §7): each desired child's readiness, recorded on its
 * inventory item with the time it entered that state, and the `Ready` condition derived from
 * `Synced` and the children.
 */
import type { ObjectRef } from '@orkestra/registry';
import type { EvaluateConditionsOptions } from '@orkestra/types';
import type { KubeObject } from '../kube-object.js';
import { childReadiness } from '../readiness/child-readiness.js';
import type { Readiness } from '../readiness/readiness.js';
import { summarizeReadiness } from '../readiness/summarize-readiness.js';
import type { ChildVerdict, ReadinessSummary } from '../readiness/summarize-readiness.js';
import type { DesiredSet } from '../runtime/desired-set.js';
import { formatRfc3339 } from '../secrets/rotation.js';
import { inventoryKey } from './inventory.js';
import type { InventoryItem } from './inventory.js';

/** WAITING is the inventory state of a child held back by `waitFor`. */
const WAITING = 'Waiting';

/** AssessReadinessInput is what {@link assessReadiness} reads. */
export interface AssessReadinessInput {
  /** The desired children; undefined when the reconcile failed before building them (no verdicts). */
  readonly desired: DesiredSet | undefined;
  /** The cached child object. */
  readonly get: (ref: ObjectRef) => KubeObject | undefined;
  /** Children held back by `waitFor`: child id → the ids they wait for. */
  readonly waiting?: ReadonlyMap<string, readonly string[]> | undefined;
  readonly conditions?: EvaluateConditionsOptions | undefined;
  /** The cached inventory, to keep `since` while a child's state does not change. */
  readonly previous: readonly InventoryItem[];
  readonly now: Date;
}

/** ReadinessAssessment is the children's verdicts, their summary, and a way to record them on the inventory. */
export interface ReadinessAssessment {
  readonly verdicts: readonly ChildVerdict[];
  readonly summary: ReadinessSummary;
  /** annotate returns the inventory with each desired child's readiness (other items unchanged). */
  annotate(items: readonly InventoryItem[]): InventoryItem[];
}

/**
 * assessReadiness computes every desired child's readiness (declaration order, onCreate first),
 * its summary, and the inventory annotation. Pure.
 */
export function assessReadiness(input: AssessReadinessInput): ReadinessAssessment {
  const children =
    input.desired == null ? [] : [...input.desired.groups.onCreate, ...input.desired.groups.onReconcile];
  const verdicts: ChildVerdict[] = [];
  const byKey = new Map<string, Readiness & { waiting: boolean }>();
  const previous = new Map(input.previous.map((item) => [inventoryKey(item), item]));
  for (const child of children) {
    const unmet = input.waiting?.get(child.id);
    const live = input.get(child.ref);
    const readiness: Readiness =
      unmet != null && unmet.length > 0
        ? { state: 'NotFound', message: `waiting for ${unmet.join(', ')} to be ready` }
        : live == null && previous.get(inventoryKey(child.ref))?.completed === true
          ? // A finished Job removed by its TTL stays done (it is not created again either).
            { state: 'Current', message: 'complete (removed after it finished)' }
          : childReadiness(live, { readyWhen: child.entry.readyWhen, conditions: input.conditions });
    verdicts.push({ kind: child.ref.kind, name: child.ref.name, readiness, waitingFor: unmet });
    byKey.set(inventoryKey(child.ref), { ...readiness, waiting: unmet != null && unmet.length > 0 });
  }
  const since = formatRfc3339(input.now);
  return {
    verdicts,
    summary: summarizeReadiness(verdicts),
    annotate: (items) =>
      items.map((item) => {
        const key = inventoryKey(item);
        const verdict = byKey.get(key);
        if (verdict == null) return item;
        const state = verdict.waiting ? WAITING : verdict.state;
        const before = previous.get(key)?.readiness;
        return {
          ...item,
          readiness: {
            state,
            ...(verdict.message === '' ? {} : { message: verdict.message }),
            since: before?.state === state ? before.since : since,
          },
        };
      }),
  };
}

/** ReadyVerdict is what the Ready condition says. */
export interface ReadyVerdict {
  readonly ready: boolean;
  readonly reason: string;
  readonly message: string;
}

/**
 * readyOutcome derives Ready from Synced (the reconcile's outcome) and the children: a failed
 * reconcile is Ready=False with its reason; with `readiness: 'reconciled'` Ready is Synced;
 * otherwise Ready is the children's summary.
 */
export function readyOutcome(
  synced: ReadyVerdict,
  children: ReadinessSummary,
  mode: 'children' | 'reconciled',
): ReadyVerdict {
  if (!synced.ready || mode === 'reconciled') return synced;
  return children;
}
