import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { useControlPlane, useNpmRegistry } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../run-ork.js';
import { buildOrk, tempDir, uniqueSuffix, waitFor } from './ork-process.js';
import type { LogLine } from './ork-process.js';

// The release path and the third-party provider author's journey, outside the workspace:
// `changeset version --snapshot` + `changeset publish` of every publishable package to a local
// verdaccio; then, in temporary directories with plain npm and nothing linked, a provider written
// by hand against pinned versions, one scaffolded by `npm create @orkestra/provider@latest`, an
// operator installed from the registry, a provider directory, and two versions of @orkestra/types.
// Each step's duration is printed as `[journey] <step> <seconds>s`.

const exec = promisify(execFile);
const env = useControlPlane();
const registry = useNpmRegistry();
const work = tempDir();
const suffix = uniqueSuffix();
const group = `author${suffix}.example.com`;
const timings: string[] = [];
const TOOLS = { typescript: '6.0.3', vitest: '4.1.12', zod: '4.6.7', '@types/node': '20.19.43' };

/** The published packages and their snapshot versions, by round. */
const published: { first: Record<string, string>; second: Record<string, string> } = {
  first: {},
  second: {},
};
let operatorTarball = '';

async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  const start = Date.now();
  try {
    return await run();
  } finally {
    timings.push(`[journey] ${name} ${((Date.now() - start) / 1000).toFixed(1)}s`);
  }
}

