// Render benchmark for @orkestra/template: a realistic Deployment entry (15+ templated fields, a
// forEach over 3 regions), compiled from source and rendered per child. Imports the built dist/
// (run through `pnpm --filter @orkestra/template bench`, which builds first). Prints figures only;
// nothing here asserts on time.
import { performance } from 'node:perf_hooks';
import { compileEntry, createTemplateEngine } from '../dist/index.js';

const entry = {
  name: '{{ .metadata.name }}-{{ region.name }}',
  namespace: '{{ default .spec.namespace .metadata.namespace }}',
  image: '{{ default .spec.image "nginx:1.27" }}',
  replicas: '{{ region.replicas }}',
  labels: {
    app: '{{ .metadata.name }}',
    region: '{{ region.name }}',
    tier: '{{#if (eq .spec.tier "gold")}}premium{{else}}standard{{/if}}',
    team: '{{ default .metadata.labels.team "platform" }}',
  },
  annotations: {
    'orkestra.konductor.io/commit': '{{ trunc .git.commit 12 }}',
    'example.com/position': '{{ index }}/{{ len .spec.regions }}',
  },
  nodeSelector: { 'topology.kubernetes.io/region': '{{ region.name }}' },
  containers: [
    {
      name: 'web',
      image: '{{ default .spec.image "nginx:1.27" }}',
      args: [
        '--port={{ .spec.port }}',
        '--log-level={{ default .spec.logLevel "info" }}',
        '--region={{ upper region.name }}',
      ],
      env: [
        { name: 'REGION', value: '{{ region.name }}' },
        {
          name: 'DB_URL',
          value: 'postgres://{{ .cross.db.spec.host }}:{{ .cross.db.spec.port }}/{{ .metadata.name }}',
        },
        { name: 'DEBUG', value: '{{ ternary .spec.debug "1" "0" }}' },
      ],
      ports: [{ containerPort: '{{ .spec.port }}' }],
      resources: '{{ .spec.resources }}',
    },
  ],
  forEach: { field: 'spec.regions', as: 'region' },
  when: [{ field: 'region.enabled', notEquals: 'false' }],
};

const fieldTypes = {
  replicas: 'int',
  'containers[].ports[].containerPort': 'int',
  'containers[].resources.*.*': 'quantity',
};

const context = {
  apiVersion: 'demo.example.com/v1alpha1',
  kind: 'Website',
  metadata: { name: 'shop', namespace: 'prod', labels: { team: 'payments' }, generation: 3 },
  spec: {
    image: 'registry.example.com/shop:1.4.2',
    tier: 'gold',
    port: '8080',
    debug: false,
    regions: [
      { name: 'eu-west-1', replicas: 3, enabled: true },
      { name: 'us-east-1', replicas: '2', enabled: true },
      { name: 'ap-south-1', replicas: 1, enabled: true },
    ],
    resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '100m', memory: '256Mi' } },
  },
  git: { commit: '0123456789abcdef0123456789abcdef01234567' },
  cross: { db: { spec: { host: 'db.prod.svc', port: 5432 } } },
};

function time(iterations, fn) {
  for (let i = 0; i < Math.min(iterations, 500); i++) fn(i); // warm-up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn(i);
  return ((performance.now() - start) * 1000) / iterations; // µs per iteration
}

const templated = JSON.stringify(entry).match(/{{/g).length;

/** withVariant makes every template source unique (trailing spaces are trimmed away when rendering). */
function withVariant(value, pad) {
  if (typeof value === 'string') return value.includes('{{') ? value + pad : value;
  if (Array.isArray(value)) return value.map((item) => withVariant(item, pad));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === 'forEach' ? v : withVariant(v, pad)]),
    );
  }
  return value;
}

// Engine creation (Handlebars.create + helper registration) happens once per process.
const engineUs = time(50, () => createTemplateEngine());
// Cold compile: every source is new to the engine's cache (parse, check, transform, codegen).
const coldEngine = createTemplateEngine();
const variants = Array.from({ length: 1_200 }, (_, i) => withVariant(entry, ' '.repeat(i + 1)));
const compileUs = time(700, (i) => compileEntry(variants[i + 500], { fieldTypes, engine: coldEngine }));
// Warm compile: the same sources again (a second Katalog load) are served from the cache.
const warmEngine = createTemplateEngine();
const cachedCompileUs = time(5_000, () => compileEntry(entry, { fieldTypes, engine: warmEngine }));

const compiled = compileEntry(entry, { fieldTypes, engine: warmEngine });
const children = compiled.expand(context).length;
const expandUs = time(20_000, () => compiled.expand(context));
const perChildUs = expandUs / children;

// Breakdown of template kinds, each rendered alone.
const engine = createTemplateEngine();
const kinds = {
  'plain path    {{ .spec.image }}': engine.compileTemplate('{{ .spec.image }}'),
  'text + paths  {{ .metadata.name }}-{{ region.name }}': engine.compileTemplate(
    '{{ .metadata.name }}-{{ region.name }}',
  ),
  'helper        {{ default .spec.image "x" }}': engine.compileTemplate('{{ default .spec.image "x" }}'),
  'block         {{#if (eq .spec.tier "gold")}}…': engine.compileTemplate(
    '{{#if (eq .spec.tier "gold")}}premium{{else}}standard{{/if}}',
  ),
};
const ctx = { ...context, region: context.spec.regions[0] };

console.log(`@orkestra/template render benchmark (node ${process.version})`);
console.log(`entry: ${templated} templates, forEach over ${children} regions`);
console.log(`engine creation (once):        ${engineUs.toFixed(1)} µs`);
console.log(
  `compile (cold cache):          ${compileUs.toFixed(1)} µs per entry (${(compileUs / templated).toFixed(1)} µs per template)`,
);
console.log(`compile (warm source cache):   ${cachedCompileUs.toFixed(1)} µs per entry`);
console.log(`evaluate (expand 3 children):  ${expandUs.toFixed(1)} µs per entry`);
console.log(`evaluate per rendered child:   ${perChildUs.toFixed(1)} µs (goal < 50 µs)`);
console.log(
  `compile / evaluate:            one cold compile costs ${(compileUs / perChildUs).toFixed(0)} child renders`,
);
for (const [name, template] of Object.entries(kinds)) {
  const us = time(200_000, () => template.render(ctx));
  console.log(`  ${name.padEnd(56)} ${(us * 1000).toFixed(0)} ns`);
}
