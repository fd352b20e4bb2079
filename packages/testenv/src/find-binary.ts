import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';
import { readVersions } from './versions.js';
import type { TestenvVersions } from './versions.js';

/** ServerBinary names the executables this package can start. */
export const ServerBinary = {
  Etcd: 'etcd',
  KubeApiserver: 'kube-apiserver',
  KubeControllerManager: 'kube-controller-manager',
  Ferretdb: 'ferretdb',
  MotoServer: 'moto_server',
  Verdaccio: 'verdaccio',
  /** For control planes with `workloads: true`. */
  KubeScheduler: 'kube-scheduler',
  /** kwok, fake nodes that run pods without a container runtime. */
  Kwok: 'kwok',
  /** Prometheus (Debian's package), for `protocol: prometheus` external calls. */
  Prometheus: 'prometheus',
  /** PostgreSQL's server (Debian's package); `initdb` is beside it. */
  Postgres: 'postgres',
  /** Redis (Debian's redis-tools), for `protocol: redis` external calls. */
  RedisServer: 'redis-server',
  /** Kafka's classes from Maven Central behind a `java` wrapper, for `protocol: kafka` external calls. */
  KafkaServer: 'kafka-server',
  /** Mailpit (Go module proxy), a real SMTP server for the notification tests. */
  Mailpit: 'mailpit',
} as const;
export type ServerBinary = (typeof ServerBinary)[keyof typeof ServerBinary];

/** FindBinaryOptions controls where {@link findBinary} looks. */
export interface FindBinaryOptions {
  /** Environment to read `TEST_ASSET_*`, `KUBEBUILDER_ASSETS`, `XDG_CACHE_HOME`. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Build cache root. Default `${XDG_CACHE_HOME:-~/.cache}/orkestra/testenv`. */
  readonly cacheRoot?: string;
  /** Versions to look for in the cache. Default {@link readVersions}. */
  readonly versions?: TestenvVersions;
}

/** FoundBinary is an executable {@link findBinary} found, and where it came from. */
export interface FoundBinary {
  /** Absolute path of the executable. */
  readonly path: string;
  /** Which lookup step found it, e.g. `TEST_ASSET_ETCD` or `cache`. */
  readonly source: string;
}

/** assetVariable returns the `TEST_ASSET_<NAME>` variable for `name`, as envtest spells it. */
export function assetVariable(name: string): string {
  return `TEST_ASSET_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** BUILD_TARGET is the `tools/testenv/build.sh` target that builds each server. */
const BUILD_TARGET: Readonly<Record<ServerBinary, string>> = {
  etcd: 'etcd',
  'kube-apiserver': 'kube',
  'kube-controller-manager': 'kube',
  ferretdb: 'ferretdb',
  moto_server: 'moto',
  verdaccio: 'verdaccio',
  'kube-scheduler': 'kube-scheduler',
  kwok: 'kwok',
  prometheus: 'prometheus',
  postgres: 'postgres',
  'redis-server': 'redis',
  'kafka-server': 'kafka',
  mailpit: 'mailpit',
};

/** buildCommand is the command that builds one server into build.sh's cache (`pnpm testenv:build moto`). */
function buildCommand(name: ServerBinary): string {
  return `pnpm testenv:build ${BUILD_TARGET[name]}`;
}

/** defaultCacheRoot returns `${XDG_CACHE_HOME:-$HOME/.cache}/orkestra/testenv`, build.sh's cache. */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg != null && xdg !== '' ? xdg : join(homedir(), '.cache'), 'orkestra', 'testenv');
}

function cacheCandidates(name: ServerBinary, root: string, versions: TestenvVersions): string[] {
  switch (name) {
    case 'etcd':
      return [join(root, `etcd-${versions.etcd}`, 'etcd')];
    case 'kube-apiserver':
    case 'kube-controller-manager':
    case 'kube-scheduler':
      return [join(root, `kube-${versions.kubernetes}`, name)];
    case 'kwok':
      return [join(root, `kwok-${versions.kwok}`, 'kwok')];
    case 'ferretdb':
      return [join(root, `ferretdb-${versions.ferretdb}`, 'ferretdb')];
    case 'verdaccio':
      return [join(root, `verdaccio-${versions.verdaccio}`, 'node_modules', '.bin', 'verdaccio')];
    case 'prometheus':
      return [join(root, `prometheus-${versions.prometheus}`, 'prometheus')];
    case 'postgres':
      return [join(root, `postgresql-${versions.postgresql}`, 'bin', 'postgres')];
    case 'redis-server':
      // Without the Debian epoch (`5:`), as build.sh names the directory.
      return [join(root, `redis-${versions.redis.replace(/^\d+:/, '')}`, 'redis-server')];
    case 'kafka-server':
      return [join(root, `kafka-${versions.kafka}`, 'kafka-server')];
    case 'mailpit':
      return [join(root, `mailpit-${versions.mailpit}`, 'mailpit')];
    case 'moto_server': {
      // The venv directory carries the Python minor version: moto-5.2.5-py3.11.
      const prefix = `moto-${versions.moto}-py`;
      let entries: string[];
      try {
        entries = readdirSync(root).filter((d) => d.startsWith(prefix));
      } catch {
        entries = [];
      }
      return entries
        .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
        .map((d) => join(root, d, 'bin', 'moto_server'));
    }
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * findBinary locates a server executable in envtest's order: `TEST_ASSET_<NAME>`, then
 * `$KUBEBUILDER_ASSETS/<name>`, then the build cache of `tools/testenv/build.sh`, then
 * `/usr/local/kubebuilder/bin/<name>`. It throws a {@link TestenvError} with code
 * `BinaryNotFound` naming every place it looked.
 */
export function findBinary(name: ServerBinary, options: FindBinaryOptions = {}): FoundBinary {
  const env = options.env ?? process.env;
  const tried: string[] = [];
  const variable = assetVariable(name);
  const asset = env[variable];
  if (asset != null && asset !== '') {
    if (isExecutable(asset)) return { path: asset, source: variable };
    tried.push(`${variable}=${asset} (not executable)`);
  }
  const assets = env['KUBEBUILDER_ASSETS'];
  if (assets != null && assets !== '') {
    const path = join(assets, name);
    if (isExecutable(path)) return { path, source: 'KUBEBUILDER_ASSETS' };
    tried.push(path);
  }
  const root = options.cacheRoot ?? defaultCacheRoot(env);
  const candidates = cacheCandidates(name, root, options.versions ?? readVersions(env));
  for (const path of candidates) {
    if (isExecutable(path)) return { path, source: 'cache' };
  }
  tried.push(...(candidates.length > 0 ? candidates : [join(root, `moto-*`, 'bin', name)]));
  const kubebuilder = join('/usr/local/kubebuilder/bin', name);
  if (isExecutable(kubebuilder)) return { path: kubebuilder, source: '/usr/local/kubebuilder/bin' };
  tried.push(kubebuilder);
  throw new TestenvError(
    `${name} unavailable: build it with \`${buildCommand(name)}\` (or set ${variable}; looked in ${tried.join(', ')})`,
    { code: TestenvErrorCode.BinaryNotFound },
  );
}
