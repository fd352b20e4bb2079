/**
 * Pre-parse pass over a template source: rewrites upstream's leading-dot paths (`.spec.x`) and
 * rejects Go `text/template` constructs with a suggested Handlebars rewrite (section 17.1).
 */

/** GoSyntaxProblem is a Go-template construct found in a template, with its offset and suggestion. */
export interface GoSyntaxProblem {
  /** 0-based offset of the construct in the source. */
  readonly offset: number;
  readonly message: string;
  readonly suggestion: string | undefined;
}

interface Token {
  readonly text: string;
  readonly offset: number;
}

interface Mustache {
  /** Offset of the first character after `{{` and any `{`, `~`, `&`. */
  readonly start: number;
  /** Offset of the closing `}}` (or `~}}`). */
  readonly end: number;
  readonly comment: boolean;
}

/** scanMustaches finds every `{{ … }}` of a source (comments included, escaped `\{{` excluded). */
function scanMustaches(source: string): Mustache[] {
  const out: Mustache[] = [];
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    if (open < 0) break;
    if (open > 0 && source[open - 1] === '\\' && source[open - 2] !== '\\') {
      i = open + 2;
      continue;
    }
    let start = open + 2;
    while (source[start] === '{') start++;
    if (source[start] === '~') start++;
    if (source.startsWith('!--', start)) {
      const close = source.indexOf('--', start + 3);
      const end = close < 0 ? source.length : source.indexOf('}}', close);
      out.push({ start, end: end < 0 ? source.length : end, comment: true });
      i = end < 0 ? source.length : end + 2;
      continue;
    }
    if (source[start] === '!') {
      const end = source.indexOf('}}', start);
      out.push({ start, end: end < 0 ? source.length : end, comment: true });
      i = end < 0 ? source.length : end + 2;
      continue;
    }
    let j = start;
    let quote: string | undefined;
    for (; j < source.length; j++) {
      const ch = source[j];
      if (quote != null) {
        if (ch === '\\') j++;
        else if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '}' && source[j + 1] === '}') break;
    }
    let end = j;
    if (source[end - 1] === '~') end--;
    out.push({ start, end, comment: false });
    i = j + 2;
  }
  return out;
}

/** tokenize splits mustache content into words, strings, `(`, `)` and `|`. */
function tokenize(source: string, start: number, end: number): Token[] {
  const tokens: Token[] = [];
  let i = start;
  while (i < end) {
    const ch = source[i] ?? '';
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')' || ch === '|') {
      tokens.push({ text: ch, offset: i });
      i++;
    } else if (ch === '"' || ch === "'") {
      let j = i + 1;
      while (j < end && source[j] !== ch) j += source[j] === '\\' ? 2 : 1;
      tokens.push({ text: source.slice(i, Math.min(j + 1, end)), offset: i });
      i = j + 1;
    } else {
      let j = i;
      while (j < end && !/[\s()|]/.test(source[j] ?? '')) j++;
      tokens.push({ text: source.slice(i, j), offset: i });
      i = j;
    }
  }
  return tokens;
}

const pathStart = /[\p{L}_]/u;
const dotPrecedes = new Set([' ', '\t', '\n', '\r', '(', '{', '~', '=', '#', '^', '&']);

/** numberBefore tells whether the token ending just before `end` is a number literal (`3` of `3.5`). */
function numberBefore(source: string, end: number): boolean {
  let start = end;
  while (start > 0 && !/[\s(=~{]/.test(source[start - 1] ?? '')) start--;
  return /^-?\d/.test(source.slice(start, end));
}

/**
 * rewriteLeadingDots adapts upstream path spellings for Handlebars: the leading dot of a path
 * (`{{ .spec.x }}`) becomes a space, so every column stays where it was (`.`, `./x` and `../x` are
 * kept), and a final numeric segment (`spec.ports.0`) becomes `spec.ports.[0]`, which Handlebars
 * would otherwise read as a number.
 */
export function rewriteLeadingDots(source: string): string {
  const edits: Array<readonly [number, number, string]> = [];
  for (const mustache of scanMustaches(source)) {
    if (mustache.comment) continue;
    let quote: string | undefined;
    for (let i = mustache.start; i < mustache.end; i++) {
      const ch = source[i];
      if (quote != null) {
        if (ch === '\\') i++;
        else if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") {
        quote = ch;
      } else if (ch === '.' && dotPrecedes.has(source[i - 1] ?? '') && pathStart.test(source[i + 1] ?? '')) {
        edits.push([i, i + 1, ' ']);
      } else if (ch === '.' && /[\p{L}\p{N}_\]]/u.test(source[i - 1] ?? '') && !numberBefore(source, i)) {
        const digits = /^\d+(?=[\s})~]|$)/.exec(source.slice(i + 1, mustache.end + 2));
        if (digits != null) {
          edits.push([i + 1, i + 1 + digits[0].length, `[${digits[0]}]`]);
          i += digits[0].length;
        }
      }
    }
  }
  let out = source;
  for (const [start, end, text] of edits.reverse()) out = out.slice(0, start) + text + out.slice(end);
  return out;
}

