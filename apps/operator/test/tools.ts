/**
 * Paths to the client tools tools/testenv/build.sh builds (helm, kubectl, crane), and a runner for
 * them. The machine's own /usr/bin/kubectl or helm, if any, is never used: only the cached builds
 * at the pinned versions.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { REPO_ROOT } from './run-ork.js';

/** ClientTool is one of the tools the tests drive. */
export type ClientTool = 'helm' | 'kubectl' | 'crane';

const versions = JSON.parse(
  readFileSync(join(REPO_ROOT, 'packages/testenv/versions.json'), 'utf8'),
) as Record<string, string>;

/** toolPath returns the cached binary of `tool`, or throws naming the build command. */
export function toolPath(tool: ClientTool): string {
  const version = tool === 'kubectl' ? versions['kubernetes'] : versions[tool];
  const root = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'orkestra', 'testenv');
  const path = join(root, `${tool}-${String(version)}`, tool);
  if (!existsSync(path)) {
    throw new Error(
      `${tool} ${String(version)} is not built: run bash tools/testenv/build.sh ${tool} (looked at ${path})`,
    );
  }
  return path;
}

/** ToolRun is the outcome of one tool invocation. */
export interface ToolRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** runTool runs a cached tool with `args` and resolves with its output (never rejects on a non-zero exit). */
export function runTool(
  tool: ClientTool,
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(
      toolPath(tool),
      [...args],
      {
        cwd: options.cwd ?? REPO_ROOT,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: process.env['HOME'] ?? '/tmp',
          ...options.env,
        },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error == null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** mustRun is runTool that throws with the tool's stderr when it exits non-zero. */
export async function mustRun(
  tool: ClientTool,
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
): Promise<string> {
  const run = await runTool(tool, args, options);
  if (run.code !== 0)
    throw new Error(`${tool} ${args.join(' ')} exited ${run.code}:\n${run.stderr}${run.stdout}`);
  return run.stdout;
}

/** writeKubeconfig writes `kubeConfig` to `file` (mode 0600) for helm and kubectl. */
export function writeKubeconfig(kubeConfig: KubeConfig, file: string): string {
  writeFileSync(file, kubeConfig.exportConfig(), { mode: 0o600 });
  return file;
}
