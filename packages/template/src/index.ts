/**
 * @orkestra/template renders Katalog templates: Handlebars compiled once at load, evaluated per
 * reconcile, with the upstream helper library, native values, coercion of known fields, forEach
 * expansion and normalize. It never talks to Kubernetes or the network.
 *
 * Main exports: compileTemplate, compileValue, compileEntry, compileNormalize (load time);
 * CompiledTemplate.render, CompiledEntry.expand, CompiledNormalize.apply (reconcile time);
 * renderTemplate (the condition evaluator's callback), referencedPaths, coerce,
 * createTemplateEngine (inject a clock and a random source), TemplateError.
 *
 * @example
 * import { compileValue } from '@orkestra/template';
 *
 * const entry = compileValue(
 *   { name: '{{ .metadata.name }}-web', replicas: '{{ spec.replicas }}', image: '{{ default spec.image "nginx" }}' },
 *   { path: 'website.operatorBox.onReconcile.deployments[0]', fieldTypes: { replicas: 'int' } },
 * );
 * entry.render({ metadata: { name: 'shop' }, spec: { replicas: '3' } });
 * // { name: 'shop-web', replicas: 3, image: 'nginx' }
 */
export { coerce, CoerceType, isCoerceType } from './coerce.js';
export { compileTemplate } from './compile-template.js';
export type { CompileOptions } from './compile-template.js';
export { compileValue, hasTemplate } from './compile-value.js';
export type {
  CompiledValue,
  CompiledValueTemplate,
  CompileValueOptions,
  FieldTypes,
} from './compile-value.js';
export { DuplicateChildError } from './duplicate-child-error.js';
export { compileEntry, compileForEach, expandForEach } from './for-each.js';
export type {
  CompiledEntry,
  CompiledForEach,
  CompileEntryOptions,
  CompileForEachOptions,
  EntryGate,
  ExpandedEntry,
  ExpandOptions,
  ForEach,
  ForEachCopy,
} from './for-each.js';
export { builtinHelperArity, createHelpers, HelperFailure } from './helpers.js';
export type { Clock, HelperDefinition, HelperOptions, RandomSource } from './helpers.js';
export { joinPath, resolveDotPath } from './katalog-path.js';
export { compileNormalize, normalizeSpec, readYamlScalar } from './normalize-spec.js';
export type { CompiledNormalize, Normalize, NormalizeOptions, NormalizeType } from './normalize-spec.js';
export { referencedPaths } from './referenced-paths.js';
export type { HelperArgument, HelperCall } from './collect-paths.js';
export { renderTemplate } from './render-template.js';
export { isEmpty, isTruthy, stringForm, typeName } from './string-form.js';
export type { TypeName } from './string-form.js';
export { createTemplateEngine, getDefaultEngine } from './template-engine.js';
export type {
  CompiledTemplate,
  CompileTemplateOptions,
  TemplateContext,
  TemplateEngine,
  TemplateEngineOptions,
} from './template-engine.js';
export { isTemplateError, TemplateError } from './template-error.js';
export type { TemplateErrorOptions } from './template-error.js';
