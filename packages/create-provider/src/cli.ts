#!/usr/bin/env node
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import {
  defaultProviderName,
  packageNameFromDirectory,
  ScaffoldError,
  scaffoldProvider,
} from './scaffold-provider.js';

// `npm create @orkestra/provider <dir> [--name <package>] [--provider <name>] [--hook | --reconciler]`
const usage =
  'usage: npm create @orkestra/provider@latest <directory> [-- --name <package> --provider <name> | --hook | --reconciler]';
const require = createRequire(import.meta.url);
const versionOf = (name: string): string => (require(`${name}/package.json`) as { version: string }).version;

try {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      provider: { type: 'string' },
      hook: { type: 'boolean' },
      reconciler: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const dir = positionals[0];
  if (values.help === true || dir == null) {
    console.log(usage);
    process.exit(dir == null && values.help !== true ? 2 : 0);
  }
  const packageName = values.name ?? packageNameFromDirectory(dir);
  // One module template holds a hook and a reconciler; --reconciler names the same template.
  const moduleTemplate = values.hook === true || values.reconciler === true;
  const options = {
    packageName,
    providerName: values.provider ?? defaultProviderName(packageName),
    typesVersion: versionOf('@orkestra/types'),
    providerKitVersion: versionOf('@orkestra/provider-kit'),
    template: moduleTemplate ? ('hook' as const) : ('provider' as const),
  };
  const written = scaffoldProvider(dir, options);
  console.log(
    [
      moduleTemplate
        ? `Created ${packageName} (module hook and reconciler) in ${dir}:`
        : `Created ${packageName} (provider "${options.providerName}") in ${dir}:`,
      ...written.map((file) => `  ${file}`),
      `pinned: @orkestra/types ${options.typesVersion}, @orkestra/provider-kit ${options.providerKitVersion}`,
      '',
      `  cd ${dir} && npm install && npm run build && npm test`,
    ].join('\n'),
  );
} catch (error) {
  if (
    error instanceof ScaffoldError ||
    (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
  ) {
    console.error(`create-provider: ${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
  throw error;
}
