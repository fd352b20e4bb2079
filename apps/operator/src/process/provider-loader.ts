import { createRequire } from 'node:module';
import type { Katalog, Logger, Provider, ProviderModule, ProviderRef } from '@orkestra/types';
import {
  findDirectoryPackage,
  operatorPackageVersion,
  SHARED_PACKAGES,
  shareOperatorPackages,
} from './provider-directory.js';
import type { DirectoryPackage } from './provider-directory.js';

/** ProviderLoadErrorCode is the closed set of reasons a provider fails to load. */
export const ProviderLoadErrorCode = {
  ImportFailed: 'ProviderImportFailed',
  InvalidModule: 'ProviderInvalidModule',
  MissingEnv: 'ProviderMissingEnv',
  InvalidConfig: 'ProviderInvalidConfig',
  CreateFailed: 'ProviderCreateFailed',
  NameMismatch: 'ProviderNameMismatch',
  UnknownKind: 'ProviderUnknownKind',
  Incompatible: 'ProviderIncompatible',
} as const;
export type ProviderLoadErrorCode = (typeof ProviderLoadErrorCode)[keyof typeof ProviderLoadErrorCode];

/** ProviderLoadError is one provider that could not be loaded; the message names the provider and what to fix. */
export class ProviderLoadError extends Error {
  override readonly name = 'ProviderLoadError';
  readonly code: ProviderLoadErrorCode;
  /** The provider's name in the Katalog. */
  readonly provider: string;

