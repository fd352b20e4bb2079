/**
 * isCi tells whether this run is CI (`CI=true` or `CI=1`), where a server that cannot be had is
 * a failure rather than a skip.
 */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env['CI']?.toLowerCase();
  return value === 'true' || value === '1';
}
