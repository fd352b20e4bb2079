import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli.js';

/** REPO_ROOT is the workspace root; CLI runs in tests use it as their working directory. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** OrkRun is the captured result of one in-process `ork` run. */
export interface OrkRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** runOrk runs the CLI in-process from source with captured output (cwd: the repo root unless given). */
export async function runOrk(
  argv: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<OrkRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: options.env ?? {},
    cwd: options.cwd ?? REPO_ROOT,
  });
  return { code, stdout, stderr };
}