  constructor(provider: string, code: ProviderLoadErrorCode, message: string, options?: { cause?: unknown }) {
    super(
      `provider ${provider}: ${message}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.provider = provider;
  }
}

/** ProvidersLoadError is thrown when a `required` provider fails; `errors` lists every such failure. */
export class ProvidersLoadError extends Error {
  override readonly name = 'ProvidersLoadError';
  readonly code = 'ProvidersLoadFailed';
  readonly errors: readonly ProviderLoadError[];

  constructor(errors: readonly ProviderLoadError[]) {
    super(errors.map((error) => error.message).join('\n'));
    this.errors = errors;
  }
}

/** LoadProvidersOptions configures loadProviders. */
export interface LoadProvidersOptions {
  /** Imports a package by name. Default a dynamic `import()` from the operator's own module path. */
  readonly importModule?: (specifier: string) => Promise<unknown>;
  /** Reads a package's version for the `version` range check; undefined skips the check. Default its package.json. */
  readonly packageVersion?: (specifier: string) => string | undefined;
  /** Source of `$NAME` / `${NAME}` config values. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** The Katalog's CRD entries: every kind their `operatorBox.providers` blocks use must be provided. Default none. */
  readonly crds?: Katalog['spec']['crds'];
  /** Handed to `createProvider`; abort it on shutdown. Default a signal that never fires. */
  readonly signal?: AbortSignal;
  /**
   * The provider directory (docs: apps/operator/README.md, "Providers the image was not built
   * with"): an npm project whose `node_modules/<package>` is loaded in preference to the
   * operator's own copy. Default none.
   */
  readonly providerDirectory?: string;
  /** Packages a directory provider always gets from the operator (peer ranges are checked). Default `['@orkestra/types']`. */
  readonly sharedPackages?: readonly string[];
  /** `file:` URL the shared packages resolve from. Default the operator's own module. */
  readonly sharedFrom?: string;
}

/** LoadedProviders is the outcome of loadProviders. */
export interface LoadedProviders {
  /** Providers ready for dispatch, by Katalog name. */
  readonly providers: ReadonlyMap<string, Provider>;
  /** Optional (`required: false`) providers that failed; their declarations fail with ProviderFailed. */
  readonly failed: ReadonlyMap<string, ProviderLoadError>;
}

const ENV_REFERENCE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/;

/**
 * substituteEnv replaces every string value that is exactly `$NAME` or `${NAME}` (at any depth of
 * `config`) with that environment variable (docs/reference/katalog.md §14.1). Unset variables are returned as
 * `missing`, with the config path of the value.
 */
export function substituteEnv(
  config: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { readonly value: unknown; readonly missing: readonly { path: string; variable: string }[] } {
  const missing: { path: string; variable: string }[] = [];
  const walk = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      const match = ENV_REFERENCE.exec(value);
      if (match == null) return value;
      const variable = match[1] ?? match[2] ?? '';
      const replaced = env[variable];
      if (replaced == null) missing.push({ path, variable });
      return replaced ?? value;
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, `${path}[${index}]`));
    if (value != null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, walk(item, `${path}.${key}`)]),
      );
    }
    return value;
  };
  return { value: walk(config, 'config'), missing };
}

/**
 * satisfiesRange checks `version` against a small subset of semver ranges: `^x.y.z`, `~x.y.z`,
 * `>=x.y.z`, `>x.y.z`, `<=x.y.z`, `<x.y.z`, exact `x.y.z` (optionally `=`/`v`-prefixed), `*` and
 * space-separated conjunctions, and `||` alternatives of those. Returns undefined when the range
 * uses other syntax. Pre-release versions are ordered by semver precedence (`1.0.0-ci-2` is above
 * `1.0.0-ci-1` and below `1.0.0`).
 */
export function satisfiesRange(version: string, range: string): boolean | undefined {
  if (range.includes('||')) {
    const results = range.split('||').map((alternative) => satisfiesRange(version, alternative));
    if (results.includes(true)) return true;
    return results.includes(undefined) ? undefined : false;
  }
  type Version = readonly [number, number, number, readonly string[]];
  const parse = (text: string): Version | undefined => {
    const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(text.trim());
    if (match == null) return undefined;
    return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0), match[4]?.split('.') ?? []];
  };
  // semver precedence: the release tuple, then a pre-release sorts before its release, identifier
  // by identifier (numeric ones numerically and before alphanumeric ones).
  const comparePre = (a: readonly string[], b: readonly string[]): number => {
    if (a.length === 0 || b.length === 0) return b.length - a.length;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i];
      const y = b[i];
      if (x == null || y == null) return x == null ? -1 : 1;
      const nx = /^\d+$/.test(x);
      const ny = /^\d+$/.test(y);
      if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
      if (nx !== ny) return nx ? -1 : 1;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  const compare = (a: Version, b: Version): number =>
    a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || comparePre(a[3], b[3]);
  const current = parse(version);
  if (current == null) return undefined;
  const parts = range.trim().split(/\s+/);
  let result = true;
  for (const part of parts) {
    if (part === '*' || part === 'x' || part === '') continue;
    const match = /^(\^|~|>=|<=|>|<|=)?(.+)$/.exec(part);
    const bound = match?.[2] == null ? undefined : parse(match[2]);
    if (match == null || bound == null) return undefined;
    const [major, minor, patch] = bound;
    const lowest = ['0'];
    const cmp = compare(current, bound);
    switch (match[1]) {
      case '^': {
        const upper: Version =
          major > 0
            ? [major + 1, 0, 0, lowest]
            : minor > 0
              ? [0, minor + 1, 0, lowest]
              : [0, 0, patch + 1, lowest];
        result &&= cmp >= 0 && compare(current, upper) < 0;
        break;
      }
      case '~':
        result &&= cmp >= 0 && compare(current, [major, minor + 1, 0, lowest]) < 0;
        break;
      case '>=':
        result &&= cmp >= 0;
        break;
      case '>':
        result &&= cmp > 0;
        break;
      case '<=':
        result &&= cmp <= 0;
        break;
      case '<':
        result &&= cmp < 0;
        break;
      default:
        result &&= cmp === 0;
    }
  }
  return result;
}

/** providerKindsUsed lists, per provider name, the kinds the CRD entries declare, with the Katalog path of a first use. */
export function providerKindsUsed(crds: Katalog['spec']['crds']): Map<string, Map<string, string>> {
  const used = new Map<string, Map<string, string>>();
  for (const [entry, crd] of Object.entries(crds)) {
    for (const [provider, declarations] of Object.entries(crd.operatorBox.providers)) {
      const kinds = used.get(provider) ?? new Map<string, string>();
      used.set(provider, kinds);
      declarations.forEach((declaration, index) => {
        if (!kinds.has(declaration.kind)) {
          kinds.set(declaration.kind, `spec.crds.${entry}.operatorBox.providers.${provider}[${index}]`);
        }
      });
    }
  }
  return used;
}

/**
 * checkPeers fails when the operator's copy of a shared package (`@orkestra/types`) is outside
 * the peer range the directory provider was published with, naming the package and the range.
 */
function checkPeers(
  ref: ProviderRef,
  found: DirectoryPackage,
  options: LoadProvidersOptions,
  fail: (code: ProviderLoadErrorCode, message: string) => ProviderLoadError,
): void {
  const label = `${ref.package}@${found.version ?? '?'}`;
  for (const shared of options.sharedPackages ?? SHARED_PACKAGES) {
    // A shared package listed as a plain dependency is still the operator's copy at run time.
    const field = found.peerDependencies[shared] != null ? 'peer dependency' : 'dependency';
    const range = found.peerDependencies[shared] ?? found.dependencies[shared];
    if (range == null) continue;
    const have = operatorPackageVersion(shared, options.sharedFrom ?? import.meta.url);
    if (have == null) {
      throw fail(
        ProviderLoadErrorCode.Incompatible,
        `${label} needs ${shared} ${range} (${field}), but the operator has no ${shared}`,
      );
    }
    const ok = satisfiesRange(have, range);
    if (ok === false) {
      throw fail(
        ProviderLoadErrorCode.Incompatible,
        `${label} needs ${shared} ${range} (${field}), but the operator has ${shared} ${have}; install a version of ${ref.package} built for ${shared} ${have}`,
      );
    }
    if (ok === undefined) {
      options.logger.warn(
        { package: ref.package, peer: shared, range, version: have },
        `cannot check peer range "${range}"`,
      );
    }
  }
}

function defaultPackageVersion(specifier: string): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require(`${specifier}/package.json`) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}

interface ConfigSchemaLike {
  safeParse(
    input: unknown,
  ):
    | { success: true; data: unknown }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`),
    'config',
  );
}

