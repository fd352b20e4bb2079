import {
  GO_BUILTINS,
  GO_INDEX_HELPER,
  GO_RANGE_HELPER,
  GO_TRUTH_HELPER,
  goFloatText,
} from './upstream-helpers.js';
import { GO_WORD_NOTES } from './upstream-kube-notes.js';

/**
 * Go `text/template` support (docs/reference/katalog.md §17.1.1): a lexer and recursive-descent
 * parser for the Go template language as upstream Katalogs write it, and a compiler from its tree
 * to Handlebars source for our engine. Go semantics kept: `.` is the current context (changed by
 * `range` and `with`, as Handlebars' `this` is), `$` is the root, `$x := …` variables, pipelines,
 * a parenthesised pipeline as any operand with fields after it (`(index .m "k").status`), Go's
 * truth and built-ins (`and`/`or` give an operand, `eq` takes several), `else if`, trim markers.
 *
 * Not supported, with an error that says so plainly: `define`/`template`/`block`, `break`/
 * `continue`, variable re-assignment (`$x = …`), `call`, and method calls on values.
 */

/**
 * GoTemplateError is a Go template that cannot be parsed or translated, with its 0-based offset.
 * A `suggestion`, when there is one, is a template that compiles and renders the same value.
 */
export class GoTemplateError extends Error {
  override readonly name: string = 'GoTemplateError';
  readonly offset: number;
  readonly suggestion: string | undefined;

  constructor(message: string, offset: number, suggestion?: string) {
    super(message);
    this.offset = offset;
    this.suggestion = suggestion;
  }
}

// ---- detection ------------------------------------------------------------------------------------------

const GO_ACTION =
  /\{\{-?\s*(?:if\s|range\s|with\s|else\b|end\s*-?\}\}|\/\*|break\b|continue\b|define\s|template\s|block\s|\$|index\s+[^\s}]|printf\s|print\s+[^\s}])|\{\{-\s|\s-\}\}|:=/;
