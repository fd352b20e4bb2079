/**
 * The columns a literal SELECT answers with, read from its select list (docs/reference/katalog.md
 * §17.5): what `--strict` and `ork simulate` check `rows.<i>.<column>` against. Only a list whose
 * every item names its column plainly is read — `expr AS name`, a column reference (`t.pending`),
 * a lone function call (`count(*)` is `count`), each named as PostgreSQL names it (an unquoted name
 * folds to lower case, a quoted one keeps its case). Anything else (`*`, `t.*`, an expression
 * without `AS`, `WITH`, `VALUES`, a set operation) leaves the columns open: undefined.
 */

/** One token of a select list: a word, a quoted name, a string or a symbol. */
interface Token {
  readonly kind: 'word' | 'quoted' | 'string' | 'symbol';
  readonly text: string;
  /** Parenthesis depth before the token. */
  readonly depth: number;
}

const CLAUSE_ENDS = new Set([
  'from',
  'where',
  'group',
  'having',
  'window',
  'order',
  'limit',
  'offset',
  'fetch',
  'for',
]);
/** Words after which the statement is not a plain select list: the columns stay open. */
const OPEN_ENDS = new Set(['into', 'union', 'intersect', 'except']);
/** Literal keywords and call-like forms whose column name is not their own word. */
const NOT_A_NAME = new Set(['true', 'false', 'null', 'cast', 'treat', 'case', 'select', 'exists', 'not']);

function tokenize(sql: string): Token[] | undefined {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (/\s/.test(c)) i++;
    else if (sql.startsWith('--', i)) i = sql.indexOf('\n', i) === -1 ? sql.length : sql.indexOf('\n', i);
    else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) return undefined;
      i = end + 2;
    } else if (c === '"' || c === "'") {
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) return undefined;
        if (sql[j] === c) {
          if (sql[j + 1] === c) {
            text += c;
            j += 2;
            continue;
          }
          break;
        }
        text += sql[j];
        j++;
      }
      tokens.push({ kind: c === '"' ? 'quoted' : 'string', text, depth });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'word', text: word, depth });
      i += word.length;
    } else if (c === '$' && /^\$[A-Za-z_]*\$/.test(sql.slice(i))) {
      return undefined; // a dollar-quoted string: not read
    } else {
      if (c === ')') depth--;
      tokens.push({ kind: 'symbol', text: c, depth });
      if (c === '(') depth++;
      if (depth < 0) return undefined;
      i++;
    }
  }
  return tokens;
}

/** nameOf is a name token as PostgreSQL names the column (unquoted folds to lower case). */
function nameOf(token: Token | undefined): string | undefined {
  if (token?.kind === 'quoted') return token.text;
  if (token?.kind === 'word' && !NOT_A_NAME.has(token.text.toLowerCase())) return token.text.toLowerCase();
  return undefined;
}

/** columnOf is the column name of one select-list item, or undefined when it is not plain. */
function columnOf(item: readonly Token[]): string | undefined {
  const last = item.at(-1);
  const before = item.at(-2);
  if (item.length >= 3 && before?.kind === 'word' && before.text.toLowerCase() === 'as') return nameOf(last);
  // A column reference: name, or name.name…; `t.*` stays open.
  const reference =
    item.length % 2 === 1 &&
    item.every((t, i) => (i % 2 === 1 ? t.kind === 'symbol' && t.text === '.' : nameOf(t) != null));
  if (reference) return nameOf(last);
  // A lone function call `[schema.]name(…)`: its column is the function's name.
  const open = item.findIndex((t) => t.kind === 'symbol' && t.text === '(');
  if (open < 1 || last?.kind !== 'symbol' || last.text !== ')' || last.depth !== item[0]?.depth)
    return undefined;
  const closes = item.findIndex(
    (t, i) => i > open && t.kind === 'symbol' && t.text === ')' && t.depth === last.depth,
  );
  if (closes !== item.length - 1) return undefined;
  const head = item.slice(0, open);
  const qualified =
    head.length % 2 === 1 &&
    head.every((t, i) => (i % 2 === 1 ? t.kind === 'symbol' && t.text === '.' : t.kind === 'word'));
  return qualified ? nameOf(head.at(-1)) : undefined;
}

/**
 * selectColumns is the columns a literal `SELECT` answers with, in order, or undefined when its
 * select list does not name them all plainly.
 *
 * @example
 * selectColumns('SELECT count(*) AS Pending, max(at) FROM jobs'); // ['pending', 'max']
 * selectColumns('SELECT * FROM jobs'); // undefined
 */
export function selectColumns(sql: string): readonly string[] | undefined {
  const tokens = tokenize(sql);
  if (tokens == null || tokens[0]?.kind !== 'word' || tokens[0].text.toLowerCase() !== 'select')
    return undefined;
  let at = 1;
  const word = (i: number): string | undefined =>
    tokens[i]?.kind === 'word' ? tokens[i].text.toLowerCase() : undefined;
  if (word(at) === 'all') at++;
  else if (word(at) === 'distinct') {
    at++;
    if (word(at) === 'on') return undefined;
  }
  const items: Token[][] = [[]];
  for (; at < tokens.length; at++) {
    const token = tokens[at] as Token;
    const lower = token.kind === 'word' ? token.text.toLowerCase() : undefined;
    if (token.depth === 0 && lower != null && OPEN_ENDS.has(lower)) return undefined;
    if (token.depth === 0 && lower != null && CLAUSE_ENDS.has(lower)) break;
    if (token.depth === 0 && token.kind === 'symbol' && token.text === ';') break;
    if (token.depth === 0 && token.kind === 'symbol' && token.text === ',') items.push([]);
    else items.at(-1)?.push(token);
  }
  // A set operation after the FROM clause changes nothing about the names, but keep it open.
  if (tokens.some((t) => t.depth === 0 && t.kind === 'word' && OPEN_ENDS.has(t.text.toLowerCase())))
    return undefined;
  const columns: string[] = [];
  for (const item of items) {
    const column = item.length === 0 ? undefined : columnOf(item);
    if (column == null) return undefined;
    columns.push(column);
  }
  return columns;
}
