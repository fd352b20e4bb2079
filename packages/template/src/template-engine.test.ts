import { describe, expect, it } from 'vitest';
import { compileTemplate } from './compile-template.js';
import { referencedPaths } from './referenced-paths.js';
import { renderTemplate } from './render-template.js';
import { createTemplateEngine } from './template-engine.js';
import { TemplateError } from './template-error.js';

const ctx = {
  metadata: { name: 'shop', labels: { team: 'web' } },
  spec: {
    image: 'nginx:1.27',
    replicas: 3,
    enabled: true,
    ratio: 2.5,
    big: 1e21,
    regions: [
      { name: 'eu', replicas: 2, enabled: true },
      { name: 'us', replicas: 1, enabled: false },
    ],
    env: { B: '2', A: '1' },
    ports: [{ port: 80 }],
  },
};

function compileError(
  source: string,
  path = 'website.operatorBox.onReconcile.deployments[0].image',
): TemplateError {
  try {
    compileTemplate(source, { path });
  } catch (error) {
    if (error instanceof TemplateError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source)} not to compile`);
}

describe('rendering rules (17.3)', () => {
  it('uses a string without {{ as is, untrimmed and unparsed', () => {
    const template = compileTemplate('  {not a template} }} ');
    expect(template.isStatic).toBe(true);
    expect(template.render(ctx)).toBe('  {not a template} }} ');
  });

  it('renders a missing path as empty', () => {
    expect(compileTemplate('a-{{ spec.nope.deeper }}-b').render(ctx)).toBe('a--b');
    expect(compileTemplate('{{ spec.nope }}').render(ctx)).toBeUndefined();
  });

  it('accepts a leading dot in paths everywhere a path may appear', () => {
    expect(compileTemplate('{{ .spec.image }}').render(ctx)).toBe('nginx:1.27');
    expect(compileTemplate('{{.metadata.name}}-{{ .spec.replicas }}').render(ctx)).toBe('shop-3');
    expect(compileTemplate('{{ default .spec.missing .spec.image }}').render(ctx)).toBe('nginx:1.27');
    expect(compileTemplate('{{#if .spec.enabled}}on{{/if}}').render(ctx)).toBe('on');
    expect(compileTemplate('{{#each .spec.regions}}{{ .name }}{{/each}}').render(ctx)).toBe('euus');
    expect(compileTemplate('{{~.spec.image~}}').render(ctx)).toBe('nginx:1.27');
    expect(compileTemplate('{{ upper (lower .spec.image) }}').render(ctx)).toBe('NGINX:1.27');
  });

  it('reads numeric path segments as list indexes, also at the end of a path', () => {
    expect(
      compileTemplate('p={{ spec.ports.0.port }} {{ .spec.ports.0 }} {{ spec.regions.1.name }}').render(ctx),
    ).toBe('p=80 {"port":80} us');
    expect(compileTemplate('{{ add 1.5 spec.ports.0.port }}').render(ctx)).toBe(81.5);
  });

  it('leaves dots inside string literals, `.`, `./` and `../` alone', () => {
    expect(compileTemplate('{{ default spec.missing ".x" }}').render(ctx)).toBe('.x');
    expect(compileTemplate("{{ replace spec.image '.27' ' .x' }}").render(ctx)).toBe('nginx:1 .x');
    expect(compileTemplate('{{#with spec.env}}{{ ./A }}{{ ../metadata.name }}{{/with}}').render(ctx)).toBe(
      '1shop',
    );
    expect(compileTemplate('{{#each spec.regions}}[{{ . }}]{{/each}}').render(ctx)).toBe(
      '[{"name":"eu","replicas":2,"enabled":true}][{"name":"us","replicas":1,"enabled":false}]',
    );
  });

  describe('whole-expression native values', () => {
    it.each([
      ['{{ spec.replicas }}', 3],
      ['  {{ spec.enabled }}  ', true],
      ['{{ spec.ratio }}', 2.5],
      ['{{ spec.env }}', { B: '2', A: '1' }],
      ['{{ spec.regions }}', ctx.spec.regions],
      ['{{{ spec.ports }}}', [{ port: 80 }]],
      ['{{ spec.ports.0.port }}', 80],
      ['{{ len spec.regions }}', 2],
      ['{{ dict "a" spec.replicas }}', { a: 3 }],
      ['{{ @root.spec.replicas }}', 3],
      ['{{ this.spec.replicas }}', 3],
      ['{{ lookup spec.env "A" }}', '1'],
      ['{{ 42 }}', 42],
      ['{{ "text" }}', 'text'],
      ['{{ true }}', true],
      ['{{ null }}', undefined],
      ['{{ spec.missing }}', undefined],
      ['{{ default spec.missing spec.ports }}', [{ port: 80 }]],
    ])('%s → %j', (source, expected) => {
      const template = compileTemplate(source);
      expect(template.isWholeExpression).toBe(true);
      expect(template.render(ctx)).toEqual(expected);
    });

    it('treats blocks, comments and text around the expression as string templates', () => {
      expect(compileTemplate('{{#if spec.enabled}}{{ spec.replicas }}{{/if}}').render(ctx)).toBe('3');
      expect(compileTemplate('{{!-- c --}}{{ spec.replicas }}').render(ctx)).toBe('3');
      expect(compileTemplate('x{{ spec.replicas }}').isWholeExpression).toBe(false);
    });
  });

  it('interpolates with the string form: maps and lists as compact JSON, numbers in decimal form', () => {
    expect(compileTemplate('env={{ spec.env }} ports={{ spec.ports }}').render(ctx)).toBe(
      'env={"B":"2","A":"1"} ports=[{"port":80}]',
    );
    expect(compileTemplate('{{ spec.big }}!').render(ctx)).toBe('1000000000000000000000!');
    expect(compileTemplate('{{ spec.enabled }}/{{ spec.missing }}/{{ spec.ratio }}').render(ctx)).toBe(
      'true//2.5',
    );
    expect(compileTemplate('{{#each spec.regions}}{{ name }}={{ this }};{{/each}}').render(ctx)).toContain(
      'eu={"name":"eu","replicas":2,"enabled":true};',
    );
  });

  it('trims the result of string templates', () => {
    expect(compileTemplate('  {{ spec.image }} \n').render(ctx)).toBe('nginx:1.27');
    expect(compileTemplate('\n{{#if spec.enabled}}\n  on\n{{/if}}\n').render(ctx)).toBe('on');
  });

  it('does not escape HTML', () => {
    expect(
      compileTemplate('{{ spec.html }}&{{ spec.html }}').render({ spec: { html: '<a href="x">&</a>' } }),
    ).toBe('<a href="x">&</a>&<a href="x">&</a>');
  });

  it('supports nested each/if/unless/with, @index, @key, @first, @last and block params', () => {
    const source = [
      '{{#each spec.regions as |region i|}}',
      '{{#if region.enabled}}{{ i }}:{{ upper region.name }}{{else}}{{#unless region.enabled}}-{{ region.name }}{{/unless}}{{/if}}',
      '{{#unless @last}},{{/unless}}',
      '{{/each}}',
    ].join('');
    expect(compileTemplate(source).render(ctx)).toBe('0:EU,-us');
    expect(
      compileTemplate('{{#each spec.env}}{{ @key }}={{ this }}{{#unless @last}}&{{/unless}}{{/each}}').render(
        ctx,
      ),
    ).toBe('B=2&A=1');
    expect(
      compileTemplate(
        '{{#each spec.regions}}{{#if @first}}first:{{/if}}{{ @root.metadata.name }}.{{ name }} {{/each}}',
      ).render(ctx),
    ).toBe('first:shop.eu shop.us');
    expect(compileTemplate('{{#with spec.regions.[0]}}{{ name }}{{/with}}').render(ctx)).toBe('eu');
    expect(compileTemplate('{{#each spec.none}}x{{else}}empty{{/each}}').render(ctx)).toBe('empty');
  });

  it('applies whitespace control with ~', () => {
    expect(compileTemplate('a  {{~ spec.image ~}}  b').render(ctx)).toBe('anginx:1.27b');
    expect(compileTemplate('[ {{~#each spec.regions~}} {{ name }} {{~/each~}} ]').render(ctx)).toBe('[euus]');
  });

  it('follows Handlebars truthiness in #if: 0, "", [] and absent are false, {} is true', () => {
    const source = '{{#if v}}T{{else}}F{{/if}}';
    const results = [0, '', [], null, undefined, false, {}, 'x', 1, [0]].map((v) =>
      compileTemplate(source).render({ v }),
    );
    expect(results).toEqual(['F', 'F', 'F', 'F', 'F', 'F', 'T', 'T', 'T', 'T']);
  });

  it('calls a zero-argument helper used as an argument, like Go templates do', () => {
    const engine = createTemplateEngine({ clock: { now: () => Date.UTC(2030, 5, 1) } });
    expect(engine.compileTemplate('{{ formatDate now "YYYY" }}').render({})).toBe('2030');
    expect(engine.compileTemplate('{{ default spec.when now }}').render({ spec: {} })).toBe(
      '2030-06-01T00:00:00Z',
    );
  });

  it('does not read inherited properties', () => {
    expect(compileTemplate('{{ spec.constructor }}').render(ctx)).toBeUndefined();
    expect(compileTemplate('x{{ spec.image.constructor }}x').render(ctx)).toBe('xx');
    expect(compileTemplate('{{ len spec.toString }}').render(ctx)).toBe(0);
  });
});

describe('compile cache and template facts', () => {
  it('returns the same compiled core for the same source', () => {
    const engine = createTemplateEngine();
    const a = engine.compileTemplate('{{ spec.image }}-x', { path: 'a' });
    const b = engine.compileTemplate('{{ spec.image }}-x', { path: 'b' });
    expect(a.path).toBe('a');
    expect(b.path).toBe('b');
    expect(a.referencedPaths).toBe(b.referencedPaths);
  });

  it('reports a cached compile error with the path of each caller', () => {
    const engine = createTemplateEngine();
    expect(() => engine.compileTemplate('{{ nope 1 }}', { path: 'first' })).toThrow(
      'first: unknown helper "nope"',
    );
    expect(() => engine.compileTemplate('{{ nope 1 }}', { path: 'second' })).toThrow(
      'second: unknown helper "nope"',
    );
  });

  it('lists helpers used and whether the template is volatile', () => {
    const template = compileTemplate('{{ upper (default spec.x (randomHex 4)) }}');
    expect(template.helpers).toEqual(['default', 'randomHex', 'upper']);
    expect(template.isVolatile).toBe(true);
    expect(compileTemplate('{{ formatDate now "YYYY" }}').isVolatile).toBe(true);
    expect(compileTemplate('{{ upper spec.x }}').isVolatile).toBe(false);
  });

  it('renderTemplate compiles once and renders natively, for the condition evaluator', () => {
    expect(renderTemplate('{{ len spec.regions }}', ctx)).toBe(2);
    expect(renderTemplate('{{ spec.regions.1.name }}', ctx)).toBe('us');
    expect(renderTemplate('spec.image', ctx)).toBe('spec.image');
  });
});

describe('compile errors with positions', () => {
  it.each([
    ['{{ spec.image', 'syntax error: missing }} to close this {{', 1, 1],
    ['ok {{ a }} then\n  {{ spec.image', 'syntax error: missing }} to close this {{', 2, 3],
    ['ab {{ (upper spec.image) }}', "syntax error: unexpected 'OPEN_SEXPR'", 1, 7],
    ['{{ upper x=}}', "syntax error: unexpected 'CLOSE'", 1, 12],
    ['{{#if spec.x}}a{{/each}}', "syntax error: if doesn't match each", 1, 4],
    ['line one\n  {{ upper }}', 'helper "upper" takes 1 argument, got 0', 2, 6],
    ['{{ nope spec.x }}', 'unknown helper "nope"', 1, 4],
    ['x {{ upper (nope 1) }}', 'unknown helper "nope"', 1, 13],
    ['{{ default spec.x }}', 'helper "default" takes 2 arguments, got 1', 1, 4],
    ['{{ trim 1 2 3 }}', 'helper "trim" takes 1 to 2 arguments, got 3', 1, 4],
    ['{{ add 1 }}', 'helper "add" takes at least 2 arguments, got 1', 1, 4],
    ['{{#each spec.x spec.y}}{{/each}}', 'helper "each" takes 1 argument, got 2', 1, 4],
    ['{{ each spec.x }}', '"each" is a block helper', 1, 4],
    ['{{#upper spec.x}}{{/upper}}', '"upper" is not a block helper', 1, 4],
    ['{{> partial}}', 'partials are not supported', 1, 1],
    ['{{ log "x" }}', 'unknown helper "log"', 1, 4],
    ['{{ joinList spec.x "," }}', 'unknown helper "joinList": upstream has no `joinList` note either', 1, 4],
  ])('%j → %s at %i:%i', (source, message, line, column) => {
    const error = compileError(source);
    expect(error.detail).toContain(message);
    expect(error.line).toBe(line);
    expect(error.column).toBe(column);
    expect(error.katalogPath).toBe('website.operatorBox.onReconcile.deployments[0].image');
    expect(error.message).toMatch(/^website\.operatorBox\.onReconcile\.deployments\[0\]\.image: /);
  });

  it('formats the position into the message', () => {
    expect(compileError('{{ nope 1 }}', 'p').message).toBe('p: unknown helper "nope" (column 4)');
    expect(compileError('a\n{{ nope 1 }}', 'p').message).toBe('p: unknown helper "nope" (line 2, column 4)');
  });
});

describe('Go-template constructs (17.1)', () => {
  // Upstream's Go text/template syntax compiles to the engine (katalog.md §17.1.1): each source renders the
  // value Go's text/template gives on the same context (see go-template.test.ts for the rest).
  it.each([
    ['{{ if .spec.enabled }}on{{ end }}', 'on'],
    ['{{ if eq (typeOf .spec.regions) "map" }}x{{ else }}y{{ end }}', 'y'],
    ['{{ .spec.x | default "y" }}', 'y'],
    ['{{ .metadata.name | lower | trunc 2 }}', 'sh'],
    ['{{ range .spec.regions }}{{ .name }}{{ end }}', 'euus'],
    ['{{ range $i, $r := .spec.regions }}{{ $i }}{{ $r.name }}{{ end }}', '0eu1us'],
    ['{{ with .spec.env }}{{ .A }}{{ end }}', '1'],
    ['x {{ $.spec.image }}', 'x nginx:1.27'],
    ['{{ $name := .metadata.name }}{{ $name }}', 'shop'],
    ['{{ printf "%s-%d" .metadata.name .spec.replicas }}', 'shop-3'],
    ['{{ index .spec.regions 1 "name" }}', 'us'],
    ['{{- .spec.image -}}', 'nginx:1.27'],
  ])('%j renders %j', (source, expected) => {
    expect(compileTemplate(source).render(ctx)).toBe(expected);
  });

  it.each([
    [
      '{{#if spec.x}}a{{ end }}',
      `Go-template "{{ end }}" is not supported: Go's {{ end }} cannot close Handlebars' {{#if}}`,
      19,
    ],
    ['{{ template "x" . }}', '"{{ template }}" cannot be translated: Katalog templates have no named', 4],
    ['{{ $x := 1 }}{{ $x = 2 }}', 'assignment "$x =" cannot be translated', 20],
    ['{{ range .spec.regions }}{{ break }}{{ end }}', '"{{ break }}" cannot be translated', 29],
    ['{{ .spec.image | nindent 4 }}', 'function "nindent" cannot be translated', 18],
    ['{{ call .spec.fn 1 }}', 'function "call" cannot be translated: data cannot hold functions', 4],
  ])('%j is rejected plainly, without a hint', (source, message, column) => {
    const error = compileError(source, 'k.path');
    expect(error.detail).toContain(message);
    expect(error.column).toBe(column);
    expect(error.suggestion).toBeUndefined();
    expect(error.message).not.toContain('; write ');
  });

  it('does not flag Handlebars that only looks similar', () => {
    expect(compileTemplate('{{#each spec.regions as |r i|}}{{ r.name }}{{/each}}').render(ctx)).toBe('euus');
    expect(compileTemplate('{{ index }}').render({ index: 2 })).toBe(2);
    expect(compileTemplate('{{#if a}}x{{else if b}}y{{/if}}').render({ b: true })).toBe('y');
    expect(compileTemplate('{{ default spec.x "a | b" }}').render(ctx)).toBe('a | b');
    expect(compileTemplate('{{ replace "a-b" "-" "$" }}').render(ctx)).toBe('a$b');
  });
});