const HANDLEBARS_ONLY = /\{\{~?\s*[#^/!>&](?!\*)|\{\{\{/;
/**
 * Go-only operands anywhere in an action: a field of a parenthesised result (`(…).status`), a
 * variable, `nil`, a number only Go writes (`0x1F`, `1_000`, `1e3`, `.5`).
 */
const GO_OPERAND =
  /\)\.[\p{L}_]|(?:^|[\s(])\$|(?:^|[\s(])nil(?=[\s)]|$)|(?:^|[\s(])[-+]?(?:0[xXoObB][\da-fA-F_]|\d[\d_]*_\d|\d+(?:\.\d+)?[eE][-+]?\d|\.\d)/u;
/**
 * A call of one of Go's built-ins (`index`, `printf`, `not`, `slice`, `html`, …) or a parenthesised
 * pipeline: Go's, when the action reads Go paths (`.x`), since some mean something else in the library.
 */
const GO_CALL =
  /(?:^-?\s*|\(\s*)(?:and|or|not|eq|ne|lt|le|gt|ge|len|index|slice|print|printf|println|html|js|urlquery|call)\s|^-?\s*\(/;
/** A Go path operand: `.x` after a space or `(`. */
const GO_PATH = /(?:^|[\s(])\.[\p{L}_]/u;

/**
 * isGoTemplate tells whether a source is written in Go `text/template` syntax rather than
 * Handlebars: it uses no Handlebars block syntax (`{{#…}}`, `{{/…}}`) and a Go-only construct
 * (`{{ if }}`, `{{ end }}`, `{{ range }}`, `$x`, `:=`, `|` pipelines, `(…).field`, raw strings,
 * trim markers `{{-`/`-}}`, comments), or calls a Go built-in (`index`, `printf`, `and`, `not`, …)
 * or a parenthesised pipeline on Go paths (`.x`). Other sources in the common subset
 * (`{{ .spec.x }}`, `{{ default .a "b" }}`) are read as Handlebars: both languages mean the same.
 */
export function isGoTemplate(source: string): boolean {
  if (!source.includes('{{') || HANDLEBARS_ONLY.test(source)) return false;
  if (GO_ACTION.test(source)) return true;
  for (const action of source.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
    const text = action[1] ?? '';
    if (text.replace(/"(?:\\.|[^"\\])*"/g, '""').includes('`')) return true;
    const body = text.replace(/"(?:\\.|[^"\\])*"|`[^`]*`/g, '""');
    // A top-level `|` inside an action (outside strings) is a Go pipeline.
    if (/\|/.test(body) && !/\bas\s*\|/.test(body)) return true;
    if (GO_OPERAND.test(body)) return true;
    if (GO_CALL.test(body) && GO_PATH.test(body)) return true;
    // Go's built-ins the library does not have, called with arguments.
    if (/(?:^-?\s*|\(\s*)(?:slice|html|js|urlquery|println|call)\s+[^\s)]/.test(body)) return true;
  }
  return false;
}

// ---- lexer ------------------------------------------------------------------------------------------------

/** A Go number constant: decimal, hex, octal, binary (with `_` separators), or a decimal float. */
const NUMBER =
  /^[-+]?(?:0[xX][\da-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?)/;

type TokenKind =
  | 'text'
  | 'open'
  | 'close'
  | 'field'
  | 'variable'
  | 'dot'
  | 'string'
  | 'number'
  | 'ident'
  | 'lparen'
  | 'rparen'
  | 'pipe'
  | 'declare'
  | 'assign'
  | 'comma'
  | 'eof';

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly value?: string;
  readonly offset: number;
}

/** A backslash escape of a Go string or character constant. */
const ESCAPE = /^\\(?:x[\da-fA-F]{2}|u[\da-fA-F]{4}|U[\da-fA-F]{8}|[0-7]{3}|.)/;

const CHAR_ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
};

/** charCode is the value of a Go character constant's body (`a`, `\n`, `\x41`, `\u00e9`, `\101`). */
function charCode(body: string): number {
  if (!body.startsWith('\\')) return body.codePointAt(0) ?? 0;
  const rest = body.slice(1);
  if (/^[xuU]/.test(rest)) return Number.parseInt(rest.slice(1), 16);
  if (/^[0-7]{3}$/.test(rest)) return Number.parseInt(rest, 8);
  return CHAR_ESCAPES[rest] ?? rest.codePointAt(0) ?? 0;
}

function lex(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let trimNext = false;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    const textEnd = open < 0 ? source.length : open;
    let text = source.slice(i, textEnd);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    const trimBefore = open >= 0 && source[open + 2] === '-' && /\s/.test(source[open + 3] ?? '');
    if (trimBefore) text = text.replace(/\s+$/, '');
    if (text !== '') tokens.push({ kind: 'text', text, offset: i });
    if (open < 0) break;
    let j = open + 2 + (trimBefore ? 2 : 0);
    // Comments: {{/* … */}} with optional trim markers.
    const afterSpace = source.slice(j).match(/^\s*/)?.[0].length ?? 0;
    if (source.startsWith('/*', j + (trimBefore ? 0 : 0)) || source.startsWith('/*', j + afterSpace)) {
      const start = source.indexOf('/*', j);
      const end = source.indexOf('*/', start + 2);
      if (end < 0) throw new GoTemplateError('unclosed comment', open);
      let k = end + 2;
      while (/\s/.test(source[k] ?? '')) k++;
      if (source[k] === '-' && source[k + 1] === '}' && source[k + 2] === '}') {
        trimNext = true;
        k++;
      }
      if (!source.startsWith('}}', k))
        throw new GoTemplateError('comment ends with */ but no }} follows', end);
      i = k + 2;
      continue;
    }
    tokens.push({ kind: 'open', text: '{{', offset: open });
    for (;;) {
      while (/\s/.test(source[j] ?? '')) {
        if (source[j] === '-' || j >= source.length) break;
        j++;
      }
      if (j >= source.length) throw new GoTemplateError('unclosed action: missing }}', open);
      const ch = source[j] ?? '';
      if (ch === '-' && source[j + 1] === '}' && source[j + 2] === '}' && /\s/.test(source[j - 1] ?? '')) {
        trimNext = true;
        tokens.push({ kind: 'close', text: '}}', offset: j });
        j += 3;
        break;
      }
      if (ch === '}' && source[j + 1] === '}') {
        tokens.push({ kind: 'close', text: '}}', offset: j });
        j += 2;
        break;
      }
      if (ch === '(' || ch === ')' || ch === '|' || ch === ',') {
        const kind = ch === '(' ? 'lparen' : ch === ')' ? 'rparen' : ch === '|' ? 'pipe' : 'comma';
        tokens.push({ kind, text: ch, offset: j });
        j++;
      } else if (ch === ':' && source[j + 1] === '=') {
        tokens.push({ kind: 'declare', text: ':=', offset: j });
        j += 2;
      } else if (ch === '=') {
        tokens.push({ kind: 'assign', text: '=', offset: j });
        j++;
      } else if (ch === '"') {
        let k = j + 1;
        let value = '';
        while (k < source.length && source[k] !== '"') {
          if (source[k] === '\\') {
            const escape = ESCAPE.exec(source.slice(k))?.[0] ?? source.slice(k, k + 2);
            value += String.fromCodePoint(charCode(escape));
            k += escape.length;
          } else {
            value += source[k];
            k++;
          }
        }
        if (k >= source.length) throw new GoTemplateError('unterminated string', j);
        tokens.push({ kind: 'string', text: source.slice(j, k + 1), value, offset: j });
        j = k + 1;
      } else if (ch === '`') {
        const end = source.indexOf('`', j + 1);
        if (end < 0) throw new GoTemplateError('unterminated raw string', j);
        tokens.push({
          kind: 'string',
          text: source.slice(j, end + 1),
          value: source.slice(j + 1, end),
          offset: j,
        });
        j = end + 1;
      } else if (ch === "'") {
        const m = /^'(\\(?:x[\da-fA-F]{2}|u[\da-fA-F]{4}|U[\da-fA-F]{8}|[0-7]{3}|.)|[^'\\])'/u.exec(
          source.slice(j),
        );
        if (m == null) throw new GoTemplateError('bad character constant', j);
        tokens.push({ kind: 'number', text: String(charCode(m[1] ?? '')), offset: j });
        j += m[0].length;
      } else if (
        /[-+\d]/.test(ch) &&
        /[\d.]/.test(ch === '-' || ch === '+' ? (source[j + 1] ?? '') : ch) &&
        NUMBER.test(source.slice(j))
      ) {
        const text = NUMBER.exec(source.slice(j))?.[0] ?? ch;
        tokens.push({ kind: 'number', text, offset: j });
        j += text.length;
      } else if (ch === '.' && /\d/.test(source[j + 1] ?? '')) {
        const text = NUMBER.exec(source.slice(j))?.[0] ?? ch;
        tokens.push({ kind: 'number', text, offset: j });
        j += text.length;
      } else if (ch === '@' && /^@root(?![\p{L}\p{N}_])/u.test(source.slice(j))) {
        // Handlebars' `@root` (in a translated template read again) is Go's `$`.
        const m = /^@root((?:\.[\p{L}_][\p{L}\p{N}_]*)*)/u.exec(source.slice(j));
        const rest = m?.[1] ?? '';
        tokens.push({ kind: 'variable', text: `$${rest}`, offset: j });
        j += 5 + rest.length;
      } else if (ch === '.' || ch === '$') {
        const m = /^(?:\$[\p{L}\p{N}_]*|)(?:\.[\p{L}_][\p{L}\p{N}_]*)*/u.exec(source.slice(j));
        let text = m?.[0] ?? '';
        if (text === '' && ch === '.') text = '.';
        const kind: TokenKind = text.startsWith('$') ? 'variable' : text === '.' ? 'dot' : 'field';
        tokens.push({ kind, text, offset: j });
        j += text.length;
      } else if (/[\p{L}_]/u.test(ch)) {
        const m = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(source.slice(j));
        const text = m?.[0] ?? ch;
        tokens.push({ kind: 'ident', text, offset: j });
        j += text.length;
        // A field chain right after a parenthesis or identifier is not Go syntax we accept.
      } else {
        throw new GoTemplateError(`unexpected ${JSON.stringify(ch)} in action`, j);
      }
    }
    i = j;
  }
  tokens.push({ kind: 'eof', text: '', offset: source.length });
  return tokens;
}

// ---- parser ------------------------------------------------------------------------------------------------

type Operand =
  | { readonly kind: 'field'; readonly path: readonly string[]; readonly offset: number }
  | {
      readonly kind: 'variable';
      readonly name: string;
      readonly path: readonly string[];
      readonly offset: number;
    }
  | { readonly kind: 'dot'; readonly offset: number }
  | { readonly kind: 'string'; readonly value: string; readonly offset: number }
  | { readonly kind: 'number'; readonly text: string; readonly offset: number }
  | { readonly kind: 'bool'; readonly value: boolean; readonly offset: number }
  | { readonly kind: 'nil'; readonly offset: number }
  | { readonly kind: 'ident'; readonly name: string; readonly offset: number }
  | {
      readonly kind: 'paren';
      readonly pipeline: Pipeline;
      readonly path: readonly string[];
      readonly offset: number;
    };

interface Command {
  readonly args: readonly Operand[];
  readonly offset: number;
}

interface Pipeline {
  readonly declare: readonly string[];
  readonly commands: readonly Command[];
  readonly offset: number;
}

type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'action'; readonly pipeline: Pipeline }
  | {
      readonly kind: 'if' | 'with';
      readonly branches: readonly { readonly pipeline: Pipeline; readonly body: readonly Node[] }[];
      readonly otherwise: readonly Node[] | undefined;
    }
  | {
      readonly kind: 'range';
      readonly pipeline: Pipeline;
      readonly body: readonly Node[];
      readonly otherwise: readonly Node[] | undefined;
    };

