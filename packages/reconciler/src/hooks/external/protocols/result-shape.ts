/**
 * The shape of a protocol's result (docs/reference/katalog.md §15.1.1, §17.5): each protocol unit
 * declares the keys it adds to `external.<name>` and, for a helper that reads its result (the
 * `prom*` helpers), what each argument is. `ork validate --strict` checks template paths and
 * helper arguments against these declarations, so one place — the protocol's unit — knows them.
 */

/** ResultShape is one value of a result: a scalar, a list, a map with any keys, or named fields. */
export type ResultShape =
  | 'text'
  | 'number'
  | 'boolean'
  | 'any'
  | { readonly list: ResultShape }
  | { readonly map: ResultShape }
  | { readonly fields: Readonly<Record<string, ResultShape>> };

/** ResultFields are the keys a protocol adds to `external.<name>`, with their shapes. */
export type ResultFields = Readonly<Record<string, ResultShape>>;

/**
 * HelperParameter is one argument of a helper that reads a protocol's result: `result` is the
 * whole `external.<name>` of a call of that protocol, `number` a number (or numeric text), `text`
 * any text.
 */
export type HelperParameter = 'result' | 'number' | 'text';

/** SHARED_RESULT are the keys the caller adds to every protocol's result. */
export const SHARED_RESULT: ResultFields = {
  called: 'boolean',
  ok: 'boolean',
  error: 'text',
  durationMs: 'number',
};

/** ResultPathProblem says why a path does not exist in a result, and what would. */
export interface ResultPathProblem {
  readonly message: string;
  /** The unknown key and the keys that exist there (for a "did you mean"). */
  readonly unknown?: { readonly key: string; readonly candidates: readonly string[] };
}

const SCALAR_NAMES = { text: 'text', number: 'a number', boolean: 'a boolean' } as const;

/**
 * resultPathProblem checks the segments after `external.<name>` against a protocol's result
 * (`prefix` is `external.<name>`); undefined when the path exists. `*` matches any element or key.
 */
export function resultPathProblem(
  protocol: string,
  fields: ResultFields,
  segments: readonly string[],
  prefix: string,
): ResultPathProblem | undefined {
  let shape: ResultShape = { fields: { ...SHARED_RESULT, ...fields } };
  let at = prefix;
  for (const segment of segments) {
    if (shape === 'any') return undefined;
    if (typeof shape === 'string')
      return { message: `\`${at}\` is ${SCALAR_NAMES[shape]}; it has no field \`${segment}\`` };
    if ('fields' in shape) {
      if (segment === '*') return undefined;
      const next: ResultShape | undefined = Object.hasOwn(shape.fields, segment)
        ? shape.fields[segment]
        : undefined;
      if (next == null) {
        const candidates = Object.keys(shape.fields);
        return {
          message:
            at === prefix
              ? `protocol ${protocol} has no result field \`${segment}\`; its fields are ${candidates.join(', ')}`
              : `\`${at}\` has no field \`${segment}\`; its fields are ${candidates.join(', ')}`,
          unknown: { key: segment, candidates },
        };
      }
      shape = next;
    } else if ('list' in shape) {
      // A list's `length` is readable (Handlebars resolves it), and ends the path.
      if (segment === 'length') shape = 'number';
      else if (segment !== '*' && !/^(?:0|[1-9]\d*)$/.test(segment))
        return { message: `\`${at}\` is a list: read an element by its index (\`${at}.0\`)` };
      else shape = shape.list;
    } else {
      shape = shape.map;
    }
    at = `${at}.${segment}`;
  }
  return undefined;
}
