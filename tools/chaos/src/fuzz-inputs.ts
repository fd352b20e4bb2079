/**
 * fast-check arbitraries for the fuzz scenario: Katalogs and CRs derived from the example
 * Katalogs by random mutations (values replaced by random JSON, template strings or garbage; keys
 * deleted or added; lists emptied or duplicated), plus some inputs that are not YAML at all.
 * Mutating real Katalogs keeps most inputs deep enough to reach compilation and rendering.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse, parseAllDocuments, stringify } from 'yaml';

/** ExampleSource is one example Katalog with its CRs, as plain values. */
export interface ExampleSource {
  readonly name: string;
  readonly katalog: unknown;
  readonly crs: readonly unknown[];
}

/** FuzzInput is one generated case: Katalog text and CR text for `ork validate` and `ork render`. */
export interface FuzzInput {
  /** The example it was derived from, or `random` for inputs built from nothing. */
  readonly origin: string;
  readonly katalogText: string;
  readonly crText: string;
}

/** readExamples loads every `examples/<name>/katalog.yaml` with its `crs/*.yaml`. */
export function readExamples(examplesDir: string): ExampleSource[] {
  const out: ExampleSource[] = [];
  for (const name of readdirSync(examplesDir).sort()) {
    const dir = join(examplesDir, name);
    let katalog: unknown;
    try {
      katalog = parse(readFileSync(join(dir, 'katalog.yaml'), 'utf8'));
    } catch {
      continue;
    }
    let crFiles: string[];
    try {
      crFiles = readdirSync(join(dir, 'crs'))
        .filter((f) => f.endsWith('.yaml'))
        .sort();
    } catch {
      crFiles = [];
    }
    const crs = crFiles.flatMap((f) =>
      parseAllDocuments(readFileSync(join(dir, 'crs', f), 'utf8')).map((d) => d.toJS() as unknown),
    );
    if (crs.length > 0) out.push({ name, katalog, crs });
  }
  return out;
}

const HELPERS = [
  'eq',
  'ne',
  'and',
  'or',
  'not',
  'default',
  'coalesce',
  'empty',
  'ternary',
  'typeOf',
  'toString',
  'toYaml',
  'fromJson',
  'sha256',
  'quote',
  'title',
  'trunc',
  'replace',
  'contains',
  'hasPrefix',
  'split',
  'join',
  'list',
  'dict',
  'len',
  'sub',
  'div',
  'mod',
  'min',
  'max',
  'now',
  'formatDate',
  'randomAlphanumeric',
  'randomHex',
  'randomBase64',
  'uuid',
  'cronExpr',
  'readyReplicas',
  'hasCondition',
  'trimSpace',
  'upper',
  'lower',
  'b64enc',
  'noSuchHelper',
  'index',
  'printf',
  'range',
];
const ROOTS = [
  'spec',
  'metadata',
  'status',
  'item',
  'value',
  'cross',
  'external',
  'children',
  'git',
  'docker',
  'providers',
  'x',
  '',
];

const pathArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...ROOTS),
    fc.array(fc.constantFrom('name', 'image', 'replicas', 'a', 'b-c', '0', 'tier', 'title', ''), {
      maxLength: 3,
    }),
  )
  .map(([root, rest]) => [root, ...rest].join('.'));

const atomArb: fc.Arbitrary<string> = fc.oneof(
  pathArb,
  fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map(String),
  fc.constantFrom('-1', '0', '1e309', '99999999999999999999', 'true', 'nil', 'null', '"a"', '"', '`x`'),
  fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
);

const expressionArb: fc.Arbitrary<string> = fc.oneof(
  atomArb,
  fc
    .tuple(fc.constantFrom(...HELPERS), fc.array(atomArb, { maxLength: 3 }))
    .map(([h, args]) => [h, ...args].join(' ')),
  fc
    .tuple(atomArb, fc.constantFrom(...HELPERS), fc.array(atomArb, { maxLength: 2 }))
    .map(([a, h, args]) => `${a} | ${[h, ...args].join(' ')}`),
);

