/**
 * Ordering on readiness (docs/reference/runtime.md §7): a child whose entry has `waitFor` is not applied until every
 * child of the entries it names is ready. Once it exists it is kept and updated as usual, so a
 * target that becomes unready later does not delete or freeze it.
 */
import type { Condition } from '@orkestra/types';
import type { KubeObject } from '../kube-object.js';
import { childReadiness } from './child-readiness.js';
import type { ChildReadinessOptions } from './child-readiness.js';
import { isReady } from './readiness.js';

/** WaitingChild is what holdBack needs of a desired child. */
export interface WaitingChild {
  readonly id: string;
  readonly entry: {
    readonly id?: string | undefined;
    readonly waitFor: readonly string[];
    readonly readyWhen: readonly Condition[];
  };
}

/** HoldBackResult splits children into those to apply now and those held back, with the ids they wait for. */
export interface HoldBackResult<T> {
  readonly apply: T[];
  /** Child id → the `waitFor` ids not ready yet. */
  readonly waiting: ReadonlyMap<string, readonly string[]>;
}

/**
 * holdBack returns the children to apply now: every child without `waitFor`, every child that
 * already exists, and every child whose `waitFor` entries' children all exist and are ready (an
 * entry with no children this reconcile, e.g. gated off, counts as ready). `get` reads a child's
 * cached object.
 *
 * @example
 * const { apply, waiting } = holdBack(children, (c) => cache.get(c.ref));
 */
export function holdBack<T extends WaitingChild>(
  children: readonly T[],
  get: (child: T) => KubeObject | undefined,
  options: Pick<ChildReadinessOptions, 'conditions'> & {
    /** Whether a child is a finished Job recorded in the inventory (ready even once its TTL removed it). */
    readonly completed?: (child: T) => boolean;
  } = {},
): HoldBackResult<T> {
  const byEntryId = new Map<string, T[]>();
  for (const child of children) {
    const id = child.entry.id;
    if (id == null) continue;
    const list = byEntryId.get(id) ?? [];
    list.push(child);
    byEntryId.set(id, list);
  }
  const ready = (child: T): boolean => {
    const object = get(child);
    if (object == null && options.completed?.(child) === true) return true;
    return isReady(
      childReadiness(object, { readyWhen: child.entry.readyWhen, conditions: options.conditions }),
    );
  };
  const apply: T[] = [];
  const waiting = new Map<string, readonly string[]>();
  for (const child of children) {
    if (child.entry.waitFor.length === 0 || get(child) != null) {
      apply.push(child);
      continue;
    }
    const unmet = child.entry.waitFor.filter((id) => !(byEntryId.get(id) ?? []).every(ready));
    if (unmet.length === 0) apply.push(child);
    else waiting.set(child.id, unmet);
  }
  return { apply, waiting };
}
