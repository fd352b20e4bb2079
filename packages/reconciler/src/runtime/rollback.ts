/**
 * Declarative rollback (docs/reference/katalog.md §20.4, ADR 0047): a CR whose reconciles failed
 * `trigger.consecutiveFailures` times in a row (all within `trigger.withinDuration` when given) is
 * rolled back. The rollback is recorded on the CR as upstream records it — the annotation
 * `rollback-at-generation` holds the generation it happened at, and `previous-spec` the last spec
 * that reconciled successfully (gzip + base64 JSON, written by the pipeline after each success) —
 * so it survives a restart; the failure history is in memory, as upstream's. While the annotation
 * names the CR's generation, its normal reconcile is blocked: with `onRollback` those children are
 * applied over `.previous` (upstream's declarative rollback), else with `reapplyPreviousSpec` the
 * entry's templates are applied with the previous spec, and the CR shows Ready=False `RolledBack`.
 * A new generation (the user changed the spec) ends it.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { refOf } from '@orkestra/registry';
import { OrkestraAnnotation, parseDuration } from '@orkestra/types';
import type { Logger, Rollback } from '@orkestra/types';
import type { PrimaryStore } from './stores.js';
import type { Clock } from '../clock.js';
import type { EventRecorder } from '../events/event-recorder.js';

/** encodeSpec is a spec as `previous-spec` keeps it: gzip, then base64, of its JSON. */
export function encodeSpec(spec: unknown): string {
  return gzipSync(Buffer.from(JSON.stringify(spec ?? {}))).toString('base64');
}

/** decodeSpec reads `previous-spec`; undefined when it is absent or not readable. */
export function decodeSpec(text: string | undefined): unknown {
  if (text == null || text === '') return undefined;
  try {
    return JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * RolledBackRun is how a rolled-back CR is reconciled: its `onRollback` children over the previous
 * spec, the entry's templates with the previous spec, or not at all.
 */
export interface RolledBackRun {
  readonly message: string;
  /** The spec to apply the entry's templates with (`reapplyPreviousSpec`); undefined: apply nothing. */
  readonly spec?: unknown;
  /** The previous spec, `.previous.spec` of the `onRollback` children; set only when they are applied. */
  readonly previous?: unknown;
}

/** RollbacksOptions configures the rollback of one entry. */
export interface RollbacksOptions {
  readonly rollback: Rollback;
  readonly clock: Clock;
  readonly client: Pick<KubeClient, 'mergePatch'>;
  readonly primary: Pick<PrimaryStore, 'upsertFromWrite'>;
  readonly events: Pick<EventRecorder, 'warning'>;
}

/** Rollbacks keeps the failure history of an entry's CRs and decides when one is rolled back. */
export class Rollbacks {
  readonly #o: RollbacksOptions;
  readonly #failures = new Map<string, number[]>();

  constructor(options: RollbacksOptions) {
    this.#o = options;
  }

  /** failed records a failed reconcile of a CR. */
  failed(key: string): void {
    const times = this.#failures.get(key) ?? [];
    times.push(this.#o.clock.now());
    // Only the last `consecutiveFailures` matter.
    this.#failures.set(key, times.slice(-this.#o.rollback.trigger.consecutiveFailures));
  }

  /** succeeded ends a CR's run of failures. */
  succeeded(key: string): void {
    this.#failures.delete(key);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** triggered tells whether a CR's failures reach the trigger now. */
  triggered(key: string): boolean {
    const { consecutiveFailures, withinDuration } = this.#o.rollback.trigger;
    const times = this.#failures.get(key) ?? [];
    if (times.length < consecutiveFailures) return false;
    if (withinDuration == null) return true;
    const since = this.#o.clock.now() - parseDuration(withinDuration);
    return times.every((t) => t >= since);
  }

  /**
   * before decides, when a worker takes a CR, whether it is rolled back (undefined: reconcile it
   * normally). When its failures reach the trigger, the CR is marked rolled back at its generation
   * first (one metadata patch and a `RolledBack` warning Event).
   */
  async before(key: string, cr: KubeObject, logger: Logger): Promise<RolledBackRun | undefined> {
    if (cr.metadata['deletionTimestamp'] != null) return undefined;
    const generation = String(cr.metadata['generation'] ?? '');
    const annotations = cr.metadata.annotations ?? {};
    let current = cr;
    if (annotations[OrkestraAnnotation.RollbackAtGeneration] !== generation) {
      if (!this.triggered(key)) return undefined;
      const failures = this.#failures.get(key)?.length ?? 0;
      this.#failures.delete(key);
      try {
        current = await this.#o.client.mergePatch(
          refOf(cr),
          { metadata: { annotations: { [OrkestraAnnotation.RollbackAtGeneration]: generation } } },
          { resourceVersion: cr.metadata.resourceVersion },
        );
        this.#o.primary.upsertFromWrite(current);
      } catch (error) {
        logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'marking the rollback failed',
        );
        return undefined;
      }
      this.#o.events.warning(
        current,
        'RolledBack',
        `rolled back after ${failures} consecutive failures at generation ${generation}`,
      );
    }
    const previous = decodeSpec((current.metadata.annotations ?? {})[OrkestraAnnotation.PreviousSpec]);
    // Upstream: explicit `onRollback` templates take precedence over `rollBackOnError`'s re-apply.
    const templates = this.#o.rollback.onRollback != null && previous != null;
    const reapply = !templates && this.#o.rollback.reapplyPreviousSpec && previous != null;
    const applied = templates
      ? '; the onRollback children are applied'
      : reapply
        ? '; the previous spec is applied'
        : '';
    const message = `rolled back at generation ${generation} after ${this.#o.rollback.trigger.consecutiveFailures} consecutive failures${applied}; change the spec to reconcile it again`;
    if (templates) return { message, previous };
    return reapply ? { message, spec: previous } : { message };
  }
}
