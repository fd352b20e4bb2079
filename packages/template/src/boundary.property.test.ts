import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from './compile-template.js';
import { isTemplateError } from './template-error.js';

// The template boundary takes Katalog text (templates) and CR data (the context). Whatever either
// holds — nesting thousands deep, lone UTF-16 surrogates — a compile or render returns or throws a
// TemplateError with a message; never a stack overflow, another error class, or a stall
// (docs/security.md §3).

const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a\uD83D', '\uDE00b'];

/** lone is a string with lone UTF-16 surrogates among ordinary characters. */
const lone = fc
  .array(fc.oneof(fc.constantFrom(...LONE_SURROGATES), fc.string({ maxLength: 4 })), { maxLength: 8 })
  .map((parts) => parts.join(''));

/** nested wraps a leaf in `depth` arrays or maps (CR data as deep as a YAML document could make it). */
const nested = fc.tuple(fc.integer({ min: 1, max: 5000 }), fc.boolean(), lone).map(([depth, maps, leaf]) => {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = maps ? { a: value } : [value];
  return value;
});

/** deepSource is a template nested `depth` deep in parentheses, pipelines or blocks. */
const deepSource = fc
  .tuple(
    fc.integer({ min: 1, max: 5000 }),
    fc.constantFrom('parens', 'if', 'with', 'range'),
    fc.constantFrom('spec.a', 'spec.s', '.', '"x"'),
  )
  .map(([depth, shape, operand]) => {
    switch (shape) {
      case 'parens':
        return `{{ ${'('.repeat(depth)}${operand}${')'.repeat(depth)} }}`;
      case 'if':
        return `${'{{ if true }}'.repeat(depth)}x${'{{ end }}'.repeat(depth)}`;
      case 'with':
        return `${'{{ with spec }}'.repeat(depth)}{{ . }}${'{{ end }}'.repeat(depth)}`;
      default:
        return `${'{{ range spec.list }}'.repeat(depth)}x${'{{ end }}'.repeat(depth)}`;
    }
  });

/** source is an ordinary template with lone surrogates in its text, strings and field names. */
const surrogateSource = fc
  .tuple(lone, lone, fc.constantFrom('toJson', 'upper', 'quote', 'b64enc', 'sha256sum', 'trim', 'len'))
  .map(
    ([text, literal, helper]) =>
      `${text}{{ ${helper} spec.s }}{{ "${literal.replace(/"/g, '')}" }}{{ spec.a | toJson }}`,
  );

function outcome(source: string, spec: Record<string, unknown>): 'ok' | 'template-error' {
  try {
    compileTemplate(source, { path: 'spec.crds.app.fuzz' }).render({ spec });
    return 'ok';
  } catch (error) {
    // A stack overflow wrapped in a TemplateError is still a crash, not a clear error.
    if (isTemplateError(error) && error.message.length > 0 && !/call stack/i.test(error.message))
      return 'template-error';
    throw error;
  }
}

describe('the template boundary under hostile input', () => {
  it('renders CR data nested thousands deep and holding lone surrogates, or refuses it by a TemplateError', () => {
    fc.assert(
      fc.property(nested, lone, surrogateSource, (a, s, source) => {
        const started = performance.now();
        expect(['ok', 'template-error']).toContain(outcome(source, { a, s, list: [a] }));
        expect(performance.now() - started).toBeLessThan(2000);
      }),
      { numRuns: 40, endOnFailure: true },
    );
  }, 120_000);

  it('compiles templates nested thousands deep, or refuses them by a TemplateError', () => {
    fc.assert(
      fc.property(deepSource, nested, lone, (source, a, s) => {
        const started = performance.now();
        expect(['ok', 'template-error']).toContain(outcome(source, { a, s, list: [1] }));
        expect(performance.now() - started).toBeLessThan(2000);
      }),
      { numRuns: 40, endOnFailure: true },
    );
  }, 120_000);
});
