import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultProviderName, providerFiles, ScaffoldError, scaffoldProvider } from './scaffold-provider.js';
import { TEMPLATE_TOOL_VERSIONS } from './template-versions.js';

const options = {
  packageName: '@acme/provider-notes',
  providerName: 'notes',
  typesVersion: '1.2.3',
  providerKitVersion: '2.0.1',
};

const workspace = (path: string): Record<string, Record<string, string> | undefined> =>
  JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;

describe('providerFiles', () => {
  it('pins @orkestra/types and @orkestra/provider-kit exactly and peers on a caret range of types', () => {
    const pkg = JSON.parse(providerFiles(options)['package.json'] ?? '{}') as Record<
      string,
      Record<string, string>
    >;
    expect(pkg['peerDependencies']).toEqual({ '@orkestra/types': '^1.2.3' });
    expect(pkg['devDependencies']?.['@orkestra/types']).toBe('1.2.3');
    expect(pkg['dependencies']?.['@orkestra/provider-kit']).toBe('2.0.1');
  });

  it('writes a provider under 60 lines named as asked, and a conformance test', () => {
    const files = providerFiles(options);
    expect(Object.keys(files).sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'package.json',
        'src/index.test.ts',
        'src/index.ts',
        'tsconfig.json',
      ].sort(),
    );
    expect(files['src/index.ts']?.split('\n').length).toBeLessThan(60);
    expect(files['src/index.ts']).toContain("name: 'notes'");
    expect(files['src/index.test.ts']).toContain('describeProviderConformance');
    const tsconfig = JSON.parse(files['tsconfig.json'] ?? '{}') as {
      compilerOptions: Record<string, unknown>;
    };
    expect(tsconfig.compilerOptions).toMatchObject({
      strict: true,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
    });
  });

  it('uses the tool versions the workspace itself is tested with', () => {
    const root = workspace('package.json')['devDependencies'] ?? {};
    const types = workspace('packages/types/package.json')['dependencies'] ?? {};
    expect(TEMPLATE_TOOL_VERSIONS).toEqual({
      typescript: root['typescript'],
      vitest: root['vitest'],
      zod: types['zod'],
      '@types/node': root['@types/node'],
    });
  });

  it('rejects invalid package and provider names with a ScaffoldError', () => {
    expect(() => providerFiles({ ...options, packageName: 'Not Valid' })).toThrow(ScaffoldError);
    expect(() => providerFiles({ ...options, providerName: '9lives' })).toThrow(/provider name "9lives"/);
  });

  it('derives the provider name from the package name', () => {
    expect(defaultProviderName('@acme/provider-notes')).toBe('notes');
    expect(defaultProviderName('my-provider')).toBe('my-provider');
    expect(defaultProviderName('orkestra-provider-x')).toBe('x');
  });
});

describe('scaffoldProvider', () => {
  it('refuses a directory that is not empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orkestra-scaffold-'));
    try {
      writeFileSync(join(dir, 'keep.txt'), 'mine');
      expect(() => scaffoldProvider(dir, options)).toThrow(/is not empty/);
      rmSync(join(dir, 'keep.txt'));
      expect(scaffoldProvider(dir, options)).toContain('src/index.ts');
      expect(readFileSync(join(dir, 'src/index.ts'), 'utf8')).toContain('defineProvider');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hookFiles', () => {
  it('writes a module hook project: the kit an optional peer, one defineHook that runs', async () => {
    const { hookFiles } = await import('./scaffold-provider.js');
    const files = hookFiles(options);
    expect(Object.keys(files).sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'package.json',
        'src/conformance.test.ts',
        'src/index.test.ts',
        'src/index.ts',
        'tsconfig.json',
      ].sort(),
    );
    const pkg = JSON.parse(files['package.json'] ?? '{}') as Record<string, Record<string, unknown>>;
    expect(pkg['peerDependencies']).toEqual({
      '@orkestra/types': '^1.2.3',
      '@orkestra/provider-kit': '^2.0.1',
    });
    expect(pkg['peerDependenciesMeta']?.['@orkestra/provider-kit']).toEqual({ optional: true });
    expect(pkg['dependencies']).toBeUndefined();
    // The generated hook, compiled and run against this workspace's kit.
    const ts = (await import('typescript')).default;
    const kit = new URL('../../provider-kit/dist/index.js', import.meta.url).href;
    const js = ts
      .transpileModule(files['src/index.ts'] ?? '', { compilerOptions: { module: ts.ModuleKind.ESNext } })
      .outputText.replace("'@orkestra/provider-kit'", JSON.stringify(kit));
    const dir = mkdtempSync(join(tmpdir(), 'orkestra-hook-template-'));
    try {
      writeFileSync(join(dir, 'index.mjs'), js);
      const hookModule = (await import(/* @vite-ignore */ join(dir, 'index.mjs'))) as {
        greet: { orkestra: string; run: (request: unknown) => unknown; onDelete?: unknown };
      };
      expect(hookModule.greet.orkestra).toBe('hook/v1');
      expect(typeof hookModule.greet.onDelete).toBe('function');
      const result = await hookModule.greet.run({
        cr: { metadata: { name: 'shop' }, spec: {} },
        args: {},
      });
      expect(result).toEqual({ outputs: { text: 'Hello, shop' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the module project a module author gets (--hook / --reconciler)', () => {
  it('runs its own tests, the conformance suite on the hook and the reconciler included, and they pass', async () => {
    const { hookFiles } = await import('./scaffold-provider.js');
    // Inside this package, so the project resolves this workspace's kit (built) as an installed one.
    const dir = mkdtempSync(join(fileURLToPath(new URL('..', import.meta.url)), '.generated-'));
    try {
      for (const [path, text] of Object.entries(hookFiles(options))) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      writeFileSync(
        join(dir, 'vitest.config.mjs'),
        "export default { test: { include: ['src/**/*.test.ts'] } };\n",
      );
      const vitest = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));
      const run = spawnSync(
        process.execPath,
        [vitest, 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'), '--reporter', 'json'],
        { encoding: 'utf8', timeout: 120_000 },
      );
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        numPassedTests: number;
        numFailedTests: number;
        testResults: { assertionResults: { fullName: string; status: string }[] }[];
      };
      const names = report.testResults.flatMap((f) =>
        f.assertionResults.map((a) => `${a.status} ${a.fullName}`),
      );
      expect(report.numFailedTests, names.join('\n')).toBe(0);
      // index.test.ts: 1; conformance.test.ts: 2 cases for each of 2 exports.
      expect(report.numPassedTests).toBe(5);
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
