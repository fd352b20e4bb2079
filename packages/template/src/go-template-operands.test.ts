import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringForm } from './string-form.js';
import { isGoTemplate } from './go-template.js';
import { createTemplateEngine } from './template-engine.js';

/**
 * Every operand form of Go's text/template (docs/reference/katalog.md §17.1.1) over one context.
 * The fixtures are written from Go's documentation; each expected value is what Go's own
 * text/template printed for the template on the same context (integers as int64, as in Kubernetes
 * objects), trimmed as the engine trims a rendered string (katalog.md §17.3).
 */
interface Fixtures {
  readonly context: Record<string, unknown>;
  readonly cases: readonly { readonly template: string; readonly expected: string }[];
}

const fixtures = JSON.parse(
  readFileSync(new URL('./fixtures/go-templates.json', import.meta.url), 'utf8'),
) as Fixtures;

const engine = createTemplateEngine();

describe('Go operands, parenthesised pipelines and built-ins render as Go renders them', () => {
  it.each(fixtures.cases.map((c) => [c.template, c.expected] as const))('%s → %j', (template, expected) => {
    const value = engine.renderTemplate(template, fixtures.context);
    expect(stringForm(value).trim()).toBe(expected);
  });

  it('reads an action that starts with a parenthesised pipeline as Go', () => {
    expect(
      isGoTemplate('{{ (index .children.customs (printf "%s-connector" .metadata.name)).status.phase }}'),
    ).toBe(true);
    expect(isGoTemplate('{{ (index .a 0).b.c }}')).toBe(true);
  });
});
