import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { compileNormalize } from './normalize-spec.js';
import { createTemplateEngine } from './template-engine.js';

/**
 * Templates written the way upstream Katalogs write them (leading dots, `default`, `eq`, `typeOf`
 * branching), ported to Handlebars block syntax, with the output they must produce.
 */
const engine = createTemplateEngine({
  clock: { now: () => Date.UTC(2026, 3, 6, 8, 0, 0) },
  random: (size) => new Uint8Array(size).fill(7),
});

const cr = {
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Website',
  metadata: {
    name: 'shop',
    namespace: 'prod',
    labels: { team: 'payments', env: 'production' },
    generation: 2,
  },
  spec: {
    image: 'registry.example.com/shop:1.4.2',
    replicas: 3,
    port: 8080,
    tier: 'gold',
    debug: false,
    domain: 'Shop.Example.COM ',
    regions: ['us-east-1', 'eu-west-1'],
    resources: { cpu: '500m', memory: '1Gi' },
    schedule: { minute: 30, hour: 2 },
  },
  status: { phase: 'Running' },
  external: { health: { status: '200', body: '{"ok":true,"version":"1.4.2"}' } },
  git: { commit: '0123456789abcdef0123', changed: 'true' },
  docker: { image: 'registry.example.com/shop@sha256:abc', buildSucceeded: 'true' },
  cross: { db: { spec: { host: 'db.prod.svc', port: 5432 }, status: { ready: true } } },
};

const cases: ReadonlyArray<readonly [string, unknown]> = [
  ['{{ .metadata.name }}-web', 'shop-web'],
  ['{{ .spec.image }}', 'registry.example.com/shop:1.4.2'],
  ['{{ .spec.replicas }}', 3],
  ['{{ default .spec.logLevel "info" }}', 'info'],
  ['{{ default .spec.debug true }}', false],
  ['{{ default .spec.replicas 1 }}', 3],
  ['{{#if (eq .spec.tier "gold")}}3{{else}}1{{/if}}', '3'],
  ['{{#if (eq .metadata.labels.env "production")}}prod{{else}}dev{{/if}}-{{ .metadata.name }}', 'prod-shop'],
  ['{{#if .spec.debug}}debug{{else}}info{{/if}}', 'info'],
  ['{{ lower (trim .spec.domain) }}', 'shop.example.com'],
  ['{{ .metadata.name }}.{{ .metadata.namespace }}.svc.cluster.local', 'shop.prod.svc.cluster.local'],
  ['{{ .spec.port }}', 8080],
  ['{{ eq .external.health.status "200" }}', true],
  ['{{ lookup (fromJson .external.health.body) "version" }}', '1.4.2'],
  ['{{ trunc .git.commit 7 }}', '0123456'],
  ['{{#if (eq .git.changed "true")}}rebuild{{/if}}', 'rebuild'],
  ['{{ default .docker.image .spec.image }}', 'registry.example.com/shop@sha256:abc'],
  [
    'postgres://{{ .cross.db.spec.host }}:{{ .cross.db.spec.port }}/{{ .metadata.name }}',
    'postgres://db.prod.svc:5432/shop',
  ],
  ['{{ join .spec.regions "," }}', 'us-east-1,eu-west-1'],
  ['{{ len .spec.regions }}', 2],
  ['{{ typeOf .spec.resources }}', 'map'],
  ['{{ .spec.resources }}', { cpu: '500m', memory: '1Gi' }],
  ['cpu={{ .spec.resources.cpu }},mem={{ .spec.resources.memory }}', 'cpu=500m,mem=1Gi'],
  ['{{ randomAlphanumeric 6 }}', 'HHHHHH'],
  [
    '{{ toUpper .spec.tier }}-{{ sha256sum .metadata.name }}',
    `GOLD-${createHash('sha256').update('shop').digest('hex').slice(0, 8)}`,
  ],
  ['{{ ternary .spec.debug "1" "0" }}', '0'],
  [
    '{{#each .spec.regions}}{{ @root.metadata.name }}-{{ this }}{{#unless @last}} {{/unless}}{{/each}}',
    'shop-us-east-1 shop-eu-west-1',
  ],
  ['{{ now }}', '2026-04-06T08:00:00Z'],
  ['{{ and (eq .status.phase "Running") .cross.db.status.ready }}', true],
  // Go's `or` gives the first true operand (the last when none is), as upstream's text/template does.
  ['{{ or .spec.missing .spec.tier }}', 'gold'],
  ['{{ coalesce .spec.missing .metadata.labels.team "none" }}', 'payments'],
  ['{{ quote .metadata.labels.team }}', '"payments"'],
];

describe('upstream-style templates', () => {
  it.each(cases)('%s → %j', (source, expected) => {
    expect(engine.compileTemplate(source).render(cr)).toEqual(expected);
  });

  it('has at least 20 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  it('a bare unknown name used as a helper is a load error', () => {
    expect(() => engine.compileTemplate('{{ b64enc (printf_free .metadata.name) }}', { path: 'x' })).toThrow(
      'x: unknown helper "printf_free" (column 12)',
    );
  });
});

describe("the seed's CronJob normalize example", () => {
  const katalog = parse(`
normalize:
  spec:
    schedule: >
      {{#if (eq (typeOf .spec.schedule) "map")}}
        {{ cronExpr .spec.schedule.minute .spec.schedule.hour .spec.schedule.dayOfMonth .spec.schedule.month .spec.schedule.dayOfWeek }}
      {{else}}
        {{ .spec.schedule }}
      {{/if}}
`) as { normalize: { spec: Record<string, string> } };
  const normalize = compileNormalize(katalog.normalize, { path: 'backup.normalize', engine });

  it('turns a map schedule into a cron string', () => {
    const out = normalize.apply({ spec: { schedule: { minute: 30, hour: 2 } } });
    expect(out.spec.schedule).toBe('30 2 * * *');
  });

  it('keeps a string schedule as it is', () => {
    const out = normalize.apply({ spec: { schedule: '*/15 * * * *' } });
    expect(out.spec.schedule).toBe('*/15 * * * *');
  });

  it('compiles the Go-template original (ADR 0004) to the same value as the Handlebars port', () => {
    const upstream = `{{ if eq (typeOf .spec.schedule) "map" }}
  {{ cronExpr .spec.schedule.minute .spec.schedule.hour }}
{{ else }}
  {{ .spec.schedule }}
{{ end }}`;
    const normalize = compileNormalize(
      { spec: { schedule: upstream } },
      { path: 'backup.normalize', engine },
    );
    expect(normalize.apply(cr)).toMatchObject({ spec: { schedule: '30 2 * * *' } });
  });
});