/** stripDots renders Go tokens as Handlebars expressions: `.spec.x` → `spec.x`, `$.x` → `@root.x`. */
function hbsToken(text: string): string {
  if (text.startsWith('$.')) return `@root.${text.slice(2)}`;
  if (text === '.') return 'this';
  if (text.startsWith('$')) return text.slice(1);
  if (text.startsWith('.') && pathStart.test(text[1] ?? '')) return text.slice(1);
  return text;
}

/** splitPipes splits tokens at top-level `|`. */
function splitPipes(tokens: readonly Token[]): Token[][] {
  const stages: Token[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.text === '(') depth++;
    if (token.text === ')') depth--;
    if (token.text === '|' && depth === 0) stages.push([]);
    else stages.at(-1)?.push(token);
  }
  return stages;
}

function joinTokens(tokens: readonly Token[]): string {
  return tokens
    .map((token) => hbsToken(token.text))
    .join(' ')
    .replace(/\( /g, '(')
    .replace(/ \)/g, ')');
}

function wrap(expr: string): string {
  return /\s/.test(expr) && !(expr.startsWith('(') && expr.endsWith(')')) ? `(${expr})` : expr;
}

/** goExpression turns a Go pipeline (`.x | default "y" | upper`) into a Handlebars expression. */
function goExpression(tokens: readonly Token[]): string {
  const [first = [], ...rest] = splitPipes(tokens);
  let expr = joinTokens(first);
  for (const stage of rest) {
    const [fn, ...args] = stage;
    if (fn == null) continue;
    // Go passes the piped value last; Orkestra's helpers take the value first.
    expr = [hbsToken(fn.text), wrap(expr), ...args.map((arg) => hbsToken(arg.text))].join(' ');
  }
  return expr;
}

function printfRewrite(args: readonly Token[]): string | undefined {
  const [format, ...values] = args;
  if (format == null || !format.text.startsWith('"')) return undefined;
  let index = 0;
  const body = format.text.slice(1, -1).replace(/%%|%[-+# 0]*\d*(?:\.\d+)?[sdvqfx]/g, (verb) => {
    if (verb === '%%') return '%';
    const value = values[index++];
    return value == null ? verb : `{{ ${hbsToken(value.text)} }}`;
  });
  return body;
}

const blockWords = new Set(['if', 'range', 'with']);

/**
 * findGoSyntax returns the first Go `text/template` construct in a source, or undefined. It knows
 * `{{ if }}`/`{{ range }}`/`{{ with }}`/`{{ end }}`, pipelines with `|`, `$variables`, `printf`,
 * `index`, `nil`, `define`/`template`/`block` and the `{{-`/`-}}` trim markers.
 */
