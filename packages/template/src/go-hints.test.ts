import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringForm } from './string-form.js';
import { createTemplateEngine } from './template-engine.js';
import { TemplateError } from './template-error.js';

/**
 * Every hint printed for a Go construct that is not accepted is itself a template: it compiles
 * and renders the value Go renders for the construct (docs/reference/katalog.md §17.1.1). The
 * fixtures pair a rejected template (Go actions inside a Handlebars template) with the Go action
 * the hint stands for and the value Go's text/template printed for that action on the context.
 */
interface Fixtures {
  readonly context: Record<string, unknown>;
  readonly hints: readonly { readonly source: string; readonly action: string; readonly expected: string }[];
}

const fixtures = JSON.parse(
  readFileSync(new URL('./fixtures/go-templates.json', import.meta.url), 'utf8'),
) as Fixtures;

const engine = createTemplateEngine();

function compileError(source: string): TemplateError {
  try {
    engine.compileTemplate(source);
  } catch (error) {
    if (error instanceof TemplateError) return error;
    throw error;
  }
  throw new Error(`${source} compiled`);
}

describe('hints for Go constructs', () => {
  it.each(fixtures.hints.map((h) => [h.source, h.action, h.expected] as const))(
    '%s: the hint for %s compiles and renders %j',
    (source, action, expected) => {
      const error = compileError(source);
      const hint = error.suggestion;
      expect(hint, error.message).toBeDefined();
      expect(error.message).toContain(`; write ${hint}`);
      const rendered = engine.compileTemplate(hint ?? '').render(fixtures.context);
      expect(stringForm(rendered).trim()).toBe(expected);
      // The Go action itself, alone, is read as Go and renders the same value.
      expect(stringForm(engine.renderTemplate(action, fixtures.context)).trim()).toBe(expected);
    },
  );

  it.each([
    // No template renders the same value: the message says so, and there is no hint.
    ['{{#if spec.enabled}}{{ $x }}{{/if}}', 'variable "$x" is not supported', 'cannot be translated here'],
    [
      '{{#if spec.enabled}}{{ $x := 1 }}{{/if}}',
      'variable "$x" is not supported',
      'cannot be translated here',
    ],
    ['{{#if spec.enabled}}{{ .spec.image | nindent 4 }}{{/if}}', 'pipelines', 'cannot be translated here'],
    ['{{#each spec.regions}}{{ if . }}x{{ end }}{{/each}}', '"{{ if }}" is not supported', 'one of the two'],
    ['{{ template "x" . }}', '"{{ template }}" cannot be translated', 'write the template inline'],
    ['{{ define "x" }}y{{ end }}', '"{{ define }}" cannot be translated', 'no named sub-templates'],
    ['{{ range .spec.regions }}{{ continue }}{{ end }}', '"{{ continue }}" cannot be translated', 'early'],
    ['{{ $x := 1 }}{{ $x = 2 }}', 'assignment "$x =" cannot be translated', 'declare a new one'],
    ['{{ .spec.x | required "x" }}', 'function "required" cannot be translated', 'validation rule'],
    ['{{ .spec.x | toYaml | indent 2 }}', 'function "indent" cannot be translated', 'YAML structure'],
    ['{{ .spec.x | nope }}', 'function "nope" is not available in Orkestra', '§17.6'],
  ])('%s is rejected plainly: %s', (source, message, why) => {
    const error = compileError(source);
    expect(error.detail).toContain(message);
    expect(error.detail).toContain(why);
    expect(error.suggestion).toBeUndefined();
  });
});
