import { evaluateConditions, isDuration, parseDuration } from '@orkestra/types';
import type { EvaluateConditionsOptions, Logger, RequeueRule } from '@orkestra/types';
import { errorForLog } from '../log-error.js';

/**
 * requeueDelay is the entry's `requeue` after a successful reconcile (docs/reference/katalog.md §20.2):
 * the `after` of the first rule whose gate passes, rendered over the reconcile's context, in
 * milliseconds. Undefined when no rule applies or `after` renders `0s`, `0`, empty or not a
 * duration (logged at debug; a render failure is logged at warn) — no timed re-queue then.
 */
export function requeueDelay(
  rules: readonly RequeueRule[] | undefined,
  context: Readonly<Record<string, unknown>>,
  conditions: EvaluateConditionsOptions,
  logger?: Logger,
): number | undefined {
  if (rules == null) return undefined;
  for (const rule of rules) {
    if (!evaluateConditions(rule, context, conditions).passed) continue;
    let after: string;
    try {
      after = rule.after.includes('{{')
        ? String(conditions.renderTemplate?.(rule.after, context) ?? '').trim()
        : rule.after;
    } catch (error) {
      logger?.warn({ err: errorForLog(error), after: rule.after }, 'requeue: after did not render');
      return undefined;
    }
    if (!isDuration(after)) {
      if (after !== '') logger?.debug({ after }, 'requeue: after is not a duration; no timed re-queue');
      return undefined;
    }
    const ms = parseDuration(after);
    return ms > 0 ? ms : undefined;
  }
  return undefined;
}
