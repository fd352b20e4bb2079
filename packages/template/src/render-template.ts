import type { CompileOptions } from './compile-template.js';
import type { TemplateContext } from './template-engine.js';
import { getDefaultEngine } from './template-engine.js';

/**
 * renderTemplate compiles (once, cached by source) and renders a template: the `renderTemplate`
 * callback for `evaluateConditions(gate, context, { renderTemplate })` of @orkestra/types. A whole
 * expression returns its native value, other templates a trimmed string.
 *
 * @example
 * renderTemplate('{{ len spec.regions }}', { spec: { regions: ['eu', 'us'] } }); // 2
 */
export function renderTemplate(
  source: string,
  context: TemplateContext,
  options: CompileOptions = {},
): unknown {
  return (options.engine ?? getDefaultEngine()).renderTemplate(source, context, { path: options.path });
}
