/**
 * The status a reconcile writes (docs/reference/runtime.md §11, docs/reference/katalog.md §13): runtime-owned keys, then the
 * declared fields, compared with the cached status so that an unchanged status is never written.
 */
import type { TemplateEngine } from '@orkestra/template';
import { ConditionReason, ConditionType } from '@orkestra/types';
import type { ConditionStatus } from '@orkestra/types';
import { MAX_MESSAGE_LENGTH, truncateMessage } from '../reason-message.js';
import { truncateRedacted } from '../redact-url.js';
import { formatRfc3339 } from '../secrets/rotation.js';
import type { InventoryItem } from './inventory.js';
import { sortInventory } from './inventory.js';
import { createMergePatch, dropNulls, jsonEqual } from './merge-patch.js';
import { applyStatusFields } from './status-fields.js';
import type { CompiledStatusField } from './status-fields.js';
import { isMap } from '../is-map.js';

/** StatusCondition is a condition as the runtime writes it on a CR. */
export interface StatusCondition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  /** RFC 3339, second precision; changes only when `status` changes. */
  readonly lastTransitionTime: string;
}

/** ReadyState is the outcome of a reconcile as the `Ready` condition shows it. */
export interface ReadyState {
  readonly status: ConditionStatus;
  readonly reason: string;
  /** Cut to 1024 characters. Default ''. */
  readonly message?: string | undefined;
}

/** BuildStatusInput is everything one status write depends on. */
export interface BuildStatusInput {
  /** `status` of the cached CR; undefined when it has none. Never modified. */
  readonly cachedStatus: Readonly<Record<string, unknown>> | undefined;
  /** The CR's `metadata.generation`, written as `observedGeneration` (top level and on Ready). Undefined keeps the cached values. */
  readonly generation?: number | undefined;
  readonly ready: ReadyState;
  /**
   * The `Synced` condition (the outcome of the reconcile itself). Undefined keeps the
   * cached Synced condition, if any.
   */
  readonly synced?: ReadyState | undefined;
  /**
   * The violated warn rules' messages. Undefined: the entry has no warn rules, and a
   * `ValidationWarning` condition is removed. `'unknown'`: the entry has warn rules but validation
   * did not run this time (an earlier step failed, or deletion), and the cached condition is kept.
   * An empty list gives `False`/`NoWarnings`, a non-empty one `True` with the messages joined by `"; "`.
   */
  readonly validationWarnings?: readonly string[] | 'unknown' | undefined;
  /**
   * HTTP cross reads whose peer did not answer (ADR 0043). Undefined keeps the cached
   * `CrossSourceUnavailable` condition; non-empty sets it `True` with the messages joined by "; ";
   * empty sets an existing one `False`/`CrossSourcesAvailable` (a CR whose reads never failed gets none).
   */
  readonly crossUnavailable?: readonly string[] | undefined;
  /** The children managed for this CR; sorted and normalized here. Undefined keeps the cached inventory. */
  readonly inventory?: readonly InventoryItem[] | undefined;
  /** Provider records by provider and declaration name. Undefined keeps the cached value. */
  readonly providers?: Readonly<Record<string, unknown>> | undefined;
  /** the Katalog revision of this reconcile (docs/reference/runtime.md §24.2). Undefined keeps the cached value. */
  readonly katalogRevision?: string | undefined;
  /** Declared fields from `compileStatusFields`, evaluated after the runtime-owned keys. */
  readonly declaredFields?: readonly CompiledStatusField[] | undefined;
  /**
   * Fields a remote reconciler returned (docs/reference/katalog.md §15.3), applied after the
   * declared fields (they win on a conflict, as upstream's) and never over the runtime's own keys.
   * Undefined writes none.
   */
  readonly serviceStatus?: Readonly<Record<string, unknown>> | undefined;
  /** True when the reconcile failed: only declared fields with `when`/`anyOf` are evaluated. Default false. */
  readonly failed?: boolean | undefined;
  /** Template context of the declared fields (the CR, cross, git, external, docker, providers, children). Default {}. */
  readonly context?: Readonly<Record<string, unknown>> | undefined;
  /** Wall-clock time of this reconcile, for `lastTransitionTime` and time conditions. */
  readonly now: Date;
  /** Called for each declared field skipped because of an error (emit `StatusFieldError` once per distinct message). */
  readonly onFieldError?: ((path: string, message: string) => void) | undefined;
  /** Engine for templated conditions of declared fields. Default the shared engine. */
  readonly engine?: TemplateEngine | undefined;
}

