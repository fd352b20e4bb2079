import { createRequire } from 'node:module';

/** operatorVersion returns the version of @orkestra/operator (read from its package.json, from src/ or dist/ alike). */
export function operatorVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = require('../package.json') as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}
