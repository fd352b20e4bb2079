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

const blockWords = new Set(['if', 'range', 'with']);

/**
 * GoActionTranslator translates one Go action (`{{ .x | upper }}`) to a template that compiles and
 * renders the same value, or returns undefined when it cannot (a variable declared elsewhere).
 */
export type GoActionTranslator = (action: string) => string | undefined;

const readAsHandlebars = 'the template also uses Handlebars blocks, so it is read as Handlebars';

/**
 * findGoSyntax returns the first Go `text/template` construct in a template read as Handlebars
 * (one that mixes Handlebars blocks with Go actions), or undefined. It knows `{{ if }}`/
 * `{{ range }}`/`{{ with }}`/`{{ end }}`, pipelines with `|`, `$variables`, `index`,
 * `nil`, `define`/`template`/`block` and the `{{-`/`-}}` trim markers. The suggestion, when
 * there is one, is the action translated by `translate`: a template that renders the same value.
 */
export function findGoSyntax(
  source: string,
  translate: GoActionTranslator = () => undefined,
): GoSyntaxProblem | undefined {
  const open: string[] = [];
  for (const mustache of scanMustaches(source)) {
    if (mustache.comment) continue;
    const raw = source.slice(mustache.start, mustache.end);
    const action = (message: string, offset: number): GoSyntaxProblem => {
      // Trim markers become Handlebars' `~`, so the text around the hint is trimmed as Go trims it.
      const translated = translate(`{{${raw}}}`);
      const single = translated != null && /^\{\{ [^{}]*\}\}$/.test(translated);
      const suggestion = single
        ? `{{${/^-\s/.test(raw) ? '~' : ''}${translated.slice(2, -2)}${/\s-$/.test(raw) ? '~' : ''}}}`
        : translated;
      return suggestion == null
        ? { offset, message: `${message} (${readAsHandlebars}; it cannot be translated here)`, suggestion }
        : { offset, message: `${message} (${readAsHandlebars})`, suggestion };
    };
    if (/^-\s/.test(raw) || /\s-$/.test(raw)) {
      const offset = /^-\s/.test(raw) ? mustache.start : mustache.end - 1;
      return action('Go-template trim marker "-" is not supported', offset);
    }
    const sigil = /^[#^/>&]/.test(raw) ? raw[0] : undefined;
    const tokens = tokenize(source, mustache.start + (sigil == null ? 0 : 1), mustache.end);
    const [head, ...args] = tokens;
    if (head == null) continue;
    if (sigil === '#') open.push(head.text);
    if (sigil === '/') open.pop();
    if (sigil == null && (blockWords.has(head.text) || (head.text === 'end' && args.length === 0))) {
      const block = head.text === 'end' ? open.pop() : undefined;
      const close = block == null ? '' : `: Go's {{ end }} cannot close Handlebars' {{#${block}}}`;
      return {
        offset: head.offset,
        message: `Go-template "{{ ${head.text} }}" is not supported${close} (${readAsHandlebars}: a template is written in one of the two languages)`,
        suggestion: undefined,
      };
    }
    if (sigil == null && ['define', 'template', 'block'].includes(head.text) && args.length > 0) {
      return {
        offset: head.offset,
        message: `Go-template "{{ ${head.text} }}" cannot be translated: Katalog templates have no named sub-templates, so write the template inline`,
        suggestion: undefined,
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
      if (token.text === '|' && !afterAs)
        return action('Go-template pipelines with "|" are not supported', token.offset);
      if (token.text.startsWith('$') || token.text === ':=')
        return action(`Go-template variable "${token.text}" is not supported`, token.offset);
      if (token.text === 'index' && first && tokens.length - i > 2)
        return action('Go-template "index" is not supported', token.offset);
      if (token.text === 'nil') return action('Go-template "nil" is not supported', token.offset);
    }
  }
  return undefined;
}