describe('referencedPaths', () => {
  it.each([
    ['{{ .spec.image }}', ['spec.image']],
    ['static', []],
    ['{{ default spec.image (lower metadata.labels.team) }}', ['metadata.labels.team', 'spec.image']],
    [
      '{{#each spec.regions}}{{ name }}{{ @index }}{{ @root.metadata.name }}{{/each}}',
      ['metadata.name', 'spec.regions', 'spec.regions.*.name'],
    ],
    [
      '{{#each spec.regions as |r i|}}{{ r.name }}{{ i }}{{ ../spec.image }}{{/each}}',
      ['spec.image', 'spec.regions', 'spec.regions.*.name'],
    ],
    ['{{#with spec.env}}{{ A }}{{ this.B }}{{/with}}', ['spec.env', 'spec.env.A', 'spec.env.B']],
    [
      '{{#if spec.enabled}}{{ spec.image }}{{else}}{{ item.name }}{{/if}}',
      ['item.name', 'spec.enabled', 'spec.image'],
    ],
    ['{{ lookup spec.env "A" }}', ['spec.env', 'spec.env.A']],
    ['{{ now }}{{ index }}', ['index']],
    ['{{#each spec.a}}{{#if x}}{{ ../y }}{{/if}}{{/each}}', ['spec.a', 'spec.a.*.x', 'y']],
    ['{{ len children.web.status }}{{ hasCondition cross.db "Ready" }}', ['children.web.status', 'cross.db']],
  ])('%j reads %j', (source, expected) => {
    expect(referencedPaths(source)).toEqual(expected);
  });
});

