/**
 * Secret rotation (docs/reference/katalog.md §7.2, docs/reference/runtime.md §14.1): when a Secret with `rotateAfter` or `tls`
 * is due for new data, and the annotations that record its generation. Pure: time is passed in.
 */
import { OrkestraAnnotation, parseDuration } from '@orkestra/types';

/** DEFAULT_TLS_VALID_FOR is the validity of generated certificates without `tls.validFor` or `rotateAfter`. */
const DEFAULT_TLS_VALID_FOR = '1y';

/** RotationEntry is the part of a Secret entry that decides rotation (a `SecretEntry` fits). */
export interface RotationEntry {
  /** Regenerate the data this long after generation (a Katalog duration). */
  readonly rotateAfter?: string | undefined;
  /** TLS generation; `validFor` defaults to `rotateAfter`, else one year. */
  readonly tls?: { readonly validFor?: string | undefined } | undefined;
}

/** RotationSecret is the part of a cached Secret rotation reads. */
export interface RotationSecret {
  readonly metadata: { readonly annotations?: Readonly<Record<string, string>> | undefined };
}

/** SecretRotationInput is what secretRotationState decides on. */
export interface SecretRotationInput {
  /** The Secret as cached; undefined when it does not exist yet (creation is not rotation). */
  readonly secret: RotationSecret | undefined;
  readonly entry: RotationEntry;
  readonly now: Date;
}

/** SecretRotationState says whether a Secret's data must be regenerated now, and when next. */
export interface SecretRotationState {
  /** True when `now ≥ generated-at + interval`: re-render the data and update it with a fresh stamp. */
  readonly due: boolean;
  /**
   * When rotation is (or was) due; schedule a re-queue for it. Absent when the entry does not
   * rotate or the Secret does not exist. With `stampNeeded` it counts from `now`.
   */
  readonly dueAt?: Date;
  /**
   * True when the Secret exists, rotates, and has no parseable `generated-at`: write
   * `generationStamp(now, …)` (annotations only, data kept), which starts its clock.
   */
  readonly stampNeeded: boolean;
}

/**
 * tlsValidForMs is the validity of a TLS Secret's certificate in milliseconds: `tls.validFor`,
 * else `rotateAfter`, else one year. Throws a DurationError on an invalid duration.
 */
export function tlsValidForMs(entry: RotationEntry): number {
  return parseDuration(entry.tls?.validFor ?? entry.rotateAfter ?? DEFAULT_TLS_VALID_FOR);
}

/**
 * rotationIntervalMs is how long after generation a Secret's data is regenerated: `rotateAfter`,
 * else for TLS two thirds of the validity; undefined when the entry does not rotate. A zero
 * interval (`rotateAfter: 0`) counts as no rotation, since it would rewrite the Secret on every
 * reconcile. Throws a DurationError on an invalid duration.
 */
export function rotationIntervalMs(entry: RotationEntry): number | undefined {
  let interval: number | undefined;
  if (entry.rotateAfter != null) interval = parseDuration(entry.rotateAfter);
  else if (entry.tls != null) interval = Math.floor((tlsValidForMs(entry) * 2) / 3);
  return interval == null || interval <= 0 ? undefined : interval;
}

/**
 * UPSTREAM_GENERATED_AT are the annotations upstream's generations stamp a generated Secret with
 * (the older generation's is Orkestra's own key). A Secret upstream created keeps its age when
 * Orkestra takes it over: rotation counts from upstream's stamp until Orkestra writes its own.
 */
const UPSTREAM_GENERATED_AT = ['orkestra.orkspace.io/generated-at', 'inrun.dev/generated-at'] as const;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** parseGeneratedAt reads an RFC 3339 timestamp; undefined when absent or unparseable. */
export function parseGeneratedAt(value: string | undefined): Date | undefined {
  if (value == null || !RFC3339.test(value)) return undefined;
  const ms = Date.parse(value.toUpperCase());
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** formatRfc3339 renders a time as RFC 3339 in UTC with second precision, e.g. `2026-11-30T09:12:44Z`. */
export function formatRfc3339(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * secretRotationState decides rotation for one Secret (docs/reference/runtime.md §14.1). Only entries with
 * `rotateAfter` or `tls` rotate; rotation is due when `now ≥ generated-at + rotateAfter` (TLS
 * without `rotateAfter`: `generated-at + ⅔ validFor`). `generated-at` is Orkestra's annotation,
 * else upstream's (`UPSTREAM_GENERATED_AT`). A Secret without a parseable one is not due but
 * needs a stamp, which starts its clock.
 *
 * The interval comes from the Katalog entry, not from the Secret's `rotate-after` annotation,
 * which only records it.
 *
 * @example
 * const state = secretRotationState({ secret, entry: { rotateAfter: '90d' }, now: new Date() });
 * if (state.due) { // re-render data, update with generationStamp(now, '90d') }
 * if (state.dueAt) { // re-queue the CR at state.dueAt }
 */
export function secretRotationState(input: SecretRotationInput): SecretRotationState {
  const interval = rotationIntervalMs(input.entry);
  if (interval == null || input.secret == null) return { due: false, stampNeeded: false };
  const annotations = input.secret.metadata.annotations ?? {};
  const generatedAt = [OrkestraAnnotation.GeneratedAt, ...UPSTREAM_GENERATED_AT]
    .map((key) => parseGeneratedAt(annotations[key]))
    .find((at) => at != null);
  if (generatedAt == null) {
    return { due: false, dueAt: new Date(input.now.getTime() + interval), stampNeeded: true };
  }
  const dueAt = new Date(generatedAt.getTime() + interval);
  return { due: input.now.getTime() >= dueAt.getTime(), dueAt, stampNeeded: false };
}

/**
 * generationStamp returns the annotations to write when a Secret's data is generated, rotated or
 * first stamped: `generated-at` (RFC 3339, UTC, second precision) and, when the entry declares
 * one, `rotate-after` (the declared duration as written).
 *
 * @example
 * generationStamp(new Date('2026-11-30T09:12:44.123Z'), '90d');
 * // { 'orkestra.konductor.io/generated-at': '2026-11-30T09:12:44Z', 'orkestra.konductor.io/rotate-after': '90d' }
 */
export function generationStamp(now: Date, rotateAfter?: string): Record<string, string> {
  const stamp: Record<string, string> = { [OrkestraAnnotation.GeneratedAt]: formatRfc3339(now) };
  if (rotateAfter != null) stamp[OrkestraAnnotation.RotateAfter] = rotateAfter;
  return stamp;
}
