/**
 * Upstream's `notes` (docs/reference/katalog.md §24, ADR 0025) are user-defined template functions: a note is a name
 * and a Go template (`expression`); `{{ fullImage }}` anywhere in a template calls it with no
 * arguments and gets the expression rendered against the CR. Orkestra has no per-Katalog template
 * functions, so the loader writes each call out in place: a call that is a whole action is
 * replaced by the note's expression (text and actions as written), and a call inside a larger
 * action (`{{ printf "%s" fullImage }}`, `{{ if isProd }}`) by the expression as one operand —
 * `(E)` for a note that is one action, `(printf "…%v…" (E1) …)` for text around actions.
 *
 * The note renders against the CR, as upstream, also where the call sits inside `range` or `with`:
 * a whole-action call there is wrapped in `{{ with $ }}…{{ end }}` and an operand has its `.`
 * written as `$`. A note may call other notes (not itself). This module scans templates with a
 * small lexer of Go's action syntax (strings, raw strings, comments, trim markers); it does not
 * compile them — the template package does, after loading.
 */

/** NoteExpansion is the result of writing out the note calls of one template. */
export type NoteExpansion =
  | { readonly ok: true; readonly text: string; readonly calls: number }
  | { readonly ok: false; readonly message: string };

/** The names that are Go template keywords or constants, which no note may take. */
const KEYWORDS: ReadonlySet<string> = new Set([
  'if',
  'else',
  'end',
  'range',
  'with',
  'define',
  'template',
  'block',
  'break',
  'continue',
  'nil',
  'true',
  'false',
]);

/** isNoteName tells whether a name can be called as a note: a Go identifier that is not a keyword. */
export function isNoteName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name);
}

interface Text {
  readonly kind: 'text';
  text: string;
}
interface Action {
  readonly kind: 'action';
  /** The body between the delimiters and trim markers. */
  readonly body: string;
  readonly trimLeft: boolean;
  readonly trimRight: boolean;
  readonly comment: boolean;
}
type Segment = Text | Action;

/** segments splits a template into text and actions; it fails on an action that is not closed. */
function segments(source: string): Segment[] | string {
  const out: Segment[] = [];
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    if (open < 0) {
      out.push({ kind: 'text', text: source.slice(i) });
      break;
    }
    if (open > i) out.push({ kind: 'text', text: source.slice(i, open) });
    let j = open + 2;
    const trimLeft = source[j] === '-' && /\s/.test(source[j + 1] ?? '');
    if (trimLeft) j += 2;
    const start = j;
    let close = -1;
    const afterSpace = source.slice(j).trimStart();
    if (afterSpace.startsWith('/*')) {
      const end = source.indexOf('*/', j);
      if (end < 0) return `unclosed comment at offset ${open}`;
      j = end + 2;
    }
    while (j < source.length) {
      const c = source[j];
      if (c === '"' || c === "'") {
        j++;
        while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
        j++;
      } else if (c === '`') {
        const end = source.indexOf('`', j + 1);
        if (end < 0) return `unclosed raw string at offset ${j}`;
        j = end + 1;
      } else if (c === '}' && source[j + 1] === '}') {
        close = j;
        break;
      } else j++;
    }
    if (close < 0) return `unclosed action at offset ${open}`;
    const trimRight = source[close - 1] === '-' && /\s/.test(source[close - 2] ?? '');
    const body = source.slice(start, trimRight ? close - 2 : close);
    out.push({ kind: 'action', body, trimLeft, trimRight, comment: body.trimStart().startsWith('/*') });
    i = close + 2;
  }
  return out;
}

interface Token {
  readonly kind: 'word' | 'field' | 'dot' | 'variable' | 'string' | 'number' | 'punct';
  readonly text: string;
  readonly start: number;
}

