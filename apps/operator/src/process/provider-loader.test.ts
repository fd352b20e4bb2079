import { loadKatalogOrThrow } from '@orkestra/types';
import type { Logger, Provider, ProviderRef } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import {
  ProviderLoadError,
  ProvidersLoadError,
  closeProviders,
  loadProviders,
  providerKindsUsed,
  satisfiesRange,
  substituteEnv,
} from './provider-loader.js';

interface Line {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string | undefined;
}

function recordingLogger(
  lines: Line[] = [],
  bindings: Record<string, unknown> = {},
): Logger & { lines: Line[] } {
  const log =
    (level: string) =>
    (fields: object, message?: string): void =>
      void lines.push({ level, fields: { ...bindings, ...fields }, message });
  return {
    lines,
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}

function ref(overrides: Partial<ProviderRef> = {}): ProviderRef {
  return {
    name: 'hello',
    package: '@orkestra/provider-hello',
    config: { greeting: 'Hi' },
    required: true,
    ...overrides,
  };
}

/** A Katalog whose `site` entry declares hello `greeting` (and optionally another kind). */
function crdsUsing(...kinds: string[]) {
  const declarations = kinds
    .map((kind, i) => `            - name: d${i}\n              ${kind}: { to: "{{ metadata.name }}" }`)
    .join('\n');
  return loadKatalogOrThrow({
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: hello-operator }
spec:
  providers:
    - { name: hello, package: "@orkestra/provider-hello" }
  crds:
    site:
      apiTypes: { group: hello.example.com, version: v1, kind: Site, plural: sites }
      operatorBox:
        providers:
          hello:
${declarations}
`,
  }).spec.crds;
}

const stubProvider = (name: string, kinds: string[] = ['thing']): Provider => ({
  name,
  kinds: Object.fromEntries(kinds.map((kind) => [kind, { schema: {} as never }])),
  reconcile: async () => ({ state: 'ready' }),
  delete: async () => ({ state: 'deleted' }),
});

async function loadError(
  refs: readonly ProviderRef[],
  options: Partial<Parameters<typeof loadProviders>[1]> = {},
) {
  const error = await loadProviders(refs, { env: {}, logger: recordingLogger(), ...options }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProvidersLoadError);
  return error as ProvidersLoadError;
}

describe('loadProviders', () => {
  it('loads @orkestra/provider-hello by package name, with its config validated and kinds checked', async () => {
    const logger = recordingLogger();
    const { providers, failed } = await loadProviders([ref({ version: '^0.0.0' })], {
      env: {},
      logger,
      crds: crdsUsing('greeting'),
    });
    expect(failed.size).toBe(0);
    const hello = providers.get('hello');
    expect(hello?.name).toBe('hello');
    expect(Object.keys(hello?.kinds ?? {})).toEqual(['greeting']);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        message: 'provider loaded',
        fields: expect.objectContaining({ provider: 'hello', version: '0.0.0' }),
      }),
    );
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
    await closeProviders(providers);
  });

  it('substitutes $NAME and ${NAME} config values from the environment before validating', async () => {
    let seen: unknown;
    const { providers } = await loadProviders(
      [ref({ config: { greeting: '${GREETING}', word: '$WORD', text: 'a $NOT b' } })],
      {
        env: { GREETING: 'Howdy', WORD: 'w' },
        logger: recordingLogger(),
        importModule: async () => ({
          createProvider: (init: { config: unknown }) => {
            seen = init.config;
            return stubProvider('hello');
          },
        }),
      },
    );
    expect(providers.has('hello')).toBe(true);
    expect(seen).toEqual({ greeting: 'Howdy', word: 'w', text: 'a $NOT b' });
  });

  it('reports a missing package', async () => {
    const error = await loadError([ref({ name: 'nope', package: '@orkestra/provider-does-not-exist' })]);
    expect(error.errors).toHaveLength(1);
    expect(error.errors[0]?.code).toBe('ProviderImportFailed');
    expect(error.message).toMatch(/^provider nope: cannot import package @orkestra\/provider-does-not-exist/);
  });

  it('rejects a module without createProvider', async () => {
    const error = await loadError([ref()], {
      importModule: async () => ({ configSchema: undefined, default: {} }),
    });
    expect(error.errors[0]?.code).toBe('ProviderInvalidModule');
    expect(error.message).toBe(
      'provider hello: package @orkestra/provider-hello does not export a createProvider function (exports: configSchema, default)',
    );
  });

  it('names the provider, field path and message of an invalid config', async () => {
    const error = await loadError([ref({ config: { greeting: '' } })]);
    expect(error.errors[0]?.code).toBe('ProviderInvalidConfig');
    expect(error.message).toMatch(/^provider hello: invalid config: config\.greeting: .+/);
  });

  it('fails start-up on an unset environment variable, naming the provider and variable', async () => {
    const error = await loadError([ref({ config: { greeting: '$HELLO_GREETING' } })]);
    expect(error.errors[0]?.code).toBe('ProviderMissingEnv');
    expect(error.message).toBe(
      'provider hello: config.greeting: environment variable HELLO_GREETING is not set',
    );
  });

  it('rejects a kind the Katalog uses that the provider does not offer', async () => {
    const error = await loadError([ref()], { crds: crdsUsing('greeting', 'farewell') });
    expect(error.errors[0]?.code).toBe('ProviderUnknownKind');
    expect(error.message).toBe(
      'provider hello: spec.crds.site.operatorBox.providers.hello[1]: kind "farewell" is not provided by @orkestra/provider-hello (kinds: greeting)',
    );
  });

  it('rejects a provider reporting another name', async () => {
    const error = await loadError([ref({ name: 'greeter' })]);
    expect(error.errors[0]?.code).toBe('ProviderNameMismatch');
    expect(error.message).toMatch(/^provider greeter: .*reports the name "hello"/);
  });

  it('reports a createProvider that throws', async () => {
    const error = await loadError([ref()], {
      importModule: async () => ({
        createProvider: () => Promise.reject(new Error('cannot reach the server')),
      }),
    });
    expect(error.errors[0]?.code).toBe('ProviderCreateFailed');
    expect(error.message).toBe('provider hello: createProvider failed: cannot reach the server');
  });

  it('logs and continues when an optional provider fails, and closes created ones when a required one fails', async () => {
    const logger = recordingLogger();
    const { providers, failed } = await loadProviders(
      [ref(), ref({ name: 'extra', package: '@orkestra/provider-missing', required: false })],
      { env: {}, logger },
    );
    expect([...providers.keys()]).toEqual(['hello']);
    expect(failed.get('extra')).toBeInstanceOf(ProviderLoadError);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ provider: 'extra' }) }),
    );

    let closed = 0;
    const error = await loadError(
      [ref({ name: 'a' }), ref({ name: 'b', package: '@orkestra/provider-missing' })],
      {
        importModule: async (specifier) => {
          if (specifier === '@orkestra/provider-missing')
            throw Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' });
          return { createProvider: () => ({ ...stubProvider('a'), close: async () => void closed++ }) };
        },
      },
    );
    expect(error.errors.map((e) => e.provider)).toEqual(['b']);
    expect(error.message).toContain('(is @orkestra/provider-missing installed next to the operator?)');
    expect(closed).toBe(1);
  });

  it('warns when the installed version does not satisfy the Katalog range', async () => {
    const logger = recordingLogger();
    const { providers } = await loadProviders([ref({ version: '^1.2.0' })], { env: {}, logger });
    expect(providers.has('hello')).toBe(true);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: '@orkestra/provider-hello 0.0.0 does not satisfy ^1.2.0',
      }),
    );
  });
});

describe('closeProviders', () => {
  it('closes every provider and logs failures instead of throwing', async () => {
    const logger = recordingLogger();
    const closed: string[] = [];
    await closeProviders(
      new Map([
        ['a', { ...stubProvider('a'), close: async () => void closed.push('a') }],
        ['b', { ...stubProvider('b'), close: () => Promise.reject(new Error('stuck')) }],
        ['c', stubProvider('c')],
      ]),
      { logger },
    );
    expect(closed).toEqual(['a']);
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'provider close failed',
        fields: expect.objectContaining({ provider: 'b' }),
      }),
    ]);
  });
});

describe('substituteEnv', () => {
  it('replaces only whole-value references, at any depth, and lists unset ones with their path', () => {
    expect(
      substituteEnv({ a: '$A', b: ['${B}', 'x$A'], c: { d: '$UNSET', e: 3 }, f: '${A' }, { A: 'a', B: '' }),
    ).toEqual({
      value: { a: 'a', b: ['', 'x$A'], c: { d: '$UNSET', e: 3 }, f: '${A' },
      missing: [{ path: 'config.c.d', variable: 'UNSET' }],
    });
  });
});

describe('satisfiesRange', () => {
  it.each([
    ['1.4.2', '^1.2.0', true],
    ['2.0.0', '^1.2.0', false],
    ['0.2.5', '^0.2.3', true],
    ['0.3.0', '^0.2.3', false],
    ['0.0.4', '^0.0.3', false],
    ['1.2.9', '~1.2.3', true],
    ['1.3.0', '~1.2.3', false],
    ['3.0.0', '>=1.2.3', true],
    ['1.2.2', '>=1.2.3', false],
    ['1.2.3', '1.2.3', true],
    ['1.2.4', '=1.2.3', false],
    ['1.5.0', '>=1.2.0 <2.0.0', true],
    ['2.0.0', '>=1.2.0 <2.0.0', false],
    ['1.0.0-beta.1', '^1.0.0', false],
    ['1.0.0', '^1.0.0-beta.1', true],
    ['0.0.0-ci-20261201225959', '^0.0.0-ci-20261201225901', true],
    ['0.0.0-ci-20261201225901', '^0.0.0-ci-20261201225959', false],
    ['0.0.1-ci-1', '^0.0.0-ci-1', false],
    ['1.0.0-rc.10', '>1.0.0-rc.9', true],
    ['1.0.0-rc', '>=1.0.0-rc.1', false],
    ['2.1.0', '^1.0.0 || ^2.0.0', true],
    ['3.0.0', '^1.0.0 || ^2.0.0', false],
    ['9.9.9', '*', true],
  ])('%s against %s is %s', (version, range, expected) => {
    expect(satisfiesRange(version, range)).toBe(expected);
  });

  it('returns undefined for syntax it does not know', () => {
    expect(satisfiesRange('1.0.0', '1.x || 2.x')).toBeUndefined();
  });
});

describe('providerKindsUsed', () => {
  it('maps each provider to its kinds with the Katalog path of the first use', () => {
    expect(providerKindsUsed(crdsUsing('greeting', 'greeting', 'farewell'))).toEqual(
      new Map([
        [
          'hello',
          new Map([
            ['greeting', 'spec.crds.site.operatorBox.providers.hello[0]'],
            ['farewell', 'spec.crds.site.operatorBox.providers.hello[2]'],
          ]),
        ],
      ]),
    );
  });
});
