/**
 * @orkestra/create-provider scaffolds a new provider package: `npm create @orkestra/provider
 * my-provider` writes a provider built with `defineProvider`, its conformance test, a strict
 * NodeNext tsconfig and a README, pinned to the `@orkestra/types` and `@orkestra/provider-kit`
 * this scaffolder was released with; \`--hook\` writes a module hook project instead. It never installs or publishes anything itself.
 *
 * Main exports: scaffoldProvider (write a project), providerFiles (the files, pure), ScaffoldError.
 *
 * @example
 * scaffoldProvider('notes', {
 *   packageName: '@acme/provider-notes', providerName: 'notes',
 *   typesVersion: '0.3.0', providerKitVersion: '0.3.0',
 * });
 */
export {
  defaultProviderName,
  hookFiles,
  packageNameFromDirectory,
  providerFiles,
  ScaffoldError,
  scaffoldProvider,
} from './scaffold-provider.js';
export type { ScaffoldOptions } from './scaffold-provider.js';
export { TEMPLATE_TOOL_VERSIONS } from './template-versions.js';
