/**
 * The options of gate and condition evaluation (docs/reference/katalog.md §8): templates rendered
 * by the entry's engine, `now` read from the injected clock. Built here, once, for the pipeline,
 * the runtime's hook services and the offline engine alike.
 */
import type { TemplateEngine } from '@orkestra/template';
import type { EvaluateConditionsOptions } from '@orkestra/types';
import type { Clock } from '../clock.js';

/** conditionsOptions are the EvaluateConditionsOptions over one engine and clock. */
export function conditionsOptions(
  engine: Pick<TemplateEngine, 'renderTemplate'>,
  clock: Pick<Clock, 'now'>,
): EvaluateConditionsOptions {
  return {
    renderTemplate: (source, context) => engine.renderTemplate(source, context),
    now: () => new Date(clock.now()),
  };
}