/** BuildStatusResult is the status to have, and what to send to get it. */
export interface BuildStatusResult {
  /** The complete new status. */
  readonly status: Record<string, unknown>;
  /** False when the new status equals the cached one (key order ignored): send nothing. */
  readonly changed: boolean;
  /**
   * JSON merge patch for the `status` subresource: the changed top-level keys, removed keys as
   * `null`, maps diffed recursively so removed nested fields are `null` too. `{}` when unchanged.
   */
  readonly patch: Record<string, unknown>;
}

const OWNED_CONDITION_TYPES: ReadonlySet<string> = new Set([
  ConditionType.Ready,
  ConditionType.Synced,
  ConditionType.ValidationWarning,
  ConditionType.CrossSourceUnavailable,
  // Written by the reconcile gate only (runtime/gates.ts); every reconcile that runs removes it.
  ConditionType.Gated,
]);

/** The status keys the runtime owns; a remote reconciler's status never writes them. */
const RUNTIME_STATUS_KEYS: ReadonlySet<string> = new Set([
  'conditions',
  'observedGeneration',
  'inventory',
  'providers',
  'katalogRevision',
]);

function conditionType(value: unknown): string | undefined {
  return isMap(value) && typeof value['type'] === 'string' ? value['type'] : undefined;
}

function makeCondition(
  previous: unknown,
  type: string,
  state: { status: ConditionStatus; reason: string; message: string },
  observedGeneration: number | undefined,
  now: Date,
): StatusCondition {
  const prev = isMap(previous) ? previous : undefined;
  const keepTime =
    prev != null && prev['status'] === state.status && typeof prev['lastTransitionTime'] === 'string';
  const generation =
    observedGeneration ??
    (typeof prev?.['observedGeneration'] === 'number' ? prev['observedGeneration'] : undefined);
  return {
    type,
    status: state.status,
    reason: state.reason,
    // Credentials in URLs never reach a condition.
    message: truncateRedacted(state.message, MAX_MESSAGE_LENGTH, truncateMessage),
    ...(generation == null ? {} : { observedGeneration: generation }),
    lastTransitionTime: keepTime ? (prev['lastTransitionTime'] as string) : formatRfc3339(now),
  };
}

function buildConditions(
  input: BuildStatusInput,
  cached: readonly unknown[],
  generation: number | undefined,
): unknown[] {
  const previous = (type: string): unknown => cached.find((condition) => conditionType(condition) === type);
  const ready = makeCondition(
    previous(ConditionType.Ready),
    ConditionType.Ready,
    { status: input.ready.status, reason: input.ready.reason, message: input.ready.message ?? '' },
    generation,
    input.now,
  );

  const synced =
    input.synced == null
      ? previous(ConditionType.Synced)
      : makeCondition(
          previous(ConditionType.Synced),
          ConditionType.Synced,
          { status: input.synced.status, reason: input.synced.reason, message: input.synced.message ?? '' },
          generation,
          input.now,
        );

  let warning: unknown;
  const warnings = input.validationWarnings;
  if (warnings === 'unknown') warning = previous(ConditionType.ValidationWarning);
  else if (warnings != null) {
    warning = makeCondition(
      previous(ConditionType.ValidationWarning),
      ConditionType.ValidationWarning,
      warnings.length > 0
        ? { status: 'True', reason: ConditionReason.ValidationWarning, message: warnings.join('; ') }
        : { status: 'False', reason: ConditionReason.NoWarnings, message: '' },
      generation,
      input.now,
    );
  }

  const previousCross = previous(ConditionType.CrossSourceUnavailable);
  const unavailable = input.crossUnavailable;
  const cross =
    unavailable == null || (unavailable.length === 0 && previousCross == null)
      ? previousCross
      : makeCondition(
          previousCross,
          ConditionType.CrossSourceUnavailable,
          unavailable.length > 0
            ? {
                status: 'True',
                reason: ConditionReason.CrossSourceUnavailable,
                message: unavailable.join('; '),
              }
            : { status: 'False', reason: ConditionReason.CrossSourcesAvailable, message: '' },
          generation,
          input.now,
        );

  // Owned conditions keep their position; new ones go after the others.
  const out: unknown[] = [];
  let readyPlaced = false;
  let syncedPlaced = false;
  let warningPlaced = false;
  let crossPlaced = false;
  for (const condition of cached) {
    const type = conditionType(condition);
    if (type === ConditionType.Ready) {
      if (!readyPlaced) out.push(ready);
      readyPlaced = true;
    } else if (type === ConditionType.Synced) {
      if (!syncedPlaced && synced != null) out.push(synced);
      syncedPlaced = true;
    } else if (type === ConditionType.ValidationWarning) {
      if (!warningPlaced && warning != null) out.push(warning);
      warningPlaced = true;
    } else if (type === ConditionType.CrossSourceUnavailable) {
      if (!crossPlaced && cross != null) out.push(cross);
      crossPlaced = true;
    } else if (type == null || !OWNED_CONDITION_TYPES.has(type)) {
      out.push(condition);
    }
  }
  if (!readyPlaced) out.push(ready);
  if (!syncedPlaced && synced != null) out.push(synced);
  if (!warningPlaced && warning != null) out.push(warning);
  if (!crossPlaced && cross != null) out.push(cross);
  return out;
}

