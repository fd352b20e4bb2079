import { describe, expect, it } from 'vitest';
import { isGoTemplate, translateGoTemplate } from './go-template.js';
import { createTemplateEngine } from './template-engine.js';
import { TemplateError } from './template-error.js';

const engine = createTemplateEngine();

/** The context every case renders against (numbers are integers, as in Kubernetes objects). */
const context = {
  metadata: { name: 'shop', labels: { app: 'web' } },
  spec: {
    tier: 'silver',
    replicas: 3,
    debug: false,
    ratio: 2.5,
    regions: ['a', 'b', 'c'],
    empty: [],
    steps: [{ command: 'make' }, { command: 'test' }],
    env: { B: '2', A: '1' },
  },
};

function render(source: string): unknown {
  const value = engine.renderTemplate(source, context);
  return typeof value === 'string' ? value : String(value);
}

describe('Go text/template compiled to the engine', () => {
  // Each expected value is what Go's text/template (go1.2x, `template.New("x").Parse(src).Execute`)
  // printed for the source on the same context; the Go program is not part of the repository.
  // The engine trims the whitespace around a rendered string (section 17.3), so Go's output is
  // compared trimmed.
  it.each([
    ['{{ .metadata.name }}-web', 'shop-web'],
    ['{{ if eq .spec.tier "gold" }}3{{ else if eq .spec.tier "silver" }}2{{ else }}1{{ end }}', '2'],
    ['{{ if .spec.debug }}debug{{ else }}info{{ end }}', 'info'],
    ['{{ index .spec.regions 1 }}', 'b'],
    ['{{ index (index .spec.steps 1) "command" }}', 'test'],
    ['{{ index .metadata.labels "app" }}', 'web'],
    ['{{ printf "%s-%d" .metadata.name .spec.replicas }}', 'shop-3'],
    [
      '{{ printf "%05d|%-4s|%q|%v|%x" .spec.replicas .spec.tier .spec.tier .spec.debug 255 }}',
      '00003|silver|"silver"|false|ff',
    ],
    ['{{ range .spec.regions }}[{{ . }}]{{ end }}', '[a][b][c]'],
    ['{{ range $i, $r := .spec.regions }}{{ $i }}={{ $r }};{{ end }}', '0=a;1=b;2=c;'],
    ['{{ range $r := .spec.regions }}<{{ $r }}>{{ end }}', '<a><b><c>'],
    ['{{ range $k, $v := .spec.env }}{{ $k }}={{ $v }},{{ end }}', 'A=1,B=2,'],
    ['{{ range .spec.empty }}x{{ else }}none{{ end }}', 'none'],
    [
      '{{ $n := .metadata.name }}{{ range .spec.regions }}{{ $n }}-{{ . }} {{ end }}',
      'shop-a shop-b shop-c ',
    ],
    ['{{ with .metadata.labels }}{{ .app }}/{{ $.metadata.name }}{{ end }}', 'web/shop'],
    ['{{ with .spec.missing }}yes{{ else }}no{{ end }}', 'no'],
    ['{{- if and (gt .spec.replicas 1) (not (eq .spec.tier "bronze")) -}} ha {{- end }}', 'ha'],
    ['{{ if or .spec.debug (lt .spec.replicas 5) }}small{{ end }}', 'small'],
    ['{{ len .spec.regions }}/{{ len .metadata.name }}', '3/4'],
    ['{{ .metadata.name | printf "%s!" }}', 'shop!'],
    ['{{ range $i, $s := .spec.steps }}{{ if $i }},{{ end }}{{ $s.command }}{{ end }}', 'make,test'],
    ['{{/* a comment */}}a  {{- " b " -}}  c', 'a b c'],
    ['{{ $x := index .spec.steps 0 }}{{ $x.command }}', 'make'],
    ['{{ range .spec.steps }}{{ $.metadata.name }}:{{ .command }} {{ end }}', 'shop:make shop:test '],
    ['{{ if ne .spec.tier "gold" }}not-gold{{ else }}gold{{ end }}', 'not-gold'],
    ['{{ if le .spec.replicas 3 }}le{{ end }}{{ if ge .spec.replicas 3 }}ge{{ end }}', 'lege'],
    ['{{ print .metadata.name "-" .spec.replicas }}', 'shop-3'],
    ['{{ printf "%.2f" .spec.ratio }}', '2.50'],
    ['{{ range .spec.regions }}{{ if eq . "b" }}B{{ else }}{{ . }}{{ end }}{{ end }}', 'aBc'],
  ])('%j renders %j as Go does', (source, expected) => {
    expect(isGoTemplate(source) || !source.includes('{{ if')).toBe(true);
    expect(render(source)).toBe(expected.trim());
  });

  it.each([
    // Upstream's library: the value comes first, and a pipeline passes it there.
    ['{{ .spec.logLevel | default "info" }}', 'info'],
    ['{{ .spec.tier | default "gold" }}', 'silver'],
    ['{{ getIntOr .spec.replicas 1 }}', '3'],
    ['{{ getStringOr .spec.replicas "x" }}', 'x'],
    ['{{ mapGet .metadata.labels "app" }}', 'web'],
    ['{{ get . "spec" "steps" 1 "command" }}', 'test'],
    ['{{ if resourceExists .children.web }}up{{ else }}down{{ end }}', 'down'],
  ])('upstream helper: %j renders %j', (source, expected) => {
    expect(render(source)).toBe(expected);
  });

  it('keeps whole expressions native', () => {
    expect(engine.renderTemplate('{{ len .spec.regions }}', context)).toBe(3);
    expect(engine.renderTemplate('{{ index .spec.steps 0 }}', context)).toEqual({ command: 'make' });
  });

  it('reads a variable declared outside a range from inside it and inside a nested with', () => {
    expect(
      render(
        '{{ $n := .metadata.name }}{{ range .spec.steps }}{{ with .command }}{{ $n }}/{{ . }} {{ end }}{{ end }}',
      ),
    ).toBe('shop/make shop/test');
  });

  it.each([
    ['{{ if .spec.debug }}x', '{{ if }} has no {{ end }}', 1, 7],
    ['{{ .spec.x | nope }}', 'template function "nope" is not available in Orkestra', 1, 14],
    ['a\n{{ $y }}', 'undefined variable "$y"', 2, 4],
    ['{{ end }}', 'unexpected {{ end }}', 1, 4],
  ])('%j fails with %j at %i:%i', (source, message, line, column) => {
    let caught: unknown;
    try {
      engine.compileTemplate(source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TemplateError);
    expect((caught as TemplateError).detail).toContain(message);
    expect((caught as TemplateError).line).toBe(line);
    expect((caught as TemplateError).column).toBe(column);
  });

  it('leaves the Handlebars/Go common subset to Handlebars', () => {
    expect(isGoTemplate('{{ .spec.image }}')).toBe(false);
    expect(isGoTemplate('{{ default .spec.x "a | b" }}')).toBe(false);
    expect(isGoTemplate('{{#each spec.regions as |r i|}}{{ r }}{{/each}}')).toBe(false);
    expect(isGoTemplate('{{ index }}')).toBe(false);
  });

  it('translates to readable Handlebars', () => {
    expect(
      translateGoTemplate('{{ if eq .spec.tier "gold" }}3{{ else }}1{{ end }}', { isHelper: () => true }),
    ).toBe('{{#if (eq spec.tier "gold")}}3{{else}}1{{/if}}');
    // A computed key is read literally (`lookup`), the fields after the parenthesis with `get`.
    expect(
      translateGoTemplate(
        '{{ (index .children.customs (printf "%s-connector" .metadata.name)).status.phase }}',
        { isHelper: () => true },
      ),
    ).toBe('{{ get (lookup children.customs (printf "%s-connector" metadata.name)) "status" "phase" }}');
  });
});