/** tokens lexes an action body far enough to tell note calls, fields and `.` apart. */
function tokens(body: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i] ?? '';
    const start = i;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < body.length && body[i] !== c) i += body[i] === '\\' ? 2 : 1;
      out.push({ kind: 'string', text: body.slice(start, ++i), start });
    } else if (c === '`') {
      i = body.indexOf('`', i + 1) + 1;
      out.push({ kind: 'string', text: body.slice(start, i), start });
    } else if (/[0-9]/.test(c)) {
      while (i < body.length && /[0-9A-Za-z_.+-]/.test(body[i] ?? '')) i++;
      out.push({ kind: 'number', text: body.slice(start, i), start });
    } else if (c === '.' || c === '$') {
      i++;
      while (i < body.length && /[A-Za-z0-9_.]/.test(body[i] ?? '')) i++;
      const text = body.slice(start, i);
      out.push({ kind: c === '$' ? 'variable' : text === '.' ? 'dot' : 'field', text, start });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < body.length && /[A-Za-z0-9_]/.test(body[i] ?? '')) i++;
      // `x.y` after a word is a field of its result (a method call upstream); keep it one token.
      while (i < body.length && body[i] === '.' && /[A-Za-z_]/.test(body[i + 1] ?? '')) {
        i++;
        while (i < body.length && /[A-Za-z0-9_]/.test(body[i] ?? '')) i++;
      }
      out.push({ kind: 'word', text: body.slice(start, i), start });
    } else {
      i++;
      out.push({ kind: 'punct', text: c, start });
    }
  }
  return out;
}

/** FRAME_OPENERS are the actions that open a block closed by `{{ end }}`. */
const FRAME_OPENERS: ReadonlySet<string> = new Set(['if', 'range', 'with', 'define', 'block']);

/** PreparedNote is one note ready to be written out: its expression with its own calls of other notes written out. */
export interface PreparedNote {
  readonly expression: string;
  readonly parts: readonly Segment[];
  /** The expression is one action with no text around it and no block. */
  readonly single: string | undefined;
  readonly hasBlock: boolean;
  readonly usesDot: boolean;
}

function analyse(expression: string): PreparedNote | string {
  const parts = segments(expression);
  if (typeof parts === 'string') return parts;
  const actions = parts.filter((p): p is Action => p.kind === 'action' && !p.comment);
  const hasBlock = actions.some((a) => {
    const first = tokens(a.body)[0];
    return (
      first?.kind === 'word' &&
      (FRAME_OPENERS.has(first.text) || first.text === 'end' || first.text === 'else')
    );
  });
  const usesDot = actions.some((a) => tokens(a.body).some((t) => t.kind === 'dot' || t.kind === 'field'));
  const meaningful = parts.filter(
    (p) => !(p.kind === 'text' && p.text.trim() === '') && !(p.kind === 'action' && p.comment),
  );
  const only = meaningful.length === 1 && meaningful[0]?.kind === 'action' ? meaningful[0] : undefined;
  return {
    expression,
    parts,
    single: hasBlock || only == null ? undefined : only.body.trim(),
    hasBlock,
    usesDot,
  };
}

/** rootDot writes an operand's `.` as `$` (the root), for use where `range`/`with` changed the dot. */
function rootDot(body: string): string {
  let out = '';
  let at = 0;
  for (const token of tokens(body)) {
    if (token.kind !== 'dot' && token.kind !== 'field') continue;
    out += body.slice(at, token.start) + (token.kind === 'dot' ? '$' : `$${token.text}`);
    at = token.start + token.text.length;
  }
  return out + body.slice(at);
}

/** operand is a note's expression as one operand of a larger action. */
function operand(name: string, note: PreparedNote, dotChanged: boolean): string {
  const fix = (body: string) => (dotChanged ? rootDot(body) : body);
  if (note.single != null) return `(${fix(note.single)})`;
  if (note.hasBlock)
    throw new NoteCallError(
      `note \`${name}\` has {{ if }}/{{ range }}/{{ with }} blocks, so it can only be called as a whole action \`{{ ${name} }}\`, not inside an expression`,
    );
  let format = '';
  const args: string[] = [];
  for (const part of note.parts) {
    if (part.kind === 'text') format += part.text.replaceAll('%', '%%');
    else if (!part.comment) {
      format += '%v';
      args.push(`(${fix(part.body.trim())})`);
    }
  }
  return `(printf ${JSON.stringify(format)}${args.map((a) => ` ${a}`).join('')})`;
}

class NoteCallError extends Error {}

/**
 * expandNoteCalls writes out every call of a note in one template (see the module comment). A
 * template that calls no note comes back unchanged with `calls: 0`.
 *
 * @example
 * const notes = prepareNotes(new Map([['appLabel', '{{ .metadata.namespace }}-{{ .metadata.name }}']]));
 * expandNoteCalls('{{ appLabel }}', notes.ok ? notes.notes : new Map());
 * // { ok: true, text: '{{ .metadata.namespace }}-{{ .metadata.name }}', calls: 1 }
 */
