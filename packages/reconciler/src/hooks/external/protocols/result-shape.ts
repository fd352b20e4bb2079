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

/** AnswerProblem says where a scripted answer does not fit its protocol's result, and why. */
export interface AnswerProblem {
  /** The path inside the answer (`['rows', 0, 'n']`); empty for the answer itself. */
  readonly path: readonly (string | number)[];
  readonly message: string;
  /** The unknown key and the keys that exist there (for a "did you mean"). */
  readonly unknown?: { readonly key: string; readonly candidates: readonly string[] };
}

const SINGULAR = { text: 'a string', number: 'a number', boolean: 'a boolean', any: 'any value' } as const;
const PLURAL = { text: 'strings', number: 'numbers', boolean: 'booleans', any: 'values' } as const;

/** describeShape names a shape as a JSON reader would ("an array of objects"). */
function describeShape(shape: ResultShape): string {
  if (typeof shape === 'string') return SINGULAR[shape];
  if ('list' in shape) return `an array of ${plural(shape.list)}`;
  if ('map' in shape) return shape.map === 'any' ? 'an object' : `an object of ${plural(shape.map)}`;
  return `an object (fields ${Object.keys(shape.fields).join(', ')})`;
}

function plural(shape: ResultShape): string {
  if (typeof shape === 'string') return PLURAL[shape];
  return 'list' in shape ? 'arrays' : 'objects';
}

/** describeValue names what a value is ("a string", "an array", "null"). */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * answerProblem checks a scripted answer (`ork simulate`'s `context.external.<name>`) against a
 * protocol's result (`fields` plus the caller's `called`, `ok`, `error`, `durationMs`); undefined
 * when it fits. A key the protocol does not have is refused, a key left out is fine (the caller
 * fills it as for a real answer); an `any` part takes any value. Text is text: a real answer's
 * `result`, `count`, `lag` are strings, so a YAML number there is refused (quote it).
 */
export function answerProblem(
  protocol: string,
  fields: ResultFields,
  answer: unknown,
): AnswerProblem | undefined {
  return walkAnswer(protocol, { fields: { ...SHARED_RESULT, ...fields } }, answer, []);
}

function walkAnswer(
  protocol: string,
  shape: ResultShape,
  value: unknown,
  path: readonly (string | number)[],
): AnswerProblem | undefined {
  if (shape === 'any') return undefined;
  const mismatch = (): AnswerProblem => {
    const quote =
      shape === 'text' && (typeof value === 'number' || typeof value === 'boolean')
        ? ` (quote it: "${String(value)}")`
        : '';
    return { path, message: `must be ${describeShape(shape)}; got ${describeValue(value)}${quote}` };
  };
  if (shape === 'text') return typeof value === 'string' ? undefined : mismatch();
  if (shape === 'number') return typeof value === 'number' && Number.isFinite(value) ? undefined : mismatch();
  if (shape === 'boolean') return typeof value === 'boolean' ? undefined : mismatch();
  if ('list' in shape) {
    if (!Array.isArray(value)) return mismatch();
    for (const [index, item] of value.entries()) {
      const problem = walkAnswer(protocol, shape.list, item, [...path, index]);
      if (problem != null) return problem;
    }
    return undefined;
  }
  if (!isObject(value)) return mismatch();
  for (const [key, item] of Object.entries(value)) {
    let next: ResultShape;
    if ('map' in shape) next = shape.map;
    else if (Object.hasOwn(shape.fields, key)) next = shape.fields[key] as ResultShape;
    else {
      const candidates = Object.keys(shape.fields);
      return {
        path: [...path, key],
        message:
          path.length === 0
            ? `protocol ${protocol} has no result field \`${key}\`; its fields are ${candidates.join(', ')}`
            : `has no field \`${key}\`; its fields are ${candidates.join(', ')}`,
        unknown: { key, candidates },
      };
    }
    const problem = walkAnswer(protocol, next, item, [...path, key]);
    if (problem != null) return problem;
  }
  return undefined;
}
