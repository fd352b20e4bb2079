import { stringify } from 'yaml';

// A deliberately small renderer for the subset of Helm's Go templates the orkestra chart uses:
// `{{ .Values.a.b }}`, `.Release.*`, `.Chart.*`, `{{- … -}}` whitespace trimming, `if`/`else`/`end`,
// pipelines, and the functions toYaml, nindent, indent, quote and default. Anything else throws,
// so a template that grows beyond the subset fails the test instead of rendering wrongly.

type Scope = Readonly<Record<string, unknown>>;

interface TextNode {
  readonly type: 'text';
  text: string;
}
interface ActionNode {
  readonly type: 'action';
  readonly expr: string;
}
interface IfNode {
  readonly type: 'if';
  readonly expr: string;
  readonly then: TemplateNode[];
  readonly otherwise: TemplateNode[];
}
type TemplateNode = TextNode | ActionNode | IfNode;

const ACTION = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g;

function tokenize(source: string): (TextNode | { type: 'raw'; expr: string })[] {
  const out: (TextNode | { type: 'raw'; expr: string })[] = [];
  let last = 0;
  let trimNext = false;
  for (const match of source.matchAll(ACTION)) {
    let text = source.slice(last, match.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (match[1] === '-') text = text.replace(/\s+$/, '');
    out.push({ type: 'text', text });
    out.push({ type: 'raw', expr: match[2] ?? '' });
    trimNext = match[3] === '-';
    last = (match.index ?? 0) + match[0].length;
  }
  let tail = source.slice(last);
  if (trimNext) tail = tail.replace(/^\s+/, '');
  out.push({ type: 'text', text: tail });
  return out;
}

function parse(source: string): TemplateNode[] {
  const tokens = tokenize(source);
  let i = 0;
  const block = (): { nodes: TemplateNode[]; end: 'end' | 'else' | 'eof' } => {
    const nodes: TemplateNode[] = [];
    while (i < tokens.length) {
      const token = tokens[i++];
      if (token == null) break;
      if (token.type === 'text') {
        nodes.push(token);
        continue;
      }
      const expr = token.expr;
      if (expr === 'end') return { nodes, end: 'end' };
      if (expr === 'else') return { nodes, end: 'else' };
      if (expr.startsWith('if ')) {
        const then = block();
        let otherwise: TemplateNode[] = [];
        if (then.end === 'else') {
          const rest = block();
          if (rest.end !== 'end') throw new Error(`if ${expr}: missing {{ end }}`);
          otherwise = rest.nodes;
        } else if (then.end !== 'end') throw new Error(`if ${expr}: missing {{ end }}`);
        nodes.push({ type: 'if', expr: expr.slice(3), then: then.nodes, otherwise });
        continue;
      }
      if (/^(range|with|define|include|template|block)\b/.test(expr) || expr.startsWith('/*')) {
        throw new Error(`unsupported template action: {{ ${expr} }}`);
      }
      nodes.push({ type: 'action', expr });
    }
    return { nodes, end: 'eof' };
  };
  const result = block();
  if (result.end !== 'eof') throw new Error(`unexpected {{ ${result.end} }}`);
  return result.nodes;
}

function words(command: string): string[] {
  return [...command.matchAll(/"(?:[^"\\]|\\.)*"|\S+/g)].map((m) => m[0]);
}

function lookup(path: string, scope: Scope): unknown {
  let current: unknown = scope;
  for (const part of path.slice(1).split('.')) {
    if (current == null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function value(word: string, scope: Scope): unknown {
  if (word.startsWith('.')) return lookup(word, scope);
  if (word.startsWith('"')) return JSON.parse(word) as unknown;
  if (/^-?\d+$/.test(word)) return Number(word);
  if (word === 'true' || word === 'false') return word === 'true';
  throw new Error(`unsupported term ${word}`);
}

function text(v: unknown): string {
  if (v == null) return '';
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  toYaml: (v) => (v == null ? 'null' : stringify(v, { lineWidth: 0 }).replace(/\n$/, '')),
  indent: (n, s) =>
    text(s)
      .split('\n')
      .map((line) => ' '.repeat(Number(n)) + line)
      .join('\n'),
  nindent: (n, s) => `\n${FUNCTIONS['indent']?.(n, s) as string}`,
  quote: (s) => JSON.stringify(text(s)),
  default: (fallback, v) => (truthy(v) ? v : fallback),
};

function truthy(v: unknown): boolean {
  if (v == null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function evaluate(expr: string, scope: Scope): unknown {
  let piped: { v: unknown } | undefined;
  for (const command of expr.split('|').map((c) => c.trim())) {
    const [head = '', ...rest] = words(command);
    const fn = FUNCTIONS[head];
    let result: unknown;
    if (fn != null) {
      const args = rest.map((w) => value(w, scope));
      result = fn(...(piped == null ? args : [...args, piped.v]));
    } else {
      if (rest.length > 0 || piped != null) throw new Error(`unsupported command ${command}`);
      result = value(head, scope);
    }
    piped = { v: result };
  }
  return piped?.v;
}

function render(nodes: readonly TemplateNode[], scope: Scope): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') out += node.text;
    else if (node.type === 'action') out += text(evaluate(node.expr, scope));
    else out += render(truthy(evaluate(node.expr, scope)) ? node.then : node.otherwise, scope);
  }
  return out;
}

/** renderHelmTemplate renders one chart template with `{ Values, Release, Chart }` (the supported subset only). */
export function renderHelmTemplate(source: string, scope: Scope): string {
  return render(parse(source), scope);
}
