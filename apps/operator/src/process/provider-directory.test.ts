import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { findDirectoryPackage, providerDirectoryFromEnv } from './provider-directory.js';
import { ProviderLoadErrorCode, ProvidersLoadError, loadProviders } from './provider-loader.js';

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

const root = mkdtempSync(join(tmpdir(), 'orkestra-provider-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writePackage(dir: string, manifest: object, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', ...manifest }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

// "The operator": a project whose node_modules holds the shared package at 1.4.0.
const operatorDir = join(root, 'operator');
writePackage(operatorDir, { name: 'operator', private: true }, { 'index.js': '' });
writePackage(
  join(operatorDir, 'node_modules', 'shared-types'),
  {
    name: 'shared-types',
    version: '1.4.0',
    exports: { '.': './index.js', './package.json': './package.json' },
  },
  { 'index.js': 'export const copy = "operator";\n' },
);
const sharedFrom = pathToFileURL(join(operatorDir, 'index.js')).href;

// "The provider directory": the provider and, as npm would install without --omit=peer, a second copy.
const providerDir = join(root, 'providers');
writePackage(providerDir, { name: 'providers', private: true }, {});
writePackage(
  join(providerDir, 'node_modules', 'shared-types'),
  { name: 'shared-types', version: '1.0.0', exports: './index.js' },
  { 'index.js': 'export const copy = "directory";\n' },
);
function provider(name: string, peerRange: string): void {
  writePackage(
    join(providerDir, 'node_modules', ...name.split('/')),
    {
      name,
      version: '0.3.0',
      peerDependencies: { 'shared-types': peerRange },
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    },
    {
      'dist/index.js': `import { copy } from 'shared-types';
export function createProvider({ name }) {
  return { name, kinds: { greeting: { sees: copy } }, close: async () => undefined };
}
`,
    },
  );
}
provider('@acme/provider-compatible', '^1.0.0');
provider('@acme/provider-incompatible', '^2.0.0');

const options = {
  env: {},
  logger: silent,
  providerDirectory: providerDir,
  sharedPackages: ['shared-types'],
  sharedFrom,
};

describe('provider directory', () => {
  it('loads a package the operator was not built with, sharing the operator copy of the peer', async () => {
    const { providers } = await loadProviders(
      [{ name: 'acme', package: '@acme/provider-compatible', config: {}, required: true }],
      options,
    );
    const kinds = providers.get('acme')?.kinds as unknown as Record<string, { sees: string }>;
    expect(kinds['greeting']?.sees).toBe('operator');
  });

  it('fails a provider whose peer range the operator copy does not satisfy, naming the package and the range', async () => {
    const error = await loadProviders(
      [{ name: 'acme', package: '@acme/provider-incompatible', config: {}, required: true }],
      options,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProvidersLoadError);
    const [first] = (error as ProvidersLoadError).errors;
    expect(first?.code).toBe(ProviderLoadErrorCode.Incompatible);
    expect(first?.message).toBe(
      'provider acme: @acme/provider-incompatible@0.3.0 needs shared-types ^2.0.0 (peer dependency), but the operator has shared-types 1.4.0; install a version of @acme/provider-incompatible built for shared-types 1.4.0',
    );
  });

  it('finds only packages at the top of node_modules and resolves the ESM entry from exports', () => {
    expect(findDirectoryPackage(providerDir, '@acme/missing')).toBeUndefined();
    expect(findDirectoryPackage(providerDir, '@acme/provider-compatible')?.entryUrl).toBe(
      pathToFileURL(join(providerDir, 'node_modules/@acme/provider-compatible/dist/index.js')).href,
    );
  });

  it('reads ORKESTRA_PROVIDER_DIR relative to the working directory', () => {
    expect(providerDirectoryFromEnv({ ORKESTRA_PROVIDER_DIR: 'p' }, '/srv')).toBe('/srv/p');
  });
});
