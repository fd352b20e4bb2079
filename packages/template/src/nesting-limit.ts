import { TemplateError } from './template-error.js';

/** TEMPLATE_NESTING_LIMIT is the deepest a template may nest blocks (`if`, `with`, `range`, …) or parentheses. */
const TEMPLATE_NESTING_LIMIT = 64;

const OPENERS = new Set(['if', 'with', 'range', 'block', 'define', 'each', 'unless']);

/**
 * checkNesting refuses a template nested deeper than TEMPLATE_NESTING_LIMIT, in blocks or in
 * parentheses inside an action, with a TemplateError at the column where the limit is passed. It
 * runs before the parser, whose recursion would otherwise answer deep input with a stack overflow,
 * and whose work grows faster than the depth (docs/security.md §3). Quoted strings are skipped.
 */
export function checkNesting(source: string): void {
  let blocks = 0;
  let at = source.indexOf('{{');
  while (at >= 0) {
    const sigil = source[at + 2];
    const opens = sigil === '#';
    const closes = sigil === '/' && source[at + 3] !== '*';
    let i = at + 2;
    while (i < source.length && /[-~#/ \t]/.test(source[i] ?? '')) i++;
    const word = /^[A-Za-z]+/.exec(source.slice(i, i + 10))?.[0] ?? '';
    if (opens || (!closes && OPENERS.has(word))) blocks++;
    else if (closes || word === 'end') blocks = Math.max(0, blocks - 1);
    if (blocks > TEMPLATE_NESTING_LIMIT) refuse(source, at, 'blocks');
    let parens = 0;
    let quote = '';
    for (; i < source.length && !(quote === '' && source.startsWith('}}', i)); i++) {
      const c = source[i];
      if (quote !== '') {
        if (c === '\\' && quote !== '`') i++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'" || c === '`') quote = c;
      else if (c === '(') {
        parens++;
        if (parens > TEMPLATE_NESTING_LIMIT) refuse(source, i, 'parentheses');
      } else if (c === ')') parens = Math.max(0, parens - 1);
    }
    at = source.indexOf('{{', i);
  }
}

function refuse(source: string, offset: number, what: string): never {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  throw new TemplateError(`template nests ${what} more than ${TEMPLATE_NESTING_LIMIT} deep`, {
    line,
    column,
  });
}