/** sh runs a command with plain npm semantics (no pnpm, no workspace) and returns stdout. */
async function sh(
  cwd: string,
  command: string,
  args: readonly string[],
  extraEnv: Record<string, string> = {},
) {
  try {
    const { stdout } = await exec(command, [...args], {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: '1',
        FORCE_COLOR: '0',
        npm_config_fund: 'false',
        npm_config_audit: 'false',
        ...extraEnv,
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    // eslint-disable-next-line no-control-regex -- strips ANSI colour codes some tools print anyway
    return stdout.replace(/\u001b\[[0-9;]*m/g, '');
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
      {
        cause: error,
      },
    );
  }
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const npmrc = (): string => `${registry().npmrc('@orkestra')}@acme:registry=${registry().url}\n`;

function project(name: string, files: Record<string, string> = {}): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.npmrc'), npmrc());
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Private packages the copy needs: the operator (packed for the image) and the example provider other packages test with. */
const PRIVATE_COPIED = ['@orkestra/operator', '@orkestra/provider-hello'];

/** The workspace's publishable packages (and the private operator, packed for the image step). */
function workspacePackages(): { dir: string; name: string; private: boolean }[] {
  return ['packages', 'providers', 'apps', 'examples']
    .flatMap((group) => readdirSync(join(REPO_ROOT, group)).map((d) => join(group, d)))
    .filter((dir) => existsSync(join(REPO_ROOT, dir, 'package.json')))
    .map((dir) => ({
      dir,
      manifest: readJson<{ name: string; private?: boolean }>(join(REPO_ROOT, dir, 'package.json')),
    }))
    .filter(({ manifest }) => manifest.private !== true || PRIVATE_COPIED.includes(manifest.name))
    .map(({ dir, manifest }) => ({ dir, name: manifest.name, private: manifest.private === true }));
}

/**
 * release copies the workspace's package folders (sources, dist, README, LICENSE; no
 * node_modules) into `dir` and runs the release commands there, so the repository is not touched.
 */
async function release(
  dir: string,
  changeset: Record<string, 'patch' | 'minor'>,
): Promise<Record<string, string>> {
  const userconfig = join(dir, '.npmrc');
  const run = (args: string[]) =>
    sh(dir, join(REPO_ROOT, 'node_modules/.bin/changeset'), args, { NPM_CONFIG_USERCONFIG: userconfig });
  writeFileSync(
    join(dir, '.changeset', 'journey.md'),
    `---\n${Object.entries(changeset)
      .map(([name, bump]) => `'${name}': ${bump}`)
      .join('\n')}\n---\n\nJourney test release.\n`,
  );
  await run(['version', '--snapshot', 'ci']);
  const before = Object.fromEntries(
    workspacePackages()
      .filter((p) => !p.private)
      .map((p) => [p.name, readJson<{ version: string }>(join(dir, p.dir, 'package.json')).version]),
  );
  await run(['publish', '--no-git-tag', '--tag', 'latest']);
  return before;
}

function prepareRelease(dir: string): void {
  mkdirSync(join(dir, '.changeset'), { recursive: true });
  for (const file of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(REPO_ROOT, file), join(dir, file));
  writeFileSync(
    join(dir, 'pnpm-workspace.yaml'),
    'packages:\n  - packages/*\n  - providers/*\n  - apps/*\n  - examples/provider-*\n',
  );
  const config = readJson<Record<string, unknown>>(join(REPO_ROOT, '.changeset/config.json'));
  // The changelog generator asks the GitHub API about each commit; the release workflow has a
  // token for that, this test has neither the token nor the network.
  // A patch of @orkestra/types alone (the second round) must not republish its dependents.
  writeFileSync(
    join(dir, '.changeset/config.json'),
    JSON.stringify({
      ...config,
      changelog: false,
      ignore: PRIVATE_COPIED, // the copy holds no other private package
      updateInternalDependencies: 'minor',
      ___experimentalUnsafeOptions_WILL_CHANGE_IN_PATCH: { onlyUpdatePeerDependentsWhenOutOfRange: true },
    }),
  );
  for (const pkg of workspacePackages()) {
    cpSync(join(REPO_ROOT, pkg.dir), join(dir, pkg.dir), {
      recursive: true,
      filter: (source) => !/[/\\](node_modules|test)([/\\]|$)/.test(source.slice(REPO_ROOT.length)),
    });
  }
  // What `pnpm install` would link: each workspace dependency to its sibling in the copy, which is
  // where `pnpm publish` reads the version that replaces `workspace:^`.
  const byName = new Map(workspacePackages().map((p) => [p.name, p.dir]));
  for (const pkg of workspacePackages()) {
    const manifest = readJson<Record<string, Record<string, string> | undefined>>(
      join(dir, pkg.dir, 'package.json'),
    );
    for (const field of ['dependencies', 'peerDependencies', 'devDependencies']) {
      for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
        const target = byName.get(dep);
        if (!range.startsWith('workspace:') || target == null) continue;
        const link = join(dir, pkg.dir, 'node_modules', ...dep.split('/'));
        mkdirSync(join(link, '..'), { recursive: true });
        if (!existsSync(link)) symlinkSync(join(dir, target), link, 'dir');
      }
    }
  }
  writeFileSync(join(dir, '.npmrc'), registry().npmrc('@orkestra'));
}

const ECHO_PROVIDER = `import { defineProvider } from '@orkestra/provider-kit';
import { z } from 'zod';

export const MessageSpec = z.object({
  id: z.string().regex(/^[a-z0-9-]{1,63}$/, 'lowercase letters, digits and "-"'),
  text: z.string().min(1),
});

const echo = defineProvider({
  name: 'echo',
  configSchema: z.object({ suffix: z.string().default('!') }),
  setup: ({ config }) => ({ suffix: config.suffix, seen: new Map<string, string>() }),
  kinds: {
    message: {
      schema: MessageSpec,
      outputs: ['text'],
      async reconcile({ spec, state }) {
        const text = spec.text.toUpperCase() + state.suffix;
        state.seen.set(spec.id, text);
        return { state: 'ready', outputs: { text } };
      },
      async delete({ spec, state }) {
        state.seen.delete(spec.id);
        return { state: 'deleted' };
      },
    },
  },
});

export const configSchema = echo.configSchema;
export const createProvider = echo.createProvider;
`;

const ECHO_TEST = `import { describeProviderConformance } from '@orkestra/provider-kit/conformance';
import { describe } from 'vitest';
import * as echo from './index.js';

describe('@acme/provider-echo', () => {
  describeProviderConformance({
    module: echo,
    config: {},
    name: 'echo',
    cases: [{ kind: 'message', spec: (id) => ({ id, text: 'hi' }), invalid: { spec: { id: 'No!', text: 'x' }, field: 'id' } }],
  });
});
`;

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    declaration: true,
    declarationMap: true,
    sourceMap: true,
    rootDir: 'src',
    outDir: 'dist',
    types: ['node'],
  },
  include: ['src'],
  exclude: ['src/**/*.test.ts'],
});

function katalog(name: string, provider: { name: string; package: string; kind: string }): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: ${name}}
spec:
  providers:
    - {name: ${provider.name}, package: "${provider.package}"}
  crds:
    shout:
      apiTypes: {group: ${group}, version: v1, kind: Shout, plural: shouts}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-echo"
              data: {text: "{{ providers.${provider.name}.loud.text }}"}
        providers:
          ${provider.name}:
            - name: loud
              ${provider.kind}: {id: "{{ metadata.name }}", text: "{{ spec.text }}"}
        status:
          fields:
            - {path: text, value: "{{ providers.${provider.name}.loud.text }}"}
