import type { CompileOptions } from './compile-template.js';
import { getDefaultEngine } from './template-engine.js';

/**
 * referencedPaths lists every context path a template reads, as dot paths from the top of the
 * context, sorted: `{{#each spec.regions}}{{ name }}{{/each}}` reads `spec.regions` and
 * `spec.regions.*.name` (`*` is any list element or map value). Helper names, literals and data
 * variables (`@index`) are not paths. Used to check templates against a CRD schema.
 */
export function referencedPaths(source: string, options: CompileOptions = {}): readonly string[] {
  return (options.engine ?? getDefaultEngine()).compileTemplate(source, { path: options.path })
    .referencedPaths;
}
