import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadKatalog } from './load-katalog.js';
import { decodeYamlBytes } from './yaml-input.js';

const examplesDir = join(import.meta.dirname, '../../../examples');
const texts = readdirSync(examplesDir)
  .map((name) => join(examplesDir, name, 'katalog.yaml'))
  .filter((file) => existsSync(file))
  .map((file) => readFileSync(file, 'utf8'));

/** isWellFormed checks the loader returned its own typed result. */
function isWellFormed(result: ReturnType<typeof loadKatalog>): boolean {
  if (result.ok) return typeof result.katalog === 'object' && Array.isArray(result.warnings);
  return (
    result.errors.length > 0 &&
    result.errors.every(
      (e) =>
        typeof e.message === 'string' &&
        Number.isInteger(e.line) &&
        e.line >= 1 &&
        Number.isInteger(e.column) &&
        e.column >= 1 &&
        typeof e.path === 'string' &&
        !e.message.startsWith('internal loader error'),
    )
  );
}

const mutation = fc.record({
  at: fc.nat(),
  length: fc.nat({ max: 20 }),
  insert: fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      ':',
      '- ',
      '{',
      '}',
      '[',
      ']',
      '\n',
      '  ',
      '{{',
      '"',
      '*a',
      '&a ',
      '---\n',
      'null',
      '0',
      'true',
      '~',
    ),
  ),
});

// A fixed number of runs per property: the time they take depends on the machine (2.8 s alone on
// 2 cores, over 5 s beside other suites), so the timeout is generous; the properties decide.
describe('loadKatalog property tests', { timeout: 120_000 }, () => {
  it('never throws on random text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(isWellFormed(loadKatalog({ text }))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on random YAML values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expect(isWellFormed(loadKatalog({ text: stringify(value) }))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('answers deep nesting (flow or block, up to 5 000 levels) with a positioned error, never a stack overflow', () => {
    const deep = fc
      .tuple(fc.integer({ min: 1, max: 5000 }), fc.constantFrom('[', '{ a: ', 'block-map', 'block-seq'))
      .map(([depth, shape]) => {
        if (shape === '[') return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
        if (shape === '{ a: ') return `${'{ a: '.repeat(depth)}1${' }'.repeat(depth)}`;
        const step =
          shape === 'block-map'
            ? (i: number) => `${' '.repeat(i)}a:\n`
            : (i: number) => `${' '.repeat(i)}-\n`;
        return `\n${Array.from({ length: Math.min(depth, 600) }, (_, i) => step(i + 4)).join('')}${' '.repeat(Math.min(depth, 600) + 4)}1`;
      });
    fc.assert(
      fc.property(fc.constantFrom(...texts), deep, fc.nat(), (text, nested, at) => {
        // Replace the value of one `description:` (or append a field) with the nested value.
        const edited = text.includes('description:')
          ? text.replace(/description: .*/, `description: ${nested}`)
          : `${text}\nextra: ${nested}\n`;
        const started = performance.now();
        const result = loadKatalog({ text: at % 2 === 0 ? edited : nested });
        expect(isWellFormed(result)).toBe(true);
        if (!result.ok) expect(result.errors.map((e) => e.message).join('\n')).not.toMatch(/call stack/i);
        expect(performance.now() - started).toBeLessThan(5000);
      }),
      { numRuns: 40, endOnFailure: true },
    );
  });

  it('answers lone UTF-16 surrogates in the text, and in the bytes of a file, with a result, never a throw', () => {
    const lone = fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'x\uD83D', '\uDE00y');
    fc.assert(
      fc.property(
        fc.constantFrom(...texts),
        fc.array(fc.tuple(fc.nat(), lone), { minLength: 1, maxLength: 6 }),
        (text, inserts) => {
          let edited = text;
          for (const [at, unit] of inserts) {
            const i = at % (edited.length + 1);
            edited = edited.slice(0, i) + unit + edited.slice(i);
          }
          expect(isWellFormed(loadKatalog({ text: edited }))).toBe(true);
          // As bytes: UTF-8 cannot encode a lone surrogate (it becomes U+FFFD); as UTF-16 it is refused by name.
          expect(decodeYamlBytes(Buffer.from(edited, 'utf8')).ok).toBe(true);
          const utf16 = decodeYamlBytes(
            Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(edited, 'utf16le')]),
          );
          expect(utf16.ok ? '' : utf16.problem.code).toBe('Utf16OrUtf32');
        },
      ),
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('never throws on random edits of the examples', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...texts),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (text, edits) => {
          let edited = text;
          for (const edit of edits) {
            const at = edit.at % (edited.length + 1);
            edited = edited.slice(0, at) + edit.insert + edited.slice(at + edit.length);
          }
          expect(isWellFormed(loadKatalog({ text: edited }))).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never throws when a value of the parsed examples is replaced by a random one', () => {
    expect(texts.length).toBeGreaterThan(0);
    fc.assert(
      fc.property(fc.constantFrom(...texts), fc.nat(), fc.jsonValue({ maxDepth: 2 }), (text, pick, value) => {
        // Replace the pick-th line's value (after the first ": ") with random YAML flow text.
        const lines = text.split('\n');
        const candidates = lines
          .map((line, i) => ({ line, i }))
          .filter(({ line }) => /^\s*[\w-]+: \S/.test(line));
        const target = candidates[pick % candidates.length];
        if (target === undefined) return;
        const indent = target.line.indexOf(': ');
        lines[target.i] = `${target.line.slice(0, indent)}: ${JSON.stringify(value)}`;
        expect(isWellFormed(loadKatalog({ text: lines.join('\n') }))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