class Parser {
  readonly #tokens: Token[];
  #at = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  #peek(n = 0): Token {
    return this.#tokens[this.#at + n] ?? (this.#tokens.at(-1) as Token);
  }

  #next(): Token {
    const token = this.#peek();
    this.#at++;
    return token;
  }

  #expect(kind: TokenKind, what: string): Token {
    const token = this.#next();
    if (token.kind !== kind)
      throw new GoTemplateError(`expected ${what}, got ${describeToken(token)}`, token.offset);
    return token;
  }

  parseTemplate(): Node[] {
    const { nodes, end } = this.#list();
    if (end != null) throw new GoTemplateError(`unexpected {{ ${end.word} }}`, end.offset);
    return nodes;
  }

  /** #list parses nodes up to `{{ end }}`, `{{ else … }}` or the end of input. */
  #list(): { nodes: Node[]; end: { word: 'end' | 'else'; offset: number } | undefined } {
    const nodes: Node[] = [];
    for (;;) {
      const token = this.#peek();
      if (token.kind === 'eof') return { nodes, end: undefined };
      if (token.kind === 'text') {
        this.#next();
        nodes.push({ kind: 'text', text: token.text });
        continue;
      }
      this.#expect('open', '{{');
      const head = this.#peek();
      if (head.kind === 'ident') {
        switch (head.text) {
          case 'end':
            this.#next();
            this.#expect('close', '}}');
            return { nodes, end: { word: 'end', offset: head.offset } };
          case 'else':
            this.#next();
            return { nodes, end: { word: 'else', offset: head.offset } };
          case 'if':
          case 'with':
            this.#next();
            nodes.push(this.#conditional(head.text));
            continue;
          case 'range':
            this.#next();
            nodes.push(this.#range());
            continue;
          case 'define':
          case 'template':
          case 'block':
            throw new GoTemplateError(
              `Go-template "{{ ${head.text} }}" cannot be translated: Katalog templates have no named sub-templates, so write the template inline`,
              head.offset,
            );
          case 'break':
          case 'continue':
            throw new GoTemplateError(
              `Go-template "{{ ${head.text} }}" cannot be translated: a range cannot stop early here, so put the rest of its body under a condition`,
              head.offset,
            );
          default:
            break;
        }
      }
      const pipeline = this.#pipeline(true);
      this.#expect('close', '}}');
      nodes.push({ kind: 'action', pipeline });
    }
  }

  #conditional(word: 'if' | 'with'): Node {
    const branches: { pipeline: Pipeline; body: Node[] }[] = [];
    let pipeline = this.#pipeline(true);
    this.#expect('close', '}}');
    for (;;) {
      const { nodes, end } = this.#list();
      branches.push({ pipeline, body: nodes });
      if (end == null) throw new GoTemplateError(`{{ ${word} }} has no {{ end }}`, pipeline.offset);
      if (end.word === 'end') return { kind: word, branches, otherwise: undefined };
      // else, else if, else with
      const next = this.#peek();
      if (next.kind === 'ident' && next.text === word) {
        this.#next();
        pipeline = this.#pipeline(true);
        this.#expect('close', '}}');
        continue;
      }
      this.#expect('close', '}}');
      const rest = this.#list();
      if (rest.end?.word !== 'end')
        throw new GoTemplateError(`{{ ${word} }} has no {{ end }}`, pipeline.offset);
      return { kind: word, branches, otherwise: rest.nodes };
    }
  }

  #range(): Node {
    const pipeline = this.#pipeline(true);
    this.#expect('close', '}}');
    const { nodes, end } = this.#list();
    if (end == null) throw new GoTemplateError('{{ range }} has no {{ end }}', pipeline.offset);
    if (end.word === 'end') return { kind: 'range', pipeline, body: nodes, otherwise: undefined };
    this.#expect('close', '}}');
    const rest = this.#list();
    if (rest.end?.word !== 'end') throw new GoTemplateError('{{ range }} has no {{ end }}', pipeline.offset);
    return { kind: 'range', pipeline, body: nodes, otherwise: rest.nodes };
  }

  #pipeline(allowDeclare: boolean): Pipeline {
    const offset = this.#peek().offset;
    const declare: string[] = [];
    if (allowDeclare && this.#peek().kind === 'variable') {
      // `$x :=`, `$i, $v :=` or `$x =`
      let n = 0;
      const names: string[] = [];
      while (this.#peek(n).kind === 'variable' && !this.#peek(n).text.includes('.')) {
        names.push(this.#peek(n).text);
        if (this.#peek(n + 1).kind === 'comma') n += 2;
        else {
          n++;
          break;
        }
      }
      const after = this.#peek(n);
      if (after.kind === 'declare') {
        this.#at += n + 1;
        declare.push(...names);
      } else if (after.kind === 'assign') {
        throw new GoTemplateError(
          `Go-template assignment "${names.join(', ')} =" cannot be translated: a variable cannot change after it is declared, so declare a new one ($y := …)`,
          after.offset,
        );
      }
    }
    const commands: Command[] = [this.#command()];
    while (this.#peek().kind === 'pipe') {
      this.#next();
      commands.push(this.#command());
    }
    return { declare, commands, offset };
  }

  #command(): Command {
    const offset = this.#peek().offset;
    const args: Operand[] = [];
    for (;;) {
      const token = this.#peek();
      if (['close', 'pipe', 'rparen', 'eof'].includes(token.kind)) break;
      args.push(this.#operand());
    }
    if (args.length === 0)
      throw new GoTemplateError(`missing value in ${describeToken(this.#peek())}`, offset);
    return { args, offset };
  }

  #operand(): Operand {
    const token = this.#next();
    switch (token.kind) {
      case 'field':
        return { kind: 'field', path: token.text.slice(1).split('.'), offset: token.offset };
      case 'dot':
        return { kind: 'dot', offset: token.offset };
      case 'variable': {
        const [name = '$', ...path] = token.text.split('.');
        return { kind: 'variable', name, path, offset: token.offset };
      }
      case 'string':
        return { kind: 'string', value: token.value ?? '', offset: token.offset };
      case 'number':
        return { kind: 'number', text: token.text, offset: token.offset };
      case 'ident':
        if (token.text === 'true' || token.text === 'false')
          return { kind: 'bool', value: token.text === 'true', offset: token.offset };
        if (token.text === 'nil') return { kind: 'nil', offset: token.offset };
        // A Handlebars path without the leading dot (`item.name`) beside Go ones: read as `.item.name`.
        if (this.#peek().kind === 'field' && this.#peek().offset === token.offset + token.text.length) {
          const rest = this.#next().text.slice(1).split('.');
          return { kind: 'field', path: [token.text, ...rest], offset: token.offset };
        }
        return { kind: 'ident', name: token.text, offset: token.offset };
      case 'lparen': {
        const pipeline = this.#pipeline(true);
        this.#expect('rparen', ')');
        const chain = this.#peek();
        let path: string[] = [];
        if (chain.kind === 'field' && chain.offset === this.#tokens[this.#at - 1]!.offset + 1) {
          this.#next();
          path = chain.text.slice(1).split('.');
        }
        return { kind: 'paren', pipeline, path, offset: token.offset };
      }
      default:
        throw new GoTemplateError(`unexpected ${describeToken(token)}`, token.offset);
    }
  }
}

function describeToken(token: Token): string {
  if (token.kind === 'eof') return 'end of template';
  if (token.kind === 'close') return '}}';
  return JSON.stringify(token.text);
}

// ---- compiler to Handlebars ----------------------------------------------------------------------------------

/** TranslateOptions let the translator check helper names against the engine's library. */
export interface TranslateOptions {
  /** Tells whether a function name is a helper of the engine. */
  readonly isHelper: (name: string) => boolean;
}

/**
 * Helpers whose value comes first in upstream's library (`default val def`): a pipeline
 * `.x | default "y"` passes `.x` as that value, which is what upstream's documentation means by it.
 * Every other function gets the piped value last, as Go does.
 */
const VALUE_FIRST = new Set([
  'default',
  'getOr',
  'getStringOr',
  'getIntOr',
  'getBoolOr',
  'boolDefault',
  'trunc',
  'replace',
  'split',
  'join',
  'contains',
  'hasPrefix',
  'hasSuffix',
]);

/**
 * Functions a Go template may call that have no translation, with why: the error says so plainly
 * (there is no template that renders the same value).
 */
const UNTRANSLATABLE: Readonly<Record<string, string>> = {
  call: 'data cannot hold functions',
  nindent: 'rendered text is not re-indented; give the field as YAML structure instead',
  indent: 'rendered text is not re-indented; give the field as YAML structure instead',
  include: 'there are no named sub-templates; write the template inline',
  tpl: 'a value is not rendered as a template; write the template inline',
  required: 'a template cannot deny a CR; use a validation rule (validation.rules)',
  fail: 'a template cannot deny a CR; use a validation rule (validation.rules)',
};

/** Calls whose result is already a boolean with Go's meaning: a condition on them needs no truth test. */
const BOOLEAN_CALLS = /^\((?:eq|ne|lt|le|gt|ge|__goEq|__goNot) /;

interface Variable {
  /** A block parameter of #each (visible at any depth), or an expression defined at `depth`. */
  readonly kind: 'param' | 'expr';
  readonly param?: string;
  readonly pipeline?: Pipeline;
  readonly depth: number;
  readonly scope: Scope;
}

interface Scope {
  readonly depth: number;
  readonly vars: Map<string, Variable>;
}

let paramCounter = 0;

class Compiler {
  readonly #options: TranslateOptions;

  constructor(options: TranslateOptions) {
    this.#options = options;
  }

  nodes(nodes: readonly Node[], scope: Scope): string {
    let out = '';
    for (const node of nodes) out += this.node(node, scope);
    return out;
  }

  node(node: Node, scope: Scope): string {
    switch (node.kind) {
      case 'text':
        return node.text.replace(/\\(?=\{\{)/g, '\\\\');
      case 'action': {
        if (node.pipeline.declare.length > 0) {
          const name = node.pipeline.declare[0] ?? '$';
          if (node.pipeline.declare.length > 1)
            throw new GoTemplateError('only range declares two variables', node.pipeline.offset);
          scope.vars.set(name, {
            kind: 'expr',
            pipeline: { ...node.pipeline, declare: [] },
            depth: scope.depth,
            scope: cloneScope(scope),
          });
          return '';
        }
        const single = node.pipeline.commands.length === 1 ? node.pipeline.commands[0]?.args : undefined;
        const only = single?.length === 1 ? single[0] : undefined;
        if (only?.kind === 'string') return only.value;
        if (only?.kind === 'bool') return String(only.value);
        if (only?.kind === 'number') return goNumberText(only.text);
        return `{{ ${unwrap(this.pipeline(node.pipeline, scope, 0))} }}`;
      }
      case 'if':
      case 'with': {
        let out = '';
        // A variable declared in a condition or a branch is visible up to {{ end }}, as in Go.
        const shared = childScope(scope, true);
        node.branches.forEach((branch, i) => {
          const plain: Pipeline = { ...branch.pipeline, declare: [] };
          const cond = goCondition(this.pipeline(plain, shared, 0));
          const [name, extra] = branch.pipeline.declare;
          if (extra != null)
            throw new GoTemplateError('only range declares two variables', branch.pipeline.offset);
          if (name != null)
            shared.vars.set(name, {
              kind: 'expr',
              pipeline: plain,
              depth: shared.depth,
              scope: cloneScope(shared),
            });
          const inner = node.kind === 'with' ? childScope(shared) : childScope(shared, true);
          // Inside `with $x := …`, the variable is the new dot.
          if (name != null && node.kind === 'with')
            inner.vars.set(name, {
              kind: 'expr',
              pipeline: dotPipeline(plain.offset),
              depth: inner.depth,
              scope: cloneScope(inner),
            });
          const body = this.nodes(branch.body, inner);
          if (i === 0) out += `{{#${node.kind} ${cond}}}${body}`;
          else out += `{{else ${node.kind} ${cond}}}${body}`;
        });
        if (node.otherwise != null) out += `{{else}}${this.nodes(node.otherwise, childScope(shared, true))}`;
        return `${out}{{/${node.kind}}}`;
      }
      case 'range': {
        const pipeline = node.pipeline;
        const list = this.pipeline({ ...pipeline, declare: [] }, scope, 0);
        const inner = childScope(scope);
        let params = '';
        if (pipeline.declare.length > 0) {
          const names = pipeline.declare.map(() => `goVar${paramCounter++}`);
          const [first, second] = pipeline.declare;
          if (pipeline.declare.length === 1 && first != null) {
            inner.vars.set(first, { kind: 'param', param: names[0] ?? '', depth: inner.depth, scope: inner });
            params = ` as |${names[0]}|`;
          } else if (first != null && second != null) {
            inner.vars.set(first, { kind: 'param', param: names[0] ?? '', depth: inner.depth, scope: inner });
            inner.vars.set(second, {
              kind: 'param',
              param: names[1] ?? '',
              depth: inner.depth,
              scope: inner,
            });
            // Handlebars block params are |value key|; Go writes $key, $value.
            params = ` as |${names[1]} ${names[0]}|`;
          }
        }
        const body = this.nodes(node.body, inner);
        const otherwise = node.otherwise == null ? '' : `{{else}}${this.nodes(node.otherwise, scope)}`;
        // Go ranges over a map in sorted key order; GO_RANGE_HELPER sorts a map's keys (a list is kept).
        return `{{#each (${GO_RANGE_HELPER} ${list})${params}}}${body}${otherwise}{{/each}}`;
      }
    }
  }

  /** pipeline compiles a pipeline to a Handlebars expression; `up` is how many contexts up its paths are read. */
  pipeline(pipeline: Pipeline, scope: Scope, up: number): string {
    let expr: string | undefined;
    for (const command of pipeline.commands) expr = this.command(command, scope, up, expr);
    return expr ?? 'this';
  }

  command(command: Command, scope: Scope, up: number, piped: string | undefined): string {
    const [head, ...rest] = command.args;
    if (head == null) throw new GoTemplateError('empty command', command.offset);
    if (head.kind !== 'ident') {
      if (rest.length > 0 || piped != null)
        throw new GoTemplateError(
          `can't give an argument to a non-function ${describeOperand(head)}`,
          (rest[0] ?? head).offset,
        );
      if (head.kind === 'nil') throw new GoTemplateError('nil is not a command', head.offset);
      return this.operand(head, scope, up);
    }
    let name = this.#helperName(head.name, head.offset);
    const args = rest.map((arg) => this.operand(arg, scope, up));
    if (piped != null) {
      if (VALUE_FIRST.has(name)) args.unshift(piped);
      else args.push(piped);
    }
    if (name === GO_INDEX_HELPER && args.length === 1) return args[0] ?? 'this';
    if (name === GO_INDEX_HELPER && piped == null) {
      const [base = 'this', ...keys] = args;
      return keyAccess(
        base,
        keys.map((expr, i) => ({ expr, literal: isLiteralKey(rest[i + 1]) })),
      );
    }
    // Go's eq of two values is the library's; with more candidates it is true when any matches.
    if (name === GO_BUILTINS['eq'] && args.length === 2) name = 'eq';
    return args.length === 0 ? `(${name})` : `(${name} ${args.join(' ')})`;
  }

  #helperName(name: string, offset: number): string {
    if (name === 'index') return GO_INDEX_HELPER;
    const builtin = Object.hasOwn(GO_BUILTINS, name) ? GO_BUILTINS[name] : undefined;
    if (builtin != null) return builtin;
    const wordNote = Object.hasOwn(GO_WORD_NOTES, name) ? GO_WORD_NOTES[name] : undefined;
    if (wordNote != null) return wordNote;
    if (this.#options.isHelper(name)) return name;
    const why = Object.hasOwn(UNTRANSLATABLE, name) ? UNTRANSLATABLE[name] : undefined;
    throw new GoTemplateError(
      why == null
        ? `template function "${name}" is not available in Orkestra (the helpers are listed in docs/reference/katalog.md §17.6)`
        : `template function "${name}" cannot be translated: ${why}`,
      offset,
    );
  }

  operand(operand: Operand, scope: Scope, up: number): string {
    const prefix = '../'.repeat(up);
    switch (operand.kind) {
      case 'field':
        return prefix + operand.path.map(segment).join('.');
      case 'dot':
        return up === 0 ? 'this' : `${prefix}this`;
      case 'string':
        return hbsString(operand.value);
      case 'number':
        return hbsNumber(operand.text);
      case 'bool':
        return String(operand.value);
      case 'nil':
        return 'null';
      case 'ident':
        // An argument that names no function is a Handlebars path without the leading dot.
        if (
          operand.name !== 'index' &&
          !Object.hasOwn(GO_BUILTINS, operand.name) &&
          !Object.hasOwn(GO_WORD_NOTES, operand.name) &&
          !this.#options.isHelper(operand.name)
        )
          return prefix + segment(operand.name);
        return `(${this.#helperName(operand.name, operand.offset)})`;
      case 'paren': {
        const [name, extra] = operand.pipeline.declare;
        const plain: Pipeline = { ...operand.pipeline, declare: [] };
        if (name != null) {
          // `($x := …)` declares $x for the rest of the list, as in Go.
          if (extra != null || up > 0)
            throw new GoTemplateError(
              'a declaration in parentheses cannot be translated here; declare the variable in its own action',
              operand.offset,
            );
          scope.vars.set(name, {
            kind: 'expr',
            pipeline: plain,
            depth: scope.depth,
            scope: cloneScope(scope),
          });
        }
        const inner = this.pipeline(plain, scope, up);
        return operand.path.length === 0 ? inner : fieldAccess(inner, operand.path);
      }
      case 'variable': {
        if (operand.name === '$') {
          return operand.path.length === 0 ? '@root' : `@root.${operand.path.map(segment).join('.')}`;
        }
        const variable = lookupVariable(scope, operand.name);
        if (variable == null)
          throw new GoTemplateError(`undefined variable "${operand.name}"`, operand.offset);
        let base: string;
        if (variable.kind === 'param') base = variable.param ?? '';
        else {
          const distance = scope.depth - variable.depth + up;
          base = this.pipeline(variable.pipeline as Pipeline, variable.scope, distance);
        }
        if (operand.path.length === 0) return base;
        if (variable.kind === 'param') return `${base}.${operand.path.map(segment).join('.')}`;
        return fieldAccess(base, operand.path);
      }
    }
  }
}

function describeOperand(operand: Operand): string {
  switch (operand.kind) {
    case 'field':
      return `.${operand.path.join('.')}`;
    case 'variable':
      return [operand.name, ...operand.path].join('.');
    case 'string':
      return JSON.stringify(operand.value);
    case 'number':
      return operand.text;
    default:
      return operand.kind;
  }
}

/** goNumberValue is the value of a Go number constant (hex, octal, binary, `_` separators, floats). */
function goNumberValue(text: string): number {
  const clean = text.replace(/_/g, '');
  const sign = clean.startsWith('-') ? -1 : 1;
  const body = clean.replace(/^[-+]/, '');
  if (/^0[oO]/.test(body)) return sign * Number.parseInt(body.slice(2), 8);
  if (/^0[bB]/.test(body)) return sign * Number.parseInt(body.slice(2), 2);
  if (/^0[xX]/.test(body)) return sign * Number.parseInt(body.slice(2), 16);
  if (/^0\d+$/.test(body)) return sign * Number.parseInt(body, 8);
  return sign * Number(body);
}

/** isGoFloat tells whether Go reads a number constant as a float (it has `.`, or an exponent). */
function isGoFloat(text: string): boolean {
  return !/^[-+]?0[xXoObB]/.test(text) && /[.eE]/.test(text);
}

/** goNumberText prints a number constant as Go's fmt does (`%v`): a float in shortest form. */
function goNumberText(text: string): string {
  const value = goNumberValue(text);
  if (!isGoFloat(text)) return String(value);
  return goFloatText(value);
}

/** hbsNumber writes a number constant as a Handlebars literal (or a `float` call for an exponent). */
function hbsNumber(text: string): string {
  const value = goNumberValue(text);
  const written = String(value);
  return /^-?\d+(?:\.\d+)?$/.test(written) ? written : `(float "${written}")`;
}

/** goCondition makes a compiled pipeline a condition with Go's truth (an empty map is false). */
function goCondition(expr: string): string {
  return BOOLEAN_CALLS.test(expr) ? expr : `(${GO_TRUTH_HELPER} ${expr})`;
}

function segment(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `[${name}]`;
}

function hbsString(value: string): string {
  if (!value.includes('"')) return `"${value}"`;
  if (!value.includes("'")) return `'${value}'`;
  // Handlebars reads \" as a quote inside a double-quoted string.
  if (!value.includes('\\')) return `"${value.replace(/"/g, '\\"')}"`;
  throw new GoTemplateError('a string holding both kinds of quotes and a backslash cannot be translated', 0);
}

function unwrap(expr: string): string {
  return expr.startsWith('(') && expr.endsWith(')') && balanced(expr.slice(1, -1)) ? expr.slice(1, -1) : expr;
}

function balanced(text: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote != null) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * keyAccess reads keys of a computed value one level each, as Go's `index` and fields do: `get`
 * for literal keys without a dot (it would split `"a.b"` into two levels), Handlebars' `lookup`
 * for the others (a computed key, `"example.com/owner"`).
 */
function keyAccess(
  base: string,
  keys: readonly { readonly expr: string; readonly literal: boolean }[],
): string {
  let expr = base;
  let pending: string[] = [];
  const flush = (): void => {
    // `(get x 1)` then `.b`: one call, `(get x 1 "b")`.
    const inner = /^\(get (.*)\)$/.exec(expr)?.[1];
    if (pending.length > 0)
      expr =
        inner != null && balanced(inner)
          ? `(get ${inner} ${pending.join(' ')})`
          : `(get ${expr} ${pending.join(' ')})`;
    pending = [];
  };
  for (const key of keys) {
    if (key.literal) pending.push(key.expr);
    else {
      flush();
      expr = `(lookup ${expr} ${key.expr})`;
    }
  }
  flush();
  return expr;
}

/** fieldAccess is `(…).a.b` or `$x.a.b` on a computed value (Go field names have no dots). */
function fieldAccess(base: string, path: readonly string[]): string {
  return keyAccess(
    base,
    path.map((name) => ({ expr: hbsString(name), literal: true })),
  );
}

/** isLiteralKey tells whether an index key is a number or a string without a dot. */
function isLiteralKey(operand: Operand | undefined): boolean {
  if (operand?.kind === 'number') return true;
  return operand?.kind === 'string' && !operand.value.includes('.');
}

/** dotPipeline is the pipeline `.`. */
function dotPipeline(offset: number): Pipeline {
  return { declare: [], commands: [{ args: [{ kind: 'dot', offset }], offset }], offset };
}

function childScope(scope: Scope, sameDepth = false, base: Scope = scope): Scope {
  return { depth: sameDepth ? base.depth : scope.depth + 1, vars: new Map(scope.vars) };
}

function cloneScope(scope: Scope): Scope {
  return { depth: scope.depth, vars: new Map(scope.vars) };
}

function lookupVariable(scope: Scope, name: string): Variable | undefined {
  return scope.vars.get(name);
}

/**
 * translateGoTemplate compiles a Go `text/template` source to Handlebars source with the same
 * meaning for our engine. It throws a {@link GoTemplateError} (with the offset in the Go source)
 * for a syntax error, an unknown function or an unsupported construct.
 *
 * @example
 * translateGoTemplate('{{ if eq .spec.tier "gold" }}3{{ else }}1{{ end }}', { isHelper: () => true });
 * // '{{#if (eq spec.tier "gold")}}3{{else}}1{{/if}}'
 */
export function translateGoTemplate(source: string, options: TranslateOptions): string {
  const tree = new Parser(lex(source)).parseTemplate();
  return new Compiler(options).nodes(tree, { depth: 0, vars: new Map() });
}
