/**
 * Declarative cleanup (docs/reference/katalog.md §20.6, ADR 0054, upstream's `runtime.cleanup`): a
 * CR whose `cleanup` conditions (its terminal state) hold is deleted once they have held for
 * `deleteAfter`. The first time they are seen to hold, the time is kept on the CR in the annotation
 * `cleanup-pending-since` (as upstream keeps it, so a restart does not start the wait again), and
 * the CR is re-queued for the moment it falls due — a timer, never a poll. When the conditions stop
 * holding first, the annotation is removed. The delete is a foreground delete preconditioned on the
 * CR's UID; the finalizers and the deletion path run as for any delete.
 */
import { NotFoundError, PropagationPolicy, refOf } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { OrkestraAnnotation, evaluateConditions, parseDuration } from '@orkestra/types';
import type { Cleanup, EvaluateConditionsOptions, Logger } from '@orkestra/types';
import type { ObjectCache } from '../cache.js';
import type { Clock } from '../clock.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { formatRfc3339 } from '../secrets/rotation.js';
import { errorForLog } from './log-error.js';

/** CleanupDecision is what `check` decided: the CR was deleted, or is due in `dueInMs`, or neither. */
export interface CleanupDecision {
  readonly deleted?: boolean;
  /** Time until the CR falls due for deletion, when its conditions hold and it is not due yet. */
  readonly dueInMs?: number;
}

/** CheckOptions: `record: false` only deletes a CR that is due, writing no annotation (before a reconcile). */
export interface CheckOptions {
  readonly record?: boolean | undefined;
}

/** CleanupsOptions configures the cleanup of one entry. */
export interface CleanupsOptions {
  readonly cleanup: Cleanup;
  readonly clock: Pick<Clock, 'now'>;
  readonly client: Pick<KubeClient, 'mergePatch' | 'delete'>;
  readonly primary: Pick<ObjectCache, 'upsertFromWrite'>;
  readonly events: Pick<EventRecorder, 'normal'>;
  readonly conditions: EvaluateConditionsOptions;
}

/** Cleanups decides, for the CRs of one entry, when one is deleted after reaching its terminal state. */
export class Cleanups {
  readonly #o: CleanupsOptions;
  readonly #deleteAfterMs: number;

  constructor(options: CleanupsOptions) {
    this.#o = options;
    this.#deleteAfterMs = parseDuration(options.cleanup.deleteAfter);
  }

  /**
   * check evaluates the conditions over the CR (`metadata`, `spec`, `status`): when they hold and
   * have held for `deleteAfter`, the CR is deleted; when they hold but it is not due, the time they
   * were first seen to hold is recorded (once) and the time left returned; when they do not hold,
   * a recorded time is removed (with `record: false`, neither is written). A CR being deleted is left alone. Write failures are logged and
   * decide nothing (the next reconcile checks again).
   */
  async check(cr: KubeObject, logger: Logger, options: CheckOptions = {}): Promise<CleanupDecision> {
    if (cr.metadata['deletionTimestamp'] != null) return {};
    const context = {
      apiVersion: cr.apiVersion,
      kind: cr.kind,
      metadata: cr.metadata,
      spec: cr['spec'] ?? {},
      status: cr['status'] ?? {},
    };
    const met = evaluateConditions(this.#o.cleanup, context, this.#o.conditions).passed;
    const recorded = cr.metadata.annotations?.[OrkestraAnnotation.CleanupPendingSince];
    const record = options.record !== false;
    if (!met) {
      if (recorded != null && record) await this.#annotate(cr, null, logger);
      return {};
    }
    const now = this.#o.clock.now();
    let since = recorded == null ? Number.NaN : Date.parse(recorded);
    if (this.#deleteAfterMs > 0 && Number.isNaN(since)) {
      if (!record) return {};
      if (!(await this.#annotate(cr, formatRfc3339(new Date(now)), logger))) return {};
      since = now;
    }
    const due = (Number.isNaN(since) ? now : since) + this.#deleteAfterMs;
    if (now < due) return { dueInMs: due - now };
    return (await this.#delete(cr, logger)) ? { deleted: true } : {};
  }

  async #annotate(cr: KubeObject, value: string | null, logger: Logger): Promise<boolean> {
    try {
      const written = await this.#o.client.mergePatch(
        refOf(cr),
        { metadata: { annotations: { [OrkestraAnnotation.CleanupPendingSince]: value } } },
        { resourceVersion: cr.metadata.resourceVersion },
      );
      this.#o.primary.upsertFromWrite(written);
      return true;
    } catch (error) {
      logger.warn({ err: errorForLog(error) }, 'cleanup: writing cleanup-pending-since failed');
      return false;
    }
  }

  async #delete(cr: KubeObject, logger: Logger): Promise<boolean> {
    try {
      await this.#o.client.delete(refOf(cr), {
        propagationPolicy: PropagationPolicy.Foreground,
        ...(cr.metadata.uid == null ? {} : { uid: cr.metadata.uid }),
      });
    } catch (error) {
      if (error instanceof NotFoundError) return true;
      logger.warn({ err: errorForLog(error) }, 'cleanup: deleting the CR failed');
      return false;
    }
    const after = this.#deleteAfterMs > 0 ? ` after ${this.#o.cleanup.deleteAfter}` : '';
    this.#o.events.normal(cr, 'CleanedUp', `deleted: its cleanup conditions held${after}`);
    logger.info({ deleteAfter: this.#o.cleanup.deleteAfter }, 'cleanup: CR deleted');
    return true;
  }
}
