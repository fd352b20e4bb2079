/**
 * Loads the module hooks a Katalog names (`operatorBox.hooks`, docs/reference/katalog.md §14.5,
 * ADR 0052) and its module reconcilers (`operatorBox.remote` with `module`, §15.3, ADR 0064) at start, the way providers are loaded: each package from the provider directory when
 * it is installed there (else the operator's own node_modules), its shared packages
 * (`@orkestra/types`, `@orkestra/provider-kit`) from the operator, its version checked against the
 * range the Katalog pins. Every failure is positioned at the declaration.
 */
import { isDefinedHook, isDefinedReconciler, katalogSourceOf } from '@orkestra/types';
import type { Katalog, LoadedModuleExport, Logger } from '@orkestra/types';
import { moduleHookKey } from '@orkestra/reconciler';
import {
  findDirectoryPackage,
  operatorPackageVersion,
  SHARED_PACKAGES,
  shareOperatorPackages,
} from './provider-directory.js';
import { satisfiesRange } from './provider-loader.js';

/** HOOK_SHARED_PACKAGES are what a hook module from the directory gets from the operator: the types and the kit. */
const HOOK_SHARED_PACKAGES: readonly string[] = [...SHARED_PACKAGES, '@orkestra/provider-kit'];

/** HookModuleErrorCode is the closed set of reasons a module hook fails to load. */
export const HookModuleErrorCode = {
  ImportFailed: 'HookModuleImportFailed',
  MissingExport: 'HookModuleMissingExport',
  NotAHook: 'HookModuleNotAHook',
  VersionMismatch: 'HookModuleVersionMismatch',
  Incompatible: 'HookModuleIncompatible',
} as const;
export type HookModuleErrorCode = (typeof HookModuleErrorCode)[keyof typeof HookModuleErrorCode];

/** HookModuleError is one declaration that could not be loaded; `where` is `file:line:col path`. */
export class HookModuleError extends Error {
  override readonly name = 'HookModuleError';
  readonly code: HookModuleErrorCode;
  readonly where: string;

