import { existsSync, readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * DEFAULT_PROVIDER_DIRECTORY is where the operator looks for providers it was not built with,
 * when `ORKESTRA_PROVIDER_DIR` is unset: an npm project (`package.json` + `node_modules/`) that a
 * derived image fills with `npm install --omit=peer --prefix /opt/orkestra/providers <package>`.
 */
const DEFAULT_PROVIDER_DIRECTORY = '/opt/orkestra/providers';

/**
 * SHARED_PACKAGES are the packages a provider from the directory always gets from the operator,
 * never from the directory: one copy of the interfaces (and of `ProviderError`) at run time.
 */
export const SHARED_PACKAGES: readonly string[] = ['@orkestra/types'];

/** DirectoryPackage is a provider package found in the provider directory. */
export interface DirectoryPackage {
  /** The package's root directory. */
  readonly root: string;
  readonly version: string | undefined;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly dependencies: Readonly<Record<string, string>>;
  /** `file:` URL of the ESM entry point (`exports["."]`, else `main`, else `index.js`). */
  readonly entryUrl: string;
}

/** providerDirectoryFromEnv returns `ORKESTRA_PROVIDER_DIR`, else the default directory when it exists. */
export function providerDirectoryFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string | undefined {
  const configured = env['ORKESTRA_PROVIDER_DIR'];
  if (configured != null && configured !== '') return resolve(cwd, configured);
  return existsSync(DEFAULT_PROVIDER_DIRECTORY) ? DEFAULT_PROVIDER_DIRECTORY : undefined;
}

type ExportsValue = string | null | readonly ExportsValue[] | { readonly [key: string]: ExportsValue };

const CONDITIONS = ['import', 'node', 'default'];

function pickTarget(value: ExportsValue | undefined): string | undefined {
  if (value == null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const item of value as readonly ExportsValue[]) {
      const target = pickTarget(item);
      if (target != null) return target;
    }
    return undefined;
  }
  const map = value as { readonly [key: string]: ExportsValue };
  if ('.' in map) return pickTarget(map['.']);
  for (const [key, item] of Object.entries(map)) {
    if (CONDITIONS.includes(key)) {
      const target = pickTarget(item);
      if (target != null) return target;
    }
  }
  return undefined;
}

/**
 * findDirectoryPackage returns the package `name` installed at the top of `<dir>/node_modules`
 * (where npm puts what `npm install` was asked for), or undefined when it is not there.
 */
export function findDirectoryPackage(dir: string, name: string): DirectoryPackage | undefined {
  const root = join(dir, 'node_modules', ...name.split('/'));
  const manifestPath = join(root, 'package.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    version?: unknown;
    peerDependencies?: Record<string, string>;
    dependencies?: Record<string, string>;
    exports?: ExportsValue;
    main?: unknown;
  };
  const target =
    pickTarget(manifest.exports) ?? (typeof manifest.main === 'string' ? manifest.main : 'index.js');
  return {
    root,
    version: typeof manifest.version === 'string' ? manifest.version : undefined,
    peerDependencies: manifest.peerDependencies ?? {},
    dependencies: manifest.dependencies ?? {},
    entryUrl: pathToFileURL(join(root, target)).href,
  };
}

/**
 * operatorPackageVersion returns the version of `name` as the operator resolves it (from
 * `parentUrl`, default this module), or undefined when the operator does not have it.
 */
export function operatorPackageVersion(
  name: string,
  parentUrl: string = import.meta.url,
): string | undefined {
  try {
    const pkg = createRequire(parentUrl)(`${name}/package.json`) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}

// The resolve hook runs on Node's loader thread, so it is plain JavaScript in a data: URL: a bare
// import of a shared package from a file under a provider directory resolves as if the operator
// had imported it. Everything else resolves normally.
const HOOKS = `
let dirs = [];
let shared = [];
let parentURL = '';
export async function initialize(data) { dirs = data.dirs; shared = data.shared; parentURL = data.parentURL; }
export async function resolve(specifier, context, next) {
  const from = context.parentURL;
  if (from != null && dirs.some((dir) => from.startsWith(dir))) {
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    if (shared.includes(name)) return next(specifier, { ...context, parentURL });
  }
  return next(specifier, context);
}
`;

const registered = new Set<string>();

/**
 * shareOperatorPackages installs (once per directory and process) the module resolve hook that
 * makes imports of `shared` from files under `dir` resolve to the operator's own copies, found
 * from `parentUrl` (default this module).
 */
export function shareOperatorPackages(
  dir: string,
  shared: readonly string[] = SHARED_PACKAGES,
  parentUrl: string = import.meta.url,
): void {
  const dirUrl = pathToFileURL(join(resolve(dir), '/')).href;
  const key = `${dirUrl}|${shared.join(',')}|${parentUrl}`;
  if (registered.has(key)) return;
  registered.add(key);
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
    data: { dirs: [dirUrl], shared: [...shared], parentURL: parentUrl },
  });
}
