import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { TEMPLATE_TOOL_VERSIONS } from './template-versions.js';

/** ScaffoldOptions configures {@link providerFiles} and {@link scaffoldProvider}. */
export interface ScaffoldOptions {
  /** npm package name of the new provider, e.g. `@acme/provider-notes`. */
  readonly packageName: string;
  /** Provider name in the Katalog's `spec.providers` (lowercase, digits and `-`). */
  readonly providerName: string;
  /** Exact `@orkestra/types` version to pin; the peer range is `^` of it. */
  readonly typesVersion: string;
  /** Exact `@orkestra/provider-kit` version to pin. */
  readonly providerKitVersion: string;
}

/** ScaffoldError is a scaffold that cannot start (bad name, directory not empty); `code` says which. */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
  readonly code: 'InvalidName' | 'DirectoryNotEmpty';

  constructor(code: ScaffoldError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;
const PROVIDER_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** defaultProviderName derives a provider name from a package name: `@acme/provider-notes` → `notes`. */
export function defaultProviderName(packageName: string): string {
  const bare = packageName.replace(/^@[^/]+\//, '').replace(/^(?:orkestra-)?provider-/, '');
  return bare.replace(/[^a-z0-9-]/g, '-').replace(/^[^a-z]+/, '') || 'provider';
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * providerFiles returns the files of a new provider project by relative path: package.json,
 * tsconfig.json, src/index.ts (a provider with one kind), src/index.test.ts (the conformance
 * suite), README.md and .gitignore. Pure: nothing is written.
 */
export function providerFiles(options: ScaffoldOptions): Readonly<Record<string, string>> {
  if (!PACKAGE_NAME.test(options.packageName)) {
    throw new ScaffoldError('InvalidName', `"${options.packageName}" is not a valid npm package name`);
  }
  if (!PROVIDER_NAME.test(options.providerName)) {
    throw new ScaffoldError(
      'InvalidName',
      `provider name "${options.providerName}": lowercase letters, digits and "-", starting with a letter`,
    );
  }
  const { packageName: pkg, providerName: name } = options;
  const tools = TEMPLATE_TOOL_VERSIONS;
  return {
    'package.json': json({
      name: pkg,
      version: '0.1.0',
      description: `An Orkestra provider: ${name}.`,
      license: 'Apache-2.0',
      type: 'module',
      sideEffects: false,
      engines: { node: '>=20.19' },
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './package.json': './package.json',
      },
      files: ['dist', '!dist/**/*.test.*'],
      scripts: {
        build: 'tsc -p tsconfig.json',
        test: 'vitest run',
        prepublishOnly: 'npm run build && npm test',
      },
      peerDependencies: { '@orkestra/types': `^${options.typesVersion}` },
      dependencies: { '@orkestra/provider-kit': options.providerKitVersion, zod: `^${tools.zod}` },
      devDependencies: {
        '@orkestra/types': options.typesVersion,
        '@types/node': tools['@types/node'],
        typescript: tools.typescript,
        vitest: tools.vitest,
      },
    }),
    'tsconfig.json': json({
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        verbatimModuleSyntax: true,
        declaration: true,
        declarationMap: true,
        sourceMap: true,
        rootDir: 'src',
        outDir: 'dist',
        types: ['node'],
      },
      include: ['src'],
      exclude: ['src/**/*.test.ts'],
    }),
    'src/index.ts': `/**
 * ${pkg} is an Orkestra provider. Kind \`note\` keeps a text per declaration and outputs it.
 * Katalog: spec.providers: [{ name: ${name}, package: "${pkg}", config: { prefix: "" } }]
 */
import { defineProvider } from '@orkestra/provider-kit';
import { z } from 'zod';

/** Config is the provider config from the Katalog. */
export const Config = z.object({ prefix: z.string().default('') });

/** NoteSpec is one \`note\` declaration. */
export const NoteSpec = z.object({
  id: z.string().regex(/^[a-z0-9-]{1,63}$/, 'lowercase letters, digits and "-", 1 to 63 characters'),
  text: z.string().min(1),
});

const provider = defineProvider({
  name: '${name}',
  configSchema: Config,
  setup: ({ config }) => ({ prefix: config.prefix, notes: new Map<string, string>() }),
  kinds: {
    note: {
      schema: NoteSpec,
      outputs: ['text'],
      async reconcile({ spec, state }) {
        const text = \`\${state.prefix}\${spec.text}\`;
        state.notes.set(spec.id, text);
        return { state: 'ready', outputs: { text } };
      },
      async delete({ spec, state }) {
        state.notes.delete(spec.id);
        return { state: 'deleted' };
      },
    },
  },
});

/** configSchema validates the provider config; the operator imports it by name. */
export const configSchema = provider.configSchema;
/** createProvider starts the provider; the operator imports it by name. */
export const createProvider = provider.createProvider;
`,
    'src/index.test.ts': `import { describeProviderConformance } from '@orkestra/provider-kit/conformance';
import { describe } from 'vitest';
import * as provider from './index.js';

describe('${pkg}', () => {
  describeProviderConformance({
    module: provider,
    config: { prefix: '' },
    name: '${name}',
    cases: [
      {
        kind: 'note',
        spec: (id) => ({ id, text: \`note \${id}\` }),
        invalid: { spec: { id: 'Not OK', text: 'x' }, field: 'id' },
      },
    ],
  });
});
`,
    'README.md': `# ${pkg}

An [Orkestra](https://github.com/orkestra/orkestra) provider. Kind \`note\` keeps a text and
outputs it as \`text\`.

\`\`\`sh
npm install      # @orkestra/types ${options.typesVersion}, @orkestra/provider-kit ${options.providerKitVersion}
npm run build    # tsc, strict, NodeNext, against the published .d.ts
npm test         # vitest: the provider-kit conformance suite
npm publish
\`\`\`

Use it in a Katalog:

\`\`\`yaml
spec:
  providers:
    - { name: ${name}, package: "${pkg}", config: { prefix: "" } }
  crds:
    notes:
      operatorBox:
        providers:
          ${name}:
            - name: hello
              note: { id: "{{ metadata.name }}", text: "{{ spec.text }}" }
\`\`\`

Load it into an operator image it was not built with: \`npm install --omit=peer --prefix
/opt/orkestra/providers ${pkg}\` in a derived image (or set \`ORKESTRA_PROVIDER_DIR\`). The
operator shares its own \`@orkestra/types\` with the provider and refuses one whose peer range
(\`^${options.typesVersion}\`) its copy does not satisfy.
`,
    '.gitignore': 'node_modules/\ndist/\n',
  };
}

/**
 * hookFiles returns the files of a new module project (docs/reference/katalog.md §14.5, §15.3): the
 * provider project's tsconfig and .gitignore, a package.json that peers on the kit (optional: the
 * operator provides it), src/index.ts (one `defineHook` and one `defineReconciler`), src/index.test.ts,
 * src/conformance.test.ts (the kit's module conformance suite on both) and a README. Pure.
 */
export function hookFiles(options: ScaffoldOptions): Readonly<Record<string, string>> {
  const base = providerFiles(options);
  const { packageName: pkg } = options;
  const tools = TEMPLATE_TOOL_VERSIONS;
  const manifest = JSON.parse(base['package.json'] ?? '{}') as Record<string, unknown>;
  return {
    'package.json': json({
      ...manifest,
      description: 'Orkestra module hooks and a module reconciler.',
      peerDependencies: {
        '@orkestra/types': `^${options.typesVersion}`,
        '@orkestra/provider-kit': `^${options.providerKitVersion}`,
      },
      peerDependenciesMeta: {
        '@orkestra/types': { optional: true },
        '@orkestra/provider-kit': { optional: true },
      },
      dependencies: undefined,
      devDependencies: {
        '@orkestra/types': options.typesVersion,
        '@orkestra/provider-kit': options.providerKitVersion,
        '@types/node': tools['@types/node'],
        typescript: tools.typescript,
        vitest: tools.vitest,
      },
    }),
    'tsconfig.json': base['tsconfig.json'] ?? '',
    'src/index.ts': `/**
 * ${pkg}: Orkestra module hooks and a module reconciler. Katalog:
 * operatorBox.hooks: [{ module: "${pkg}", function: greet, args: { greeting: Hello } }]
 * operatorBox.remote: { module: "${pkg}", function: reconcile, managedResources: [{ group: "", plural: configmaps }] }
 * Types of your CR: \`ork generate types katalog.yaml --entry <entry> > src/katalog-types.ts\`.
 */
import { defineHook, defineReconciler } from '@orkestra/provider-kit';

/** GreetSpec is the part of the CR's spec the hook reads. */
export interface GreetSpec {
  readonly name?: string;
}

/**
 * greet outputs \`hooks.greet.text\`, e.g. for a status field. Its onDelete step runs while the CR is
 * being deleted, before its finalizer goes: release here what the hook set up outside the cluster
 * (idempotent — it may be called again after a restart).
 */
export const greet = defineHook<GreetSpec, Record<string, unknown>, { text: string }, { greeting?: string }>(
  ({ cr, args }) => ({
    outputs: { text: \`\${args.greeting ?? 'Hello'}, \${cr.spec.name ?? cr.metadata.name}\` },
  }),
  {
    onDelete: ({ cr, logger }) => {
      logger.info({ name: cr.metadata.name }, 'greeting withdrawn');
    },
  },
);

/** GreetStatus is what the reconciler writes under the CR's status. */
export interface GreetStatus {
  readonly greeting: string;
}

/**
 * reconcile owns the CR's children: a ConfigMap with the greeting (only kinds in the Katalog's
 * managedResources are applied), and the greeting in the status. Deterministic, no input changed.
 */
export const reconcile = defineReconciler<GreetSpec, GreetStatus, { greeting?: string }>(({ cr, args }) => {
  const text = \`\${args.greeting ?? 'Hello'}, \${cr.spec.name ?? cr.metadata.name}\`;
  return {
    resources: [{ type: 'configmap', fields: { name: \`\${cr.metadata.name}-greeting\`, data: { text } } }],
    status: { greeting: text },
  };
});
`,
    'src/index.test.ts': `import { createFakeKubeReader, createSilentLogger } from '@orkestra/provider-kit';
import { describe, expect, it } from 'vitest';
import { greet } from './index.js';

describe('greet', () => {
  it('greets the CR', async () => {
    const result = await greet.run({
      entry: 'demo',
      cr: {
        apiVersion: 'demo.example.io/v1',
        kind: 'Demo',
        metadata: { name: 'shop', uid: 'u1', generation: 1, labels: {}, annotations: {} },
        spec: { name: 'World' },
        status: {},
      },
      args: { greeting: 'Hi' },
      context: {},
      kube: createFakeKubeReader({}),
      logger: createSilentLogger(),
      signal: new AbortController().signal,
    });
    expect(result).toEqual({ outputs: { text: 'Hi, World' } });
  });
});
`,
    'src/conformance.test.ts': `import { describeModuleConformance } from '@orkestra/provider-kit/conformance';
import { greet, reconcile } from './index.js';

// The contract every module export keeps: JSON results with the contract's keys only, input left
// unchanged, an answer within the time bound, the same result for the same input.
const cases = [
  { title: 'a named CR', cr: { metadata: { name: 'shop' }, spec: { name: 'World' } }, args: { greeting: 'Hi' } },
  { title: 'defaults', cr: { metadata: { name: 'shop' }, spec: {} } },
];

describeModuleConformance({ export: greet, cases });
describeModuleConformance({ export: reconcile, cases });
`,
    'README.md': `# ${pkg}

[Orkestra](https://github.com/orkestra/orkestra) module hooks (custom logic in TypeScript).

\`\`\`sh
npm install && npm run build && npm test
npm pack && npm install --omit=peer --prefix /opt/orkestra/providers ./*.tgz   # the operator's provider directory
\`\`\`

A hook computes values for templates:

\`\`\`yaml
operatorBox:
  hooks:
    - { module: "${pkg}@^0.1.0", function: greet, args: { greeting: Hello } }
  status:
    fields:
      - { path: greeting, value: "{{ hooks.greet.text }}" }
\`\`\`

A reconciler owns the children and the status (the in-process counterpart of a remote reconciler):

\`\`\`yaml
operatorBox:
  remote:
    module: "${pkg}@^0.1.0"
    function: reconcile
    args: { greeting: Hello }
    managedResources: [{ group: "", plural: configmaps }]
\`\`\`

\`src/conformance.test.ts\` runs the kit's conformance suite on both exports.
`,
    '.gitignore': base['.gitignore'] ?? '',
  };
}

/**
 * scaffoldProvider writes {@link providerFiles} (or {@link hookFiles} with `template: 'hook'`) into `dir` (created when missing; it must be
 * empty) and returns the paths written, relative to `dir`.
 */
export function scaffoldProvider(
  dir: string,
  options: ScaffoldOptions & { readonly template?: 'provider' | 'hook' },
): readonly string[] {
  const target = resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new ScaffoldError('DirectoryNotEmpty', `${target} is not empty; choose a new directory`);
  }
  const files = options.template === 'hook' ? hookFiles(options) : providerFiles(options);
  for (const [path, text] of Object.entries(files)) {
    const file = join(target, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return Object.keys(files);
}

/** packageNameFromDirectory is the default package name: the directory's base name. */
export function packageNameFromDirectory(dir: string): string {
  return basename(resolve(dir));
}