  constructor(where: string, code: HookModuleErrorCode, message: string, options?: { cause?: unknown }) {
    super(`${where}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.where = where;
  }
}

/** HookModulesLoadError lists every declaration that failed. */
export class HookModulesLoadError extends Error {
  override readonly name = 'HookModulesLoadError';
  readonly code = 'HookModulesLoadFailed';
  readonly errors: readonly HookModuleError[];

  constructor(errors: readonly HookModuleError[]) {
    super(errors.map((error) => error.message).join('\n'));
    this.errors = errors;
  }
}

/** LoadModuleHooksOptions configures loadModuleHooks. */
export interface LoadModuleHooksOptions {
  readonly logger: Logger;
  /** The provider directory (an npm project); a package installed there wins over the operator's copy. */
  readonly providerDirectory?: string | undefined;
  /** Imports a module (a package name or a `file:` URL). Default a dynamic `import()`. */
  readonly importModule?: (specifier: string) => Promise<unknown>;
  /** The installed version of a package the operator resolves itself. Default its package.json. */
  readonly packageVersion?: (name: string) => string | undefined;
  /** `file:` URL the shared packages resolve from. Default the operator's own module. */
  readonly sharedFrom?: string;
}

/** Declared is one module reference of the Katalog: a hook or a reconciler, with its position. */
interface Declared {
  readonly hook: {
    readonly module: string;
    readonly function: string;
    readonly version?: string | undefined;
  };
  readonly kind: 'hook' | 'reconciler';
  readonly where: string;
}

/** declaredHooks lists the module hooks and module reconcilers of the Katalog's enabled entries, each with its position. */
function declaredHooks(katalog: Katalog): Declared[] {
  const out: Declared[] = [];
  for (const [name, entry] of Object.entries(katalog.spec.crds)) {
    if (!entry.enabled) continue;
    entry.operatorBox.hooks.forEach((hook, i) => {
      const source = katalogSourceOf(hook);
      const where =
        source == null
          ? `spec.crds.${name}.operatorBox.hooks[${i}]`
          : `${source.file}:${source.line}:${source.column} ${source.documentPath}`;
      out.push({ hook, kind: 'hook', where });
    });
    const remote = entry.operatorBox.remote;
    if (remote?.module != null) {
      const source = katalogSourceOf(remote);
      const where =
        source == null
          ? `spec.crds.${name}.operatorBox.remote`
          : `${source.file}:${source.line}:${source.column} ${source.documentPath}`;
      out.push({
        hook: { module: remote.module, function: remote.function ?? 'default', version: remote.version },
        kind: 'reconciler',
        where,
      });
    }
  }
  return out;
}

interface LoadedPackage {
  readonly exports: Record<string, unknown>;
  readonly version: string | undefined;
  readonly from: string;
}

/**
 * loadModuleHooks imports every package the Katalog's `operatorBox.hooks` name (once each) and
 * returns their hooks by `<package>#<export>`. Throws HookModulesLoadError naming every failed
 * declaration at its position: the package cannot be imported, has no such export, the export was
 * not made by `defineHook`, the installed version is outside the pinned range, or the operator's
 * shared packages are outside the package's peer ranges.
 *
 * @example
 * const hooks = await loadModuleHooks(katalog, { logger, providerDirectory: '/opt/orkestra/providers' });
 */
export async function loadModuleHooks(
  katalog: Katalog,
  options: LoadModuleHooksOptions,
): Promise<Map<string, LoadedModuleExport>> {
  const importModule = options.importModule ?? ((specifier: string) => import(specifier));
  const sharedFrom = options.sharedFrom ?? import.meta.url;
  const packages = new Map<string, Promise<LoadedPackage>>();
  const load = (name: string): Promise<LoadedPackage> => {
    const known = packages.get(name);
    if (known != null) return known;
    const loading = (async (): Promise<LoadedPackage> => {
      const dir = options.providerDirectory;
      const found = dir == null ? undefined : findDirectoryPackage(dir, name);
      if (found != null && dir != null) {
        for (const shared of HOOK_SHARED_PACKAGES) {
          const range = found.peerDependencies[shared] ?? found.dependencies[shared];
          const have = operatorPackageVersion(shared, sharedFrom);
          if (range == null) continue;
          if (have == null || satisfiesRange(have, range) === false) {
            throw Object.assign(
              new Error(
                `${name}@${found.version ?? '?'} needs ${shared} ${range}, but the operator has ${have == null ? 'none' : have}`,
              ),
              { hookCode: HookModuleErrorCode.Incompatible },
            );
          }
        }
        shareOperatorPackages(dir, HOOK_SHARED_PACKAGES, sharedFrom);
      }
      const loaded = await importModule(found?.entryUrl ?? name);
      const version =
        found?.version ?? (options.packageVersion ?? ((n) => operatorPackageVersion(n, sharedFrom)))(name);
      return {
        exports: (loaded ?? {}) as Record<string, unknown>,
        version,
        from: found == null ? 'the operator' : (dir ?? ''),
      };
    })();
    packages.set(name, loading);
    return loading;
  };

  const hooks = new Map<string, LoadedModuleExport>();
  const errors: HookModuleError[] = [];
  for (const { hook, kind, where } of declaredHooks(katalog)) {
    const isWanted = kind === 'hook' ? isDefinedHook : isDefinedReconciler;
    const maker = kind === 'hook' ? 'defineHook' : 'defineReconciler';
    let pkg: LoadedPackage;
    try {
      pkg = await load(hook.module);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const code = (error as { hookCode?: HookModuleErrorCode }).hookCode ?? HookModuleErrorCode.ImportFailed;
      const hint =
        code === HookModuleErrorCode.ImportFailed
          ? ` (install it with \`npm install --omit=peer --prefix ${options.providerDirectory ?? '<provider directory>'} ${hook.module}${hook.version == null ? '' : `@${hook.version}`}\`)`
          : '';
      errors.push(
        new HookModuleError(
          `${where}.module`,
          code,
          code === HookModuleErrorCode.ImportFailed
            ? `cannot import ${hook.module}${hint}: ${detail}`
            : detail,
          { cause: error },
        ),
      );
      continue;
    }
    const label = `${hook.module}@${pkg.version ?? '?'}`;
    if (hook.version != null && pkg.version != null) {
      const ok = satisfiesRange(pkg.version, hook.version);
      if (ok === false) {
        errors.push(
          new HookModuleError(
            `${where}.version`,
            HookModuleErrorCode.VersionMismatch,
            `${label} is installed (from ${pkg.from}), outside the pinned range ${hook.version}`,
          ),
        );
        continue;
      }
      if (ok === undefined)
        options.logger.warn(
          { module: hook.module, range: hook.version },
          `cannot check version range "${hook.version}"`,
        );
    }
    if (!Object.hasOwn(pkg.exports, hook.function)) {
      const names = Object.keys(pkg.exports).filter((key) => isWanted(pkg.exports[key]));
      errors.push(
        new HookModuleError(
          `${where}.function`,
          HookModuleErrorCode.MissingExport,
          `${label} has no export ${hook.function} (its ${kind}s: ${names.join(', ') || 'none'})`,
        ),
      );
      continue;
    }
    const value = pkg.exports[hook.function];
    if (!isWanted(value)) {
      errors.push(
        new HookModuleError(
          `${where}.function`,
          HookModuleErrorCode.NotAHook,
          `${label} exports ${hook.function}, but not as a ${kind}: make it with ${maker} from @orkestra/provider-kit`,
        ),
      );
      continue;
    }
    hooks.set(moduleHookKey(hook.module, hook.function), value);
    options.logger.info(
      { module: hook.module, version: pkg.version, export: hook.function, from: pkg.from },
      `module ${kind} loaded`,
    );
  }
  if (errors.length > 0) throw new HookModulesLoadError(errors);
  return hooks;
}