async function loadOne(
  ref: ProviderRef,
  options: LoadProvidersOptions,
  usedKinds: ReadonlyMap<string, string> | undefined,
  signal: AbortSignal,
): Promise<Provider> {
  const importModule = options.importModule ?? ((specifier: string) => import(specifier));
  const fail = (code: ProviderLoadErrorCode, message: string, cause?: unknown): ProviderLoadError =>
    new ProviderLoadError(ref.name, code, message, cause === undefined ? undefined : { cause });

  const fromDirectory =
    options.providerDirectory == null
      ? undefined
      : findDirectoryPackage(options.providerDirectory, ref.package);
  if (fromDirectory != null) checkPeers(ref, fromDirectory, options, fail);

  let loaded: unknown;
  try {
    if (fromDirectory != null && options.providerDirectory != null) {
      shareOperatorPackages(
        options.providerDirectory,
        options.sharedPackages ?? SHARED_PACKAGES,
        options.sharedFrom ?? import.meta.url,
      );
    }
    loaded = await importModule(fromDirectory?.entryUrl ?? ref.package);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown } | null)?.code;
    const hint =
      code === 'ERR_MODULE_NOT_FOUND' || /cannot find (package|module)|failed to (load|resolve)/i.test(detail)
        ? ` (is ${ref.package} installed next to the operator${options.providerDirectory == null ? '' : ` or in ${options.providerDirectory}`}?)`
        : '';
    throw fail(
      ProviderLoadErrorCode.ImportFailed,
      `cannot import package ${ref.package}${hint}: ${detail}`,
      error,
    );
  }
  const module = loaded as Partial<Record<keyof ProviderModule, unknown>> | null;
  if (module == null || typeof module.createProvider !== 'function') {
    throw fail(
      ProviderLoadErrorCode.InvalidModule,
      `package ${ref.package} does not export a createProvider function (exports: ${Object.keys(module ?? {}).join(', ') || 'none'})`,
    );
  }
  const schema = module.configSchema as Partial<ConfigSchemaLike> | undefined;
  if (schema != null && typeof schema.safeParse !== 'function') {
    throw fail(
      ProviderLoadErrorCode.InvalidModule,
      `package ${ref.package} exports a configSchema that is not a zod schema`,
    );
  }

  const substituted = substituteEnv(ref.config, options.env);
  if (substituted.missing.length > 0) {
    throw fail(
      ProviderLoadErrorCode.MissingEnv,
      substituted.missing.map((m) => `${m.path}: environment variable ${m.variable} is not set`).join('; '),
    );
  }
  let config = substituted.value;
  if (schema?.safeParse != null) {
    const parsed = schema.safeParse(config);
    if (!parsed.success) {
      throw fail(
        ProviderLoadErrorCode.InvalidConfig,
        `invalid config: ${parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join('; ')}`,
      );
    }
    config = parsed.data;
  }

  const create = module.createProvider as ProviderModule<unknown>['createProvider'];
  let provider: Provider;
  try {
    provider = await create({
      name: ref.name,
      config,
      logger: options.logger.child({ provider: ref.name }),
      signal,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw fail(ProviderLoadErrorCode.CreateFailed, `createProvider failed: ${detail}`, error);
  }

  const problems: ProviderLoadError[] = [];
  if (provider.name !== ref.name) {
    problems.push(
      fail(
        ProviderLoadErrorCode.NameMismatch,
        `package ${ref.package} reports the name "${provider.name}"; the Katalog must use that name for it`,
      ),
    );
  }
  for (const [kind, path] of usedKinds ?? []) {
    if (!Object.hasOwn(provider.kinds, kind)) {
      problems.push(
        fail(
          ProviderLoadErrorCode.UnknownKind,
          `${path}: kind "${kind}" is not provided by ${ref.package} (kinds: ${Object.keys(provider.kinds).join(', ') || 'none'})`,
        ),
      );
    }
  }
  if (problems.length > 0) {
    await provider.close?.().catch(() => undefined);
    throw problems.length === 1 ? (problems[0] as ProviderLoadError) : new ProvidersLoadError(problems);
  }
  return provider;
}

/**
 * loadProviders loads the Katalog's providers at start-up (docs/reference/runtime.md §14.6): imports each package
 * by name, substitutes `$NAME` config values from the environment, validates the config with the
 * package's `configSchema`, awaits `createProvider`, and checks the provider's name and the kinds
 * the Katalog uses. A failing `required` provider throws ProvidersLoadError (after closing the ones
 * already created); a failing optional one is logged and listed in `failed`. A `version` range the
 * installed package does not satisfy is a warning.
 *
 * @example
 * const { providers, failed } = await loadProviders(katalog.spec.providers, {
 *   env: process.env, logger, crds: katalog.spec.crds,
 * });
 */
export async function loadProviders(
  refs: readonly ProviderRef[],
  options: LoadProvidersOptions,
): Promise<LoadedProviders> {
  const signal = options.signal ?? new AbortController().signal;
  const used =
    options.crds == null ? new Map<string, Map<string, string>>() : providerKindsUsed(options.crds);
  const packageVersion = (specifier: string): string | undefined => {
    const dir = options.providerDirectory;
    const found = dir == null ? undefined : findDirectoryPackage(dir, specifier);
    if (found != null) return found.version;
    return (options.packageVersion ?? defaultPackageVersion)(specifier);
  };
  const providers = new Map<string, Provider>();
  const failed = new Map<string, ProviderLoadError>();
  const fatal: ProviderLoadError[] = [];

  for (const ref of refs) {
    const logger = options.logger.child({ provider: ref.name, package: ref.package });
    try {
      const provider = await loadOne(ref, options, used.get(ref.name), signal);
      providers.set(ref.name, provider);
      const installed = packageVersion(ref.package);
      if (ref.version != null && installed != null) {
        const ok = satisfiesRange(installed, ref.version);
        if (ok === false) {
          logger.warn(
            { version: installed, range: ref.version },
            `${ref.package} ${installed} does not satisfy ${ref.version}`,
          );
        } else if (ok === undefined) {
          logger.warn(
            { version: installed, range: ref.version },
            `cannot check version range "${ref.version}"`,
          );
        }
      }
      logger.info(
        {
          version: installed,
          kinds: Object.keys(provider.kinds),
          ...(options.providerDirectory != null &&
          findDirectoryPackage(options.providerDirectory, ref.package) != null
            ? { from: options.providerDirectory }
            : {}),
        },
        'provider loaded',
      );
    } catch (error) {
      const errors =
        error instanceof ProvidersLoadError
          ? error.errors
          : [
              error instanceof ProviderLoadError
                ? error
                : new ProviderLoadError(ref.name, 'ProviderCreateFailed', String(error)),
            ];
      if (ref.required) {
        fatal.push(...errors);
      } else {
        for (const e of errors) logger.error({ err: e }, `optional provider not loaded: ${e.message}`);
        failed.set(ref.name, errors[0] as ProviderLoadError);
      }
    }
  }

  if (fatal.length > 0) {
    await closeProviders(providers, { logger: options.logger });
    throw new ProvidersLoadError(fatal);
  }
  return { providers, failed };
}

/**
 * closeProviders calls each provider's `close` (shutdown step), in parallel; failures are logged,
 * never thrown.
 */
export async function closeProviders(
  providers: ReadonlyMap<string, Provider>,
  options: { readonly logger?: Logger } = {},
): Promise<void> {
  await Promise.all(
    [...providers].map(async ([name, provider]) => {
      try {
        await provider.close?.();
      } catch (error) {
        options.logger?.error({ provider: name, err: error }, 'provider close failed');
      }
    }),
  );
}