export function expandNoteCalls(source: string, notes: ReadonlyMap<string, PreparedNote>): NoteExpansion {
  if (notes.size === 0 || !source.includes('{{')) return { ok: true, text: source, calls: 0 };
  const parts = segments(source);
  if (typeof parts === 'string') return { ok: true, text: source, calls: 0 }; // the compiler reports it
  const frames: string[] = [];
  let calls = 0;
  let trimNext = false;
  const out: string[] = [];
  const pushText = (text: string) => {
    out.push(trimNext ? text.trimStart() : text);
    trimNext = false;
  };
  try {
    for (const part of parts) {
      if (part.kind === 'text') {
        pushText(part.text);
        continue;
      }
      const toks = tokens(part.body);
      const first = toks[0];
      const dotChanged = frames.some((f) => f === 'range' || f === 'with');
      const called = (t: Token) => t.kind === 'word' && notes.has(t.text);
      if (!part.comment && toks.length === 1 && first != null && called(first)) {
        const note = notes.get(first.text) as PreparedNote;
        calls++;
        if (part.trimLeft && out.length > 0) out[out.length - 1] = (out[out.length - 1] ?? '').trimEnd();
        const body = dotChanged && note.usesDot ? `{{ with $ }}${note.expression}{{ end }}` : note.expression;
        out.push(body);
        trimNext = part.trimRight;
        continue;
      }
      trimNext = false;
      let body = part.body;
      if (!part.comment && toks.some(called)) {
        let rewritten = '';
        let at = 0;
        for (const token of toks) {
          if (!called(token)) continue;
          calls++;
          rewritten +=
            body.slice(at, token.start) +
            operand(token.text, notes.get(token.text) as PreparedNote, dotChanged);
          at = token.start + token.text.length;
        }
        body = rewritten + body.slice(at);
      }
      if (first?.kind === 'word') {
        if (FRAME_OPENERS.has(first.text)) frames.push(first.text);
        else if (first.text === 'end') frames.pop();
        else if (first.text === 'else' && toks[1]?.text === 'with' && frames.length > 0)
          frames[frames.length - 1] = 'with';
      }
      out.push(`{{${part.trimLeft ? '- ' : ''}${body}${part.trimRight ? ' -' : ''}}}`);
    }
  } catch (error) {
    if (error instanceof NoteCallError) return { ok: false, message: error.message };
    throw error;
  }
  return { ok: true, text: calls === 0 ? source : out.join(''), calls };
}

/** PrepareNotesResult is the notes ready to be called, or the first note that cannot be. */
export type PrepareNotesResult =
  | { readonly ok: true; readonly notes: ReadonlyMap<string, PreparedNote> }
  | { readonly ok: false; readonly name: string; readonly message: string };

/**
 * prepareNotes writes out the note calls inside the notes themselves, in dependency order, and
 * checks each expression: an action that is not closed, or a note that calls itself (directly or
 * through others), fails with that note's name.
 */
export function prepareNotes(expressions: ReadonlyMap<string, string>): PrepareNotesResult {
  const ready = new Map<string, PreparedNote>();
  const visiting: string[] = [];
  const prepare = (name: string): PreparedNote | { name: string; message: string } => {
    const done = ready.get(name);
    if (done != null) return done;
    if (visiting.includes(name))
      return {
        name,
        message: `note \`${name}\` calls itself (${[...visiting.slice(visiting.indexOf(name)), name].join(' → ')})`,
      };
    visiting.push(name);
    try {
      const expression = expressions.get(name) ?? '';
      const parts = segments(expression);
      if (typeof parts === 'string') return { name, message: `note \`${name}\`: ${parts}` };
      const calledNotes = new Map<string, PreparedNote>();
      for (const part of parts) {
        if (part.kind !== 'action' || part.comment) continue;
        for (const token of tokens(part.body)) {
          if (token.kind !== 'word' || !expressions.has(token.text) || calledNotes.has(token.text)) continue;
          const inner = prepare(token.text);
          if (!('expression' in inner)) return inner;
          calledNotes.set(token.text, inner);
        }
      }
      const expanded = expandNoteCalls(expression, calledNotes);
      if (!expanded.ok) return { name, message: `note \`${name}\`: ${expanded.message}` };
      const note = analyse(expanded.text);
      if (typeof note === 'string') return { name, message: `note \`${name}\`: ${note}` };
      ready.set(name, note);
      return note;
    } finally {
      visiting.pop();
    }
  };
  for (const name of expressions.keys()) {
    const result = prepare(name);
    if (!('expression' in result)) return { ok: false, ...result };
  }
  return { ok: true, notes: ready };
}