/**
 * buildStatus computes a CR's new status (docs/reference/runtime.md §11): starting from the cached status it sets
 * the `Ready` condition (`lastTransitionTime` kept unless `status` changes), `ValidationWarning`
 * for entries with warn rules, `observedGeneration`, `inventory` and `providers`, keeping
 * conditions of other types as they are; then it applies the declared fields (docs/reference/katalog.md §13.2).
 * It compares the result with the cached status ignoring key order and returns the merge patch
 * to send when they differ. Pure: nothing is written, the cached status is not modified.
 *
 * Map entries holding `null` are dropped from the result, since a merge patch can only delete them.
 *
 * @example
 * const { changed, patch } = buildStatus({
 *   cachedStatus: cr.status,
 *   generation: cr.metadata.generation,
 *   ready: { status: 'True', reason: 'ReconcileSucceeded' },
 *   inventory,
 *   declaredFields,
 *   context: { ...crContext, children: buildChildrenContext(children) },
 *   now: new Date(clock.now()),
 *   onFieldError: (path, message) => events.warning(cr, 'StatusFieldError', message),
 * });
 * if (changed) await client.patchStatus(cr, patch, { resourceVersion: cr.metadata.resourceVersion });
 */
export function buildStatus(input: BuildStatusInput): BuildStatusResult {
  const cached = input.cachedStatus ?? {};
  const status = structuredClone(cached) as Record<string, unknown>;
  const cachedConditions = Array.isArray(cached['conditions']) ? (cached['conditions'] as unknown[]) : [];

  if (input.generation != null) status['observedGeneration'] = input.generation;
  status['conditions'] = buildConditions(input, structuredClone(cachedConditions), input.generation);
  if (input.inventory != null) status['inventory'] = sortInventory(input.inventory);
  if (input.providers != null) status['providers'] = structuredClone(input.providers);
  if (input.katalogRevision != null) status['katalogRevision'] = input.katalogRevision;

  if (input.declaredFields != null && input.declaredFields.length > 0) {
    applyStatusFields(status, input.declaredFields, {
      context: input.context ?? {},
      failed: input.failed ?? false,
      now: input.now,
      onFieldError: input.onFieldError ?? (() => undefined),
      engine: input.engine,
    });
  }

  for (const [key, value] of Object.entries(input.serviceStatus ?? {}))
    if (!RUNTIME_STATUS_KEYS.has(key)) status[key] = structuredClone(value);

  const result = dropNulls(status) as Record<string, unknown>;
  const changed = !jsonEqual(cached, result);
  return { status: result, changed, patch: changed ? createMergePatch(cached, result) : {} };
}
