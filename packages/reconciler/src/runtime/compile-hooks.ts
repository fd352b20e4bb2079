/**
 * Load-time compilation of an entry's hook and provider declarations (docs/reference/katalog.md §14.2, §15, §16):
 * each hook unit of the hook table (hooks/table.ts) compiles its declaration's templated fields
 * once, so a reconcile only renders them.
 */
import type { TemplateEngine } from '@orkestra/template';
import type { CrdEntry } from '@orkestra/types';
import { hookUnits } from '../hooks/table.js';
import type { CompiledHooks } from '../hooks/table.js';

export type { CompiledProviderDeclaration } from '../hooks/providers/index.js';
export type { CompiledHooks } from '../hooks/table.js';

/**
 * compileHooks compiles the hook and provider declarations of one CRD entry (hoisting is already
 * done by the loader). `base` is the entry's Katalog path, used when a node carries no source.
 *
 * @example
 * const hooks = compileHooks(entry, 'website', engine);
 * hooks.external[0]?.value.render(context);
 */
export function compileHooks(entry: CrdEntry, base: string, engine: TemplateEngine): CompiledHooks {
  return Object.fromEntries(
    hookUnits.map((unit) => [unit.key, unit.compile(entry, base, engine)]),
  ) as CompiledHooks;
}