/** templateArb produces template strings: mostly well-formed `{{ … }}`, sometimes broken. */
const templateArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 6 }), expressionArb, fc.string({ maxLength: 6 }))
      .map(([a, e, b]) => `${a}{{ ${e} }}${b}`),
  },
  { weight: 1, arbitrary: expressionArb.map((e) => `{{ ${e}`) },
  { weight: 1, arbitrary: expressionArb.map((e) => `{{{ ${e} }}}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{{',
      '}}',
      '{{}}',
      '{{ .spec.x }}',
      '{{ if spec.a }}x{{ end }}',
      '{{ range spec.a }}{{ . }}{{ end }}',
      '${spec.a}',
    ),
  },
);

const scalarArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-',
    '*',
    '../..',
    'a'.repeat(300),
    '1.5Gi',
    '10m',
    '30d',
    '0s',
    'P1D',
    '169.254.169.254',
    'kube-system',
  ),
  templateArb,
);

const keyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'name',
    'image',
    'replicas',
    'when',
    'forEach',
    'field',
    'equals',
    'data',
    'once',
    'tls',
    'rotateAfter',
    'apiTypes',
    'group',
    'version',
    'kind',
    'plural',
    'schema',
    'operatorBox',
    'onCreate',
    'onReconcile',
    'onDelete',
    'status',
    'fields',
    'validation',
    'rules',
    'normalize',
    'mutation',
    'external',
    'cross',
    'providers',
    'forceConflict',
    'prune',
    'namespace',
    'labels',
    'annotations',
    'ports',
    'env',
    'resync',
    'dependsOn',
    'reconcile',
    'timeout',
    'cacheFor',
    '__proto__',
    'constructor',
    'toString',
  ),
  fc.string({ maxLength: 10 }),
);

/** jsonArb produces JSON-like values up to a small depth, with Katalog-ish keys. */
const jsonArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarArb,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keyArb, tie('value'), { maxKeys: 4 }),
  ),
})).value;

type Path = readonly (string | number)[];

/** pathsOf lists every path inside a plain JSON value (maps and lists), depth first. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value != null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  }
  return out;
}

/** Mutation is one edit of a JSON value at a path. */
export type Mutation =
  | { readonly op: 'replace'; readonly at: number; readonly value: unknown }
  | { readonly op: 'delete'; readonly at: number }
  | { readonly op: 'add'; readonly at: number; readonly key: string; readonly value: unknown }
  | { readonly op: 'duplicate'; readonly at: number }
  | { readonly op: 'empty'; readonly at: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: jsonArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('add' as const), at: fc.nat(), key: keyArb, value: jsonArb }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('duplicate' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('empty' as const), at: fc.nat() }) },
);

/**
 * applyMutation returns a copy of `value` with one mutation applied at the `at`-th path (modulo
 * the number of paths), leaving `value` untouched.
 */
export function applyMutation(value: unknown, mutation: Mutation): unknown {
  const root = structuredClone(value);
  const paths = pathsOf(root);
  const path = paths[mutation.at % paths.length] ?? [];
  if (path.length === 0) {
    if (mutation.op === 'replace') return mutation.value;
    if (mutation.op === 'empty') return Array.isArray(root) ? [] : {};
    if (mutation.op === 'add' && root != null && typeof root === 'object' && !Array.isArray(root)) {
      Object.defineProperty(root, mutation.key, {
        value: mutation.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return root;
  }
  const parent = path
    .slice(0, -1)
    .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root) as
    Record<string | number, unknown> | unknown[];
  const key = path[path.length - 1] as string | number;
  const current = (parent as Record<string | number, unknown>)[key];
  switch (mutation.op) {
    case 'replace':
      (parent as Record<string | number, unknown>)[key] = mutation.value;
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete (parent as Record<string | number, unknown>)[key];
      break;
    case 'add':
      if (current != null && typeof current === 'object' && !Array.isArray(current)) {
        Object.defineProperty(current, mutation.key, {
          value: mutation.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else if (Array.isArray(current)) current.push(mutation.value);
      break;
    case 'duplicate':
      if (Array.isArray(parent)) parent.splice(Number(key), 0, structuredClone(current));
      else if (Array.isArray(current) && current.length > 0) current.push(structuredClone(current[0]));
      break;
    case 'empty':
      (parent as Record<string | number, unknown>)[key] = Array.isArray(current)
        ? []
        : current != null && typeof current === 'object'
          ? {}
          : '';
      break;
  }
  return root;
}

function toYaml(value: unknown): string {
  try {
    return stringify(value, { aliasDuplicateObjects: false });
  } catch {
    return String(value);
  }
}

/** MutationWeights picks how often each part is mutated. */
const partArb = fc.constantFrom('katalog', 'cr', 'both' as const);

/**
 * fuzzInputArb builds inputs from the examples: 85 % mutated example Katalogs and/or CRs
 * (1–4 mutations each), 10 % an example Katalog with a CR whose spec is random JSON, 5 % random
 * text.
 */
export function fuzzInputArb(examples: readonly ExampleSource[]): fc.Arbitrary<FuzzInput> {
  if (examples.length === 0) throw new Error('no example Katalogs to fuzz');
  const exampleArb = fc.constantFrom(...examples);
  const mutated: fc.Arbitrary<FuzzInput> = fc
    .tuple(
      exampleArb,
      fc.nat(),
      partArb,
      fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
      fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
    )
    .map(([example, crIndex, part, katalogMutations, crMutations]) => {
      const cr = example.crs[crIndex % example.crs.length];
      const katalog =
        part === 'cr' ? example.katalog : katalogMutations.reduce(applyMutation, example.katalog);
      const crValue = part === 'katalog' ? cr : crMutations.reduce(applyMutation, cr);
      return { origin: example.name, katalogText: toYaml(katalog), crText: toYaml(crValue) };
    });
  const randomSpec: fc.Arbitrary<FuzzInput> = fc
    .tuple(exampleArb, fc.nat(), jsonArb)
    .map(([example, crIndex, spec]) => {
      const cr = (example.crs[crIndex % example.crs.length] ?? {}) as Record<string, unknown>;
      return { origin: example.name, katalogText: toYaml(example.katalog), crText: toYaml({ ...cr, spec }) };
    });
  const randomText: fc.Arbitrary<FuzzInput> = fc
    .tuple(
      fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 200 }),
        jsonArb.map(toYaml),
      ),
      fc.oneof(fc.string({ maxLength: 100 }), jsonArb.map(toYaml)),
    )
    .map(([katalogText, crText]) => ({ origin: 'random', katalogText, crText }));
  return fc.oneof(
    { weight: 17, arbitrary: mutated },
    { weight: 2, arbitrary: randomSpec },
    { weight: 1, arbitrary: randomText },
  );
}
