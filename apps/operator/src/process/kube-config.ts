import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
// The KubeConfig module alone (patched to import only the two generated modules it uses, see
// patches/): the package index loads every generated API class (docs/reference/runtime.md §20).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';

/** KubeConfigSource says where loadKubeConfig found the connection. */
export const KubeConfigSource = {
  /** `--kubeconfig` or `KUBECONFIG`. */
  File: 'file',
  /** The pod's ServiceAccount (`KUBERNETES_SERVICE_HOST` is set). */
  InCluster: 'in-cluster',
  /** `~/.kube/config`. */
  Home: 'home',
} as const;
export type KubeConfigSource = (typeof KubeConfigSource)[keyof typeof KubeConfigSource];

/** KubeConfigError reports that no API server connection could be configured. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  readonly code = 'NoKubeConfig';
}

/** LoadKubeConfigOptions configures loadKubeConfig. */
export interface LoadKubeConfigOptions {
  /** `--kubeconfig` or `KUBECONFIG` (already resolved by parseRunConfig). */
  readonly kubeconfig?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative paths are resolved against this directory. */
  readonly cwd: string;
  /** Home directory for `~/.kube/config`. Default os.homedir(). */
  readonly home?: string;
}

/**
 * loadKubeConfig connects as docs/reference/runtime.md §22 says: the given kubeconfig file, else the in-cluster
 * ServiceAccount when `KUBERNETES_SERVICE_HOST` is set, else `~/.kube/config`. Throws
 * KubeConfigError when none applies.
 *
 * @example
 * const { kubeConfig, source } = loadKubeConfig({ kubeconfig: config.kubeconfig, env: process.env, cwd: process.cwd() });
 */
export function loadKubeConfig(options: LoadKubeConfigOptions): {
  readonly kubeConfig: KubeConfig;
  readonly source: KubeConfigSource;
  readonly file?: string;
} {
  const kubeConfig = new KubeConfig();
  if (options.kubeconfig != null) {
    const file = resolve(options.cwd, options.kubeconfig);
    if (!existsSync(file)) throw new KubeConfigError(`kubeconfig ${options.kubeconfig} does not exist`);
    kubeConfig.loadFromFile(file);
    return { kubeConfig, source: KubeConfigSource.File, file };
  }
  const host = options.env['KUBERNETES_SERVICE_HOST'];
  if (host != null && host !== '') {
    // client-node reads the host and port from process.env itself (the same values in `ork run`).
    kubeConfig.loadFromCluster();
    return { kubeConfig, source: KubeConfigSource.InCluster };
  }
  const file = join(options.home ?? homedir(), '.kube', 'config');
  if (!existsSync(file)) {
    throw new KubeConfigError(
      `no kubeconfig: pass --kubeconfig or set KUBECONFIG, run in a cluster, or create ${file}`,
    );
  }
  kubeConfig.loadFromFile(file);
  return { kubeConfig, source: KubeConfigSource.Home, file };
}
