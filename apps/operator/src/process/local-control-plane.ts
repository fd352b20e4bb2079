import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Testenv from '@orkestra/testenv';
import type { ControlPlane } from '@orkestra/testenv';
import type { CliOutput } from '../commands/command.js';

/** LocalControlPlaneError reports that the local control plane could not be built or started. */
export class LocalControlPlaneError extends Error {
  override readonly name = 'LocalControlPlaneError';
  readonly code = 'LocalControlPlaneFailed';
}

/**
 * loadTestenv loads @orkestra/testenv when a local control plane is started: only `ork dev` and
 * `ork demo` need it, and it loads client-node's generated API classes, which the operator's own
 * process does not (docs/reference/runtime.md §20).
 */
export function loadTestenv(): Promise<typeof Testenv> {
  return import('@orkestra/testenv');
}

/** The binaries `ork dev` and `ork demo` need, with the build.sh target that builds each. */
function needed({ ServerBinary }: typeof Testenv) {
  return [
    { binary: ServerBinary.Etcd, target: 'etcd' },
    { binary: ServerBinary.KubeApiserver, target: 'kube' },
    { binary: ServerBinary.KubeControllerManager, target: 'kube' },
    // Workloads run (kube-scheduler + kwok, docs/testenv.md §5), so Deployments become ready.
    { binary: ServerBinary.KubeScheduler, target: 'kube-scheduler' },
    { binary: ServerBinary.Kwok, target: 'kwok' },
  ] as const;
}

/** StartLocalControlPlaneOptions configures startLocalControlPlane. */
export interface StartLocalControlPlaneOptions {
  /** Progress lines for the user. */
  readonly progress: CliOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Build missing binaries with the repository's `tools/testenv/build.sh` when it is there
   * (`ork demo`); otherwise say how to build them and fail (`ork dev`). Default false.
   */
  readonly build?: boolean;
}

/** findBuildScript locates `tools/testenv/build.sh` of the workspace this module runs from. */
function findBuildScript(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'tools', 'testenv', 'build.sh');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function missingTargets(
  testenv: typeof Testenv,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const { findBinary, isTestenvError } = testenv;
  const targets = new Set<string>();
  for (const { binary, target } of needed(testenv)) {
    try {
      findBinary(binary, { env: env as NodeJS.ProcessEnv });
    } catch (error) {
      if (!isTestenvError(error)) throw error;
      targets.add(target);
    }
  }
  return [...targets];
}

function runBuild(script: string, targets: readonly string[], progress: CliOutput): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [script, ...targets], { stdio: ['ignore', 'pipe', 'pipe'] });
    const forward = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') progress.write(`  ${line}\n`);
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolvePromise()
        : reject(
            new LocalControlPlaneError(
              `${script} ${targets.join(' ')} failed with exit code ${String(code)}`,
            ),
          ),
    );
  });
}

/**
 * startLocalControlPlane starts @orkestra/testenv's control plane (etcd, kube-apiserver,
 * kube-controller-manager on loopback) for `ork dev` and `ork demo`, reporting progress. Missing
 * binaries are built with `tools/testenv/build.sh` when `build` is set and the script is found
 * (this takes several minutes the first time), else a LocalControlPlaneError says how to build them.
 *
 * @example
 * const cp = await startLocalControlPlane({ progress: process.stderr, env: process.env });
 * await cp.stop();
 */
export async function startLocalControlPlane(options: StartLocalControlPlaneOptions): Promise<ControlPlane> {
  const { progress } = options;
  const testenv = await loadTestenv();
  const missing = missingTargets(testenv, options.env);
  if (missing.length > 0) {
    const script = findBuildScript();
    if (!(options.build ?? false) || script == null) {
      throw new LocalControlPlaneError(
        `the local control plane binaries are missing (${missing.join(', ')}). Build them once with ` +
          '`pnpm testenv:build` (tools/testenv/build.sh; needs Go, takes several minutes), or point ' +
          'KUBEBUILDER_ASSETS / TEST_ASSET_* at existing binaries.',
      );
    }
    progress.write(
      `Building the test servers (${missing.join(', ')}) with ${script}: the first build compiles ` +
        'Kubernetes from source and takes several minutes; later runs reuse the cache.\n',
    );
    await runBuild(script, missing, progress);
  }
  progress.write(
    'Starting the local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)…\n',
  );
  const started = Date.now();
  try {
    const cp = await testenv.startControlPlane({ env: options.env as NodeJS.ProcessEnv, workloads: true });
    progress.write(
      `Control plane ready at ${cp.server} in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
    );
    return cp;
  } catch (error) {
    throw new LocalControlPlaneError(
      `the local control plane did not start: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