export function findGoSyntax(source: string): GoSyntaxProblem | undefined {
  const open: string[] = [];
  for (const mustache of scanMustaches(source)) {
    if (mustache.comment) continue;
    const raw = source.slice(mustache.start, mustache.end);
    if (/^-\s/.test(raw) || /\s-$/.test(raw)) {
      const offset = /^-\s/.test(raw) ? mustache.start : mustache.end - 1;
      return {
        offset,
        message: 'Go-template trim marker "-" is not supported',
        suggestion: `{{~ ${goExpression(tokenize(raw.replace(/^-\s|\s-$/g, '  '), 0, raw.length))} ~}}`,
      };
    }
    const sigil = /^[#^/>&]/.test(raw) ? raw[0] : undefined;
    const tokens = tokenize(source, mustache.start + (sigil == null ? 0 : 1), mustache.end);
    const [head, ...args] = tokens;
    if (head == null) continue;
    if (sigil === '#') open.push(head.text);
    if (sigil === '/') open.pop();
    if (sigil == null && blockWords.has(head.text)) {
      return { offset: head.offset, ...goBlock(head.text, args) };
    }
    if (sigil == null && head.text === 'end' && args.length === 0) {
      const block = open.pop();
      return {
        offset: head.offset,
        message: 'Go-template "{{ end }}" is not supported',
        suggestion: block == null ? '{{/if}}, {{/each}} or {{/with}} to close the block' : `{{/${block}}}`,
      };
    }
    if (sigil == null && ['define', 'template', 'block'].includes(head.text) && args.length > 0) {
      return {
        offset: head.offset,
        message: `Go-template "{{ ${head.text} }}" is not supported`,
        suggestion: 'the template inline (Katalog templates have no named sub-templates)',
      };
    }
    const inBlockParams = sigil === '#' && tokens.some((token) => token.text === 'as');
    let afterAs = false;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      if (token == null) continue;
      if (token.text === 'as') afterAs = inBlockParams;
      const prev = tokens[i - 1];
      const first = i === 0 || prev?.text === '(';
      if (token.text === '|' && !afterAs) {
        return {
          offset: token.offset,
          message: 'Go-template pipelines with "|" are not supported',
          suggestion: `{{ ${goExpression(tokens)} }}`,
        };
      }
      if (token.text.startsWith('$') || token.text === ':=') {
        const suggestion = token.text.startsWith('$.')
          ? `${hbsToken(token.text)} to reach the top of the context`
          : 'block parameters ({{#each list as |item i|}}) or @root.<path> instead of variables';
        return {
          offset: token.offset,
          message: `Go-template variable "${token.text}" is not supported`,
          suggestion,
        };
      }
      if (token.text === 'printf' && first) {
        const rewrite = printfRewrite(tokens.slice(i + 1).filter((t) => t.text !== ')'));
        return {
          offset: token.offset,
          message: 'Go-template "printf" is not supported',
          suggestion: rewrite ?? 'the values inline in the text, e.g. {{ a }}-{{ b }}',
        };
      }
      if (token.text === 'index' && first && tokens.length - i > 2) {
        const [target, ...keys] = tokens.slice(i + 1).filter((t) => t.text !== ')');
        const expr = keys.reduce(
          (acc, key) => `(lookup ${acc} ${hbsToken(key.text)})`,
          hbsToken(target?.text ?? ''),
        );
        return {
          offset: token.offset,
          message: 'Go-template "index" is not supported',
          suggestion: `{{ ${expr.slice(1, -1)} }}`,
        };
      }
      if (token.text === 'nil') {
        return { offset: token.offset, message: 'Go-template "nil" is not supported', suggestion: 'null' };
      }
    }
  }
  return undefined;
}

function goBlock(word: string, args: readonly Token[]): { message: string; suggestion: string } {
  const message = `Go-template "{{ ${word} }}" is not supported`;
  if (word === 'range') {
    const assign = args.findIndex((token) => token.text === ':=');
    if (assign >= 0) {
      const names = args
        .slice(0, assign)
        .map((token) => token.text.replace(/[$,]/g, ''))
        .filter((name) => name !== '');
      const params = names.length === 2 ? `${names[1]} ${names[0]}` : names.join(' ');
      return {
        message,
        suggestion: `{{#each ${wrap(goExpression(args.slice(assign + 1)))} as |${params}|}} … {{/each}}`,
      };
    }
    return {
      message,
      suggestion: `{{#each ${wrap(goExpression(args))}}} … {{/each}} (inside, the element is "this")`,
    };
  }
  const tag = word === 'with' ? 'with' : 'if';
  return { message, suggestion: `{{#${tag} ${wrap(goExpression(args))}}} … {{else}} … {{/${tag}}}` };
}
