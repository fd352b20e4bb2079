import type { CompiledTemplate, TemplateEngine } from './template-engine.js';
import { getDefaultEngine } from './template-engine.js';

/** CompileOptions locate a template in the Katalog and choose the engine. */
export interface CompileOptions {
  /** Katalog path of the field, named by every error. */
  readonly path?: string | undefined;
  /** Engine to compile with; default the shared engine (system clock, `crypto.randomBytes`). */
  readonly engine?: TemplateEngine | undefined;
}

/**
 * compileTemplate compiles a template once (cached by source). A syntax error, an unknown helper,
 * a wrong number of helper arguments or a Go-template construct throws a `TemplateError` with the
 * Katalog path, the line and column within the template, and a suggested rewrite where one exists.
 *
 * @example
 * const image = compileTemplate('{{ default .spec.image "nginx:1.27" }}', { path: 'web.image' });
 * image.render({ spec: {} }); // "nginx:1.27"
 */
export function compileTemplate(source: string, options: CompileOptions = {}): CompiledTemplate {
  return (options.engine ?? getDefaultEngine()).compileTemplate(source, { path: options.path });
}
