import { isMap } from '../is-map.js';

/**
 * The mutating admission webhook's answer (docs/reference/katalog.md §12, ADR 0092) is a JSONPatch
 * (RFC 6902), while the reconcile's mutation step writes a merge patch (RFC 7386). jsonPatchOf
 * turns the one into the other against the object the review carries, so the API server stores
 * what the reconcile's merge patch would have made of it.
 */

/** JsonPatchOp is one RFC 6902 operation; the builder emits add, replace and remove only. */
export type JsonPatchOp =
  | { readonly op: 'add' | 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** pointerSegment escapes one key for a JSON Pointer (RFC 6901): `~` as `~0`, then `/` as `~1`. */
export function pointerSegment(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** withoutNulls is a merge patch value applied to nothing (RFC 7386: null members vanish). */
function withoutNulls(value: unknown): unknown {
  if (!isMap(value)) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value))
    if (member !== null)
      Object.defineProperty(out, key, {
        value: withoutNulls(member),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * jsonPatchOf returns the operations that turn `target` (an object) into the result of the merge
 * patch `patch` applied to it: a member the target lacks is added (a whole object at the first
 * absent level, since `add` needs its parent), one it has with another value is replaced (arrays
 * whole, as a merge patch does), a null removes a present member; nothing for what stays equal.
 * `base` is the pointer of `target` in the reviewed object.
 *
 * @example
 * jsonPatchOf({ spec: {} }, { spec: { 'a/b': 1 } }); // [{ op: 'add', path: '/spec/a~1b', value: 1 }]
 */
export function jsonPatchOf(
  target: Readonly<Record<string, unknown>>,
  patch: Readonly<Record<string, unknown>>,
  base = '',
): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const path = `${base}/${pointerSegment(key)}`;
    const present = Object.hasOwn(target, key);
    const current = present ? target[key] : undefined;
    if (value === null) {
      if (present) ops.push({ op: 'remove', path });
      continue;
    }
    if (isMap(value) && isMap(current)) {
      ops.push(...jsonPatchOf(current, value, path));
      continue;
    }
    const next = withoutNulls(value);
    if (!present) ops.push({ op: 'add', path, value: next });
    else if (!same(current, next)) ops.push({ op: 'replace', path, value: next });
  }
  return ops;
}

/** patchedResponse is an AdmissionReview response that admits the object with these JSONPatch operations. */
export function patchedResponse(ops: readonly JsonPatchOp[]): Record<string, unknown> {
  return {
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(ops), 'utf8').toString('base64'),
  };
}

/**
 * reviewOf reads an AdmissionReview's request (empty when absent) and answers it: `answer` wraps a
 * response in the AdmissionReview envelope with the request's uid.
 */
export function reviewOf(review: unknown): {
  readonly request: Record<string, unknown>;
  readonly answer: (response: Record<string, unknown>) => Record<string, unknown>;
} {
  const request = isMap(review) && isMap(review['request']) ? review['request'] : {};
  const uid = typeof request['uid'] === 'string' ? request['uid'] : '';
  return {
    request,
    answer: (response) => ({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid, ...response },
    }),
  };
}
