/**
 * The query of a `protocol: mongo` call (docs/reference/katalog.md §15.1.1, ADR 0059), upstream's
 * grammar: `<database>.<collection>` and, after a space, an optional filter document in JSON
 * (`shop.orders {"status": "open", "owner": "$1"}`). The query is literal; a CR value reaches the
 * filter only through `params`: a string leaf written exactly `$1` … `$64` is replaced by that
 * parameter, as a string value, so a CR value never becomes a key or an operator. Server-side
 * JavaScript (`$where`, `$function`, `$accumulator`) is refused, and so is a parameter anywhere
 * under an operator that would read it as code or a pattern (`$regex`, `$options`, `$expr`,
 * `$jsonSchema`).
 */

/** ParsedMongoQuery is a parsed `protocol: mongo` query. */
export interface ParsedMongoQuery {
  readonly database: string;
  readonly collection: string;
  /** The filter with every placeholder replaced (the placeholders themselves when no params were given). */
  readonly filter: Readonly<Record<string, unknown>>;
  /** The highest placeholder used (`$3` → 3), 0 without one. */
  readonly placeholders: number;
}

/** MongoQueryParse is a parsed query or why it is refused. */
export type MongoQueryParse =
  { readonly ok: true; readonly query: ParsedMongoQuery } | { readonly ok: false; readonly error: string };

const PLACEHOLDER = /^\$([1-9]\d?)$/;
const JAVASCRIPT_OPERATORS = new Set(['$where', '$function', '$accumulator']);
const CODE_OPERATORS = new Set(['$regex', '$options', '$expr', '$jsonSchema']);
const DATABASE = /^[A-Za-z0-9_-]{1,63}$/;
const COLLECTION = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/;

/**
 * parseMongoQuery reads a `protocol: mongo` query; with `params`, it replaces the placeholders by
 * them (a placeholder past the end of `params` is refused); without, it leaves them in place (the
 * load-time check).
 */
export function parseMongoQuery(text: string, params?: readonly string[]): MongoQueryParse {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  const name = space === -1 ? trimmed : trimmed.slice(0, space);
  const filterText = space === -1 ? '' : trimmed.slice(space).trim();
  const dot = name.indexOf('.');
  const database = dot === -1 ? '' : name.slice(0, dot);
  const collection = dot === -1 ? '' : name.slice(dot + 1);
  if (!DATABASE.test(database) || !COLLECTION.test(collection))
    return {
      ok: false,
      error: `expected "<database>.<collection>" and an optional JSON filter, got ${JSON.stringify(name)}`,
    };
  if (collection.startsWith('system.'))
    return { ok: false, error: `collection ${collection} is a system collection` };
  let filter: unknown = {};
  if (filterText !== '') {
    try {
      filter = JSON.parse(filterText) as unknown;
    } catch (error) {
      return {
        ok: false,
        error: `the filter is not JSON (${error instanceof Error ? error.message : String(error)})`,
      };
    }
  }
  if (filter == null || typeof filter !== 'object' || Array.isArray(filter))
    return { ok: false, error: 'the filter must be a JSON object' };
  let highest = 0;
  const problems: string[] = [];
  const walk = (value: unknown, inCode: string | undefined): unknown => {
    if (typeof value === 'string') {
      const match = PLACEHOLDER.exec(value);
      if (match == null) return value;
      const index = Number(match[1]);
      highest = Math.max(highest, index);
      if (inCode != null) {
        problems.push(
          `a parameter (${value}) cannot be the operand of ${inCode}: a CR value is never code or a pattern`,
        );
        return value;
      }
      if (params == null) return value;
      const bound = params[index - 1];
      if (bound == null) {
        problems.push(`${value} names a parameter that \`params\` does not have`);
        return value;
      }
      return bound;
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, inCode));
    if (value != null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        if (JAVASCRIPT_OPERATORS.has(key))
          problems.push(`${key} runs JavaScript on the server and is refused`);
        out[key] = walk(item, inCode ?? (CODE_OPERATORS.has(key) ? key : undefined));
      }
      return out;
    }
    return value;
  };
  const bound = walk(filter, undefined) as Record<string, unknown>;
  if (problems.length > 0) return { ok: false, error: problems[0] ?? '' };
  return { ok: true, query: { database, collection, filter: bound, placeholders: highest } };
}