describe('helperCalls', () => {
  it('lists each helper call with its arguments: resolved paths, literals and nested calls', () => {
    const calls = compileTemplate(
      '{{#each spec.qs as |q|}}{{ promAboveThreshold ../external.depth "10" }}{{ lower q.name }}{{/each}}{{ default (promValue .external.up) 0 }}',
    ).helperCalls;
    expect(calls).toEqual([
      { helper: 'each', args: [{ kind: 'path', path: 'spec.qs' }] },
      {
        helper: 'promAboveThreshold',
        args: [
          { kind: 'path', path: 'external.depth' },
          { kind: 'string', value: '10' },
        ],
      },
      { helper: 'lower', args: [{ kind: 'path', path: 'spec.qs.*.name' }] },
      { helper: 'promValue', args: [{ kind: 'path', path: 'external.up' }] },
      {
        helper: 'default',
        args: [
          { kind: 'call', helper: 'promValue' },
          { kind: 'number', value: 0 },
        ],
      },
    ]);
  });

  it('sees the calls of an upstream Go template', () => {
    expect(
      compileTemplate('{{ if promAboveThreshold .external.q 5 }}hot{{ end }}').helperCalls,
    ).toContainEqual({
      helper: 'promAboveThreshold',
      args: [
        { kind: 'path', path: 'external.q' },
        { kind: 'number', value: 5 },
      ],
    });
  });
});