`;
}

const ork = (image: string) => join(image, 'node_modules/@orkestra/operator/bin/ork.mjs');

beforeAll(async () => {
  buildOrk();
  await exec('pnpm', ['exec', 'nx', 'run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });
}, 900_000);

afterAll(() => {
  console.log(timings.join('\n'));
  rmSync(work, { recursive: true, force: true });
});

describe('publishing and the provider author journey', { timeout: 600_000 }, () => {
  const releaseDir = join(work, 'release');

  it('publishes every publishable package with changeset version --snapshot and changeset publish', async () => {
    prepareRelease(releaseDir);
    const names = workspacePackages()
      .filter((p) => !p.private)
      .map((p) => p.name);
    published.first = await step('release (changeset version + publish, all packages)', () =>
      release(releaseDir, Object.fromEntries(names.map((n) => [n, 'patch']))),
    );
    expect(Object.keys(published.first).sort()).toEqual([...names].sort());
    for (const [name, version] of Object.entries(published.first)) {
      expect(version).toMatch(/^0\.0\.0-ci-\d{14}$/);
      const info = await sh(work, 'npm', [
        'view',
        `${name}@${version}`,
        'version',
        '--registry',
        registry().url,
      ]);
      expect(info.trim()).toBe(version);
    }
    // The operator, packed as an image build would install it: its dependencies at these versions.
    const packed = await sh(join(releaseDir, 'apps/operator'), 'pnpm', ['pack', '--pack-destination', work]);
    operatorTarball = packed.trim().split('\n').pop() ?? '';
    // The second version of @orkestra/types: a compatible addition, published the same way.
    await new Promise((resolve) => setTimeout(resolve, 1100)); // snapshot versions are stamped to the second
    const types = join(releaseDir, 'packages/types/dist');
    writeFileSync(
      join(types, 'index.js'),
      `${readFileSync(join(types, 'index.js'), 'utf8')}\nexport const journeyAddition = 1;\n`,
    );
    writeFileSync(
      join(types, 'index.d.ts'),
      `${readFileSync(join(types, 'index.d.ts'), 'utf8')}\nexport declare const journeyAddition = 1;\n`,
    );
    published.second = await step('release (second @orkestra/types)', () =>
      release(releaseDir, { '@orkestra/types': 'patch' }),
    );
    const changed = Object.keys(published.second).filter((n) => published.second[n] !== published.first[n]);
    expect(changed).toEqual(['@orkestra/types']);
  });

  it('a provider author builds a provider against pinned published versions and passes the conformance suite', async () => {
    const v = published.first;
    const types = v['@orkestra/types'] ?? '';
    const dir = project('provider-echo');
    await step('author: npm init + pinned installs', async () => {
      await sh(dir, 'npm', ['init', '-y', '--scope', '@acme']);
      await sh(dir, 'npm', [
        'install',
        '-E',
        `@orkestra/provider-kit@${v['@orkestra/provider-kit']}`,
        `zod@${TOOLS.zod}`,
      ]);
      await sh(dir, 'npm', [
        'install',
        '-D',
        '-E',
        `@orkestra/types@${types}`,
        `typescript@${TOOLS.typescript}`,
        `vitest@${TOOLS.vitest}`,
        `@types/node@${TOOLS['@types/node']}`,
      ]);
    });
    const manifest = readJson<Record<string, unknown>>(join(dir, 'package.json'));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        ...manifest,
        name: '@acme/provider-echo',
        version: '0.1.0',
        type: 'module',
        exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
        files: ['dist', '!dist/**/*.test.*'],
        peerDependencies: { '@orkestra/types': `^${types}` },
        scripts: { build: 'tsc -p tsconfig.json', test: 'vitest run' },
      }),
    );
    writeFileSync(join(dir, 'tsconfig.json'), TSCONFIG);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/index.ts'), ECHO_PROVIDER);
    writeFileSync(join(dir, 'src/index.test.ts'), ECHO_TEST);
    expect(ECHO_PROVIDER.split('\n').length).toBeLessThan(60);
    // Nothing comes from the workspace: every @orkestra package is a real install of the published tarball.
    expect(
      readJson<{ version: string }>(join(dir, 'node_modules/@orkestra/types/package.json')).version,
    ).toBe(types);
    await step('author: tsc (strict, NodeNext)', () => sh(dir, 'npm', ['run', 'build']));
    const test = await step('author: vitest conformance', () => sh(dir, 'npm', ['test']));
    expect(test).toMatch(/Tests\s+\d+ passed/);
    await step('author: npm publish', () => sh(dir, 'npm', ['publish']));
  });

  it('npm create @orkestra/provider@latest scaffolds a project that builds and passes from the registry', async () => {
    const parent = project('scaffold');
    const out = await step('scaffold: npm create', () =>
      sh(parent, 'npm', [
        'create',
        '--yes',
        '@orkestra/provider@latest',
        'provider-notes',
        '--',
        '--name',
        '@acme/provider-notes',
      ]),
    );
    expect(out).toContain('Created @acme/provider-notes (provider "notes")');
    const dir = join(parent, 'provider-notes');
    writeFileSync(join(dir, '.npmrc'), npmrc());
    await step('scaffold: npm install', () => sh(dir, 'npm', ['install']));
    // The scaffolder pins the @orkestra/types it resolved: the newest, second version.
    const pinned = readJson<{ devDependencies: Record<string, string> }>(join(dir, 'package.json'));
    expect(pinned.devDependencies['@orkestra/types']).toBe(published.second['@orkestra/types']);
    await step('scaffold: build', () => sh(dir, 'npm', ['run', 'build']));
    const test = await step('scaffold: test', () => sh(dir, 'npm', ['test']));
    expect(test).toMatch(/Tests\s+\d+ passed/);
    await step('scaffold: npm publish', () => sh(dir, 'npm', ['publish', '--ignore-scripts']));
  });

  it('pins: an operator with the older @orkestra/types refuses a provider built for the newer one, naming package and range', async () => {
    const tarball = operatorTarball;
    const image = project('image', { 'package.json': '{"name":"operator-image","private":true}' });
    const older = published.first['@orkestra/types'] ?? '';
    const newer = published.second['@orkestra/types'] ?? '';
    await step('image: npm install operator (older @orkestra/types)', () =>
      sh(image, 'npm', ['install', '-E', tarball, `@orkestra/types@${older}`]),
    );
    const providers = project('providers', { 'package.json': '{"name":"providers","private":true}' });
    await step('provider directory: npm install --omit=peer', () =>
      sh(providers, 'npm', [
        'install',
        '--omit=peer',
        '@acme/provider-echo@0.1.0',
        '@acme/provider-notes@0.1.0',
      ]),
    );
    writeFileSync(
      join(work, 'notes.yaml'),
      katalog(`notes-${suffix}`, { name: 'notes', package: '@acme/provider-notes', kind: 'note' }),
    );
    const refused = await exec(
      process.execPath,
      [ork(image), 'run', '--katalog', join(work, 'notes.yaml'), '--kubeconfig', env.kubeconfigPath],
      {
        env: { PATH: process.env['PATH'] ?? '', ORKESTRA_PROVIDER_DIR: providers },
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `provider notes: @acme/provider-notes@0.1.0 needs @orkestra/types ^${newer} (peer dependency), but the operator has @orkestra/types ${older}`,
    );

    // The operator rebuilt with the newer, compatible @orkestra/types loads the provider built against the older one.
    await step('image: npm install newer @orkestra/types', () =>
      sh(image, 'npm', ['install', '-E', `@orkestra/types@${newer}`]),
    );
    expect(
      readJson<{ version: string }>(join(image, 'node_modules/@orkestra/types/package.json')).version,
    ).toBe(newer);
    writeFileSync(
      join(work, 'echo.yaml'),
      katalog(`echo-${suffix}`, { name: 'echo', package: '@acme/provider-echo', kind: 'message' }),
    );
    const child = (await import('node:child_process')).spawn(
      process.execPath,
      [
        ork(image),
        'run',
        '--katalog',
        join(work, 'echo.yaml'),
        '--kubeconfig',
        env.kubeconfigPath,
        '--namespace',
        env.namespace,
        '--install-crds',
        '--leader-elect=false',
        '--metrics-bind-address',
        '127.0.0.1:0',
        '--health-probe-bind-address',
        '127.0.0.1:0',
      ],
      {
        env: { PATH: process.env['PATH'] ?? '', ORKESTRA_PROVIDER_DIR: providers },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const logs: LogLine[] = [];
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      const loaded = await waitFor(`provider loaded (stderr: ${stderr})`, () =>
        logs.find((l) => l.msg === 'provider loaded'),
      );
      expect(loaded).toMatchObject({ provider: 'echo', version: '0.1.0', from: providers });
      const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
      await waitFor('the Shout CRD is served', () =>
        custom
          .listNamespacedCustomObject({ group, version: 'v1', namespace: env.namespace, plural: 'shouts' })
          .then(() => true),
      );
      await custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: env.namespace,
        plural: 'shouts',
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Shout',
          metadata: { name: 'hey', namespace: env.namespace },
          spec: { text: 'hello' },
        },
      });
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      // The ConfigMap is written on every reconcile; its text arrives once the provider reported ready.
      const configMap = await step('operator: CR reconciled', () =>
        waitFor(`ConfigMap hey-echo with the provider output (stderr: ${stderr})`, async () => {
          const found = await core.readNamespacedConfigMap({ name: 'hey-echo', namespace: env.namespace });
          return found.data?.['text'] === 'HELLO!' ? found : undefined;
        }),
      );
      expect(configMap.data).toEqual({ text: 'HELLO!' });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
