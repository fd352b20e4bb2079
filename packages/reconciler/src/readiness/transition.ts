/**
 * readinessTransition: whether a change of a child moved its readiness state, so that its owner's
 * `Ready` may flip and the owner is served ahead of progress-only events (ADR 0014,
 * docs/reference/runtime.md §4, §5.3).
 */
import type { CacheChange } from '../cache.js';
import { CacheChangeType } from '../cache.js';
import { childReadiness } from './child-readiness.js';

/**
 * readinessTransition is true for a delete (the child is gone: `NotFound`) and for an update whose
 * kind rule state differs between the old and the new object (`InProgress` → `Current`, `Current`
 * → `InProgress`, → `Failed`, → `Terminating`); false for an add and for progress within a state
 * (`1/2` → `2/2 replicas updated`). Entries with `readyWhen` are judged by their kind's rule here;
 * a miss only costs the priority, never the event. Pure.
 *
 * @example
 * readinessTransition({ type: 'update', key, old: rollingOut, object: available }); // true
 */
export function readinessTransition(change: CacheChange): boolean {
  if (change.type === CacheChangeType.Delete) return true;
  if (change.type !== CacheChangeType.Update || change.old == null) return false;
  return childReadiness(change.old).state !== childReadiness(change.object).state;
}
