/**
 * Conditional back-pressure (docs/reference/katalog.md §20.7, upstream's `queue.behaviour`): the
 * drop policy of an entry's work queue. From `onThreshold.value`% of `maxDepth` a new key is
 * dropped while `onThreshold`'s gate passes; at `maxDepth` it is dropped when `onLimit.drop` and
 * its gate pass (without `onLimit`: always, the default policy), else accepted. The gates read
 * `queue.depth`, `queue.maxDepth` and `queue.percent`; time conditions use the injected clock.
 */
import { evaluateConditions } from '@orkestra/types';
import type { EvaluateConditionsOptions, QueueBehaviour } from '@orkestra/types';

/** queueDropPolicy is the WorkQueue `dropPolicy` of a `queue.behaviour` block. */
export function queueDropPolicy(
  behaviour: QueueBehaviour,
  conditions: EvaluateConditionsOptions,
): (dirty: number, maxDepth: number) => boolean {
  return (dirty, maxDepth) => {
    const context = { queue: { depth: dirty, maxDepth, percent: Math.floor((dirty * 100) / maxDepth) } };
    if (dirty >= maxDepth) {
      const onLimit = behaviour.onLimit;
      if (onLimit == null) return true;
      return onLimit.drop && evaluateConditions(onLimit, context, conditions).passed;
    }
    const onThreshold = behaviour.onThreshold;
    if (onThreshold == null || dirty * 100 < onThreshold.value * maxDepth) return false;
    return evaluateConditions(onThreshold, context, conditions).passed;
  };
}
