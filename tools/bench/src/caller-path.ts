import { resolve } from 'node:path';

/**
 * callerPath resolves a path given on the command line against the directory the user ran the
 * command in: `pnpm bench` runs the package's script in tools/bench, and pnpm passes the caller's
 * directory as INIT_CWD, so `pnpm bench --out docs/performance/x.json` at the repository root
 * writes the repository's docs/performance/x.json.
 */
export function callerPath(path: string): string {
  return resolve(process.env['INIT_CWD'] ?? process.cwd(), path);
}
