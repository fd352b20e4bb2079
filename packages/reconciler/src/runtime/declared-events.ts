/**
 * Declared Events (docs/reference/katalog.md §20.5, ADR 0054, upstream's `emit.events`): after each
 * reconcile of a CR, every entry of the entry's `events` whose `on` matches the outcome and whose
 * gate passes is recorded about the CR through the operator's EventRecorder, its `reason` and
 * `message` rendered over the reconcile's context. Rate-limited twice: per CR and event name at
 * most one Event every `minIntervalMs` (default 30 s, on the injected clock), and the recorder's own
 * rule (the same reason and message about the same object is not recorded again within its window).
 */
import type { KubeObject } from '@orkestra/registry';
import { evaluateConditions } from '@orkestra/types';
import type { EmitEvent, EvaluateConditionsOptions, Logger } from '@orkestra/types';
import type { Clock } from '../clock.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { errorForLog } from './log-error.js';

/** EMIT_MIN_INTERVAL_MS is the default least time between two Events of one declared name about one CR. */
const EMIT_MIN_INTERVAL_MS = 30_000;

/** Kubernetes caps an Event's reason at 128 characters. */
const MAX_REASON_LENGTH = 128;

/** ReconcileOutcome is how a reconcile ended, for `on`: without an error (`success`) or with one. */
export type ReconcileOutcome = 'success' | 'failure';

/** DeclaredEventsOptions configures the declared Events of one entry. */
export interface DeclaredEventsOptions {
  readonly events: Readonly<Record<string, EmitEvent>>;
  readonly recorder: Pick<EventRecorder, 'record'>;
  readonly conditions: EvaluateConditionsOptions;
  readonly clock: Pick<Clock, 'now'>;
  /** Least time between two Events of one name about one CR. Default EMIT_MIN_INTERVAL_MS. */
  readonly minIntervalMs?: number | undefined;
}

/**
 * DeclaredEvents records an entry's declared Events after each reconcile. It keeps, per CR, the
 * count of reconciles that failed in a row (`.consecutiveFails`, reset by a success) and, per CR and
 * event name, when that Event was last recorded.
 */
export class DeclaredEvents {
  readonly #o: DeclaredEventsOptions;
  readonly #minIntervalMs: number;
  readonly #failures = new Map<string, number>();
  /** `<uid>/<name>` → when that Event was last recorded. */
  readonly #last = new Map<string, number>();

  constructor(options: DeclaredEventsOptions) {
    this.#o = options;
    this.#minIntervalMs = options.minIntervalMs ?? EMIT_MIN_INTERVAL_MS;
  }

  /**
   * after records the declared Events for a reconcile of `cr` that ended with `outcome`. `context`
   * is the reconcile's template context (the CR's `metadata`, `spec`, `status`, `children`, …);
   * the Events also read `.name`, `.namespace`, `.lastError` (the failure's message, empty on
   * success), `.consecutiveFails` and `.health.consecutiveFails`. Returns the names recorded.
   */
  after(
    cr: KubeObject,
    outcome: ReconcileOutcome,
    context: Readonly<Record<string, unknown>>,
    logger: Logger,
    lastError = '',
  ): string[] {
    const uid = cr.metadata.uid ?? `${cr.metadata.namespace ?? ''}/${cr.metadata.name}`;
    const fails = outcome === 'success' ? 0 : (this.#failures.get(uid) ?? 0) + 1;
    if (fails === 0) this.#failures.delete(uid);
    else this.#failures.set(uid, fails);
    const view: Record<string, unknown> = {
      ...context,
      name: cr.metadata.name,
      namespace: cr.metadata.namespace ?? '',
      outcome,
      lastError,
      consecutiveFails: fails,
      health: { consecutiveFails: fails, status: fails === 0 ? 'healthy' : 'failing' },
    };
    const now = this.#o.clock.now();
    const recorded: string[] = [];
    for (const [name, event] of Object.entries(this.#o.events)) {
      if (!firesOn(event, outcome)) continue;
      const gate = evaluateConditions(event, view, this.#o.conditions);
      if (!gate.passed) continue;
      const key = `${uid}/${name}`;
      const last = this.#last.get(key);
      if (last != null && now - last < this.#minIntervalMs) continue;
      let reason: string;
      let message: string;
      try {
        reason = this.#render(event.reason, view).slice(0, MAX_REASON_LENGTH);
        message = this.#render(event.message, view);
      } catch (error) {
        logger.warn({ err: errorForLog(error), event: name }, 'declared event did not render; not recorded');
        continue;
      }
      if (reason === '') continue;
      this.#last.set(key, now);
      if (this.#o.recorder.record(cr, event.type, reason, message)) recorded.push(name);
    }
    return recorded;
  }

  /** forget drops what is kept about a CR once it is gone. */
  forget(uid: string): void {
    this.#failures.delete(uid);
    for (const key of [...this.#last.keys()]) if (key.startsWith(`${uid}/`)) this.#last.delete(key);
  }

  #render(source: string, view: Readonly<Record<string, unknown>>): string {
    if (!source.includes('{{')) return source;
    return String(this.#o.conditions.renderTemplate?.(source, view) ?? '').trim();
  }
}

/** firesOn tells whether an event's `on` list matches an outcome (an empty list means `always`). */
function firesOn(event: EmitEvent, outcome: ReconcileOutcome): boolean {
  if (event.on.length === 0) return true;
  return event.on.some((trigger) => trigger === 'always' || trigger === outcome);
}
