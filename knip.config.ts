import type { KnipConfig } from 'knip';

/**
 * knip keeps exports, files and dependencies honest (`pnpm lint`). Package entry points come from
 * each package.json; the exceptions below are things knip cannot see statically.
 */
const config: KnipConfig = {
  // openssl is a system tool testenv runs to make certificates, not an npm package.
  ignoreBinaries: ['openssl'],
  // A type used by an exported declaration in the same file must be exported for declaration
  // emit (TS4023), e.g. the entry interface of a kind file.
  ignoreExportsUsedInFile: { interface: true, type: true },
  workspaces: {
    '.': {
      // Run by tools/test.sh (a shell script, which knip does not read) after every test run.
      entry: ['tools/slowest-files.mjs'],
    },
    'tools/chaos': {
      // ork-entry.ts is the entry of the operator child process the chaos suite spawns by path.
      entry: ['src/ork-entry.ts'],
    },
    'packages/create-provider': {
      // The scaffolder reads these two packages' versions (their package.json) to pin them in the
      // generated project; it never imports them.
      ignoreDependencies: ['@orkestra/provider-kit', '@orkestra/types'],
    },
    'apps/operator': {
      // Its index holds only what the benchmark and chaos tools import (ADR 0044, ADR 0091).
      includeEntryExports: true,
      // The Control Center page, loaded by the browser from /ui/ (apps/operator/ui/tsconfig.json).
      entry: ['ui/src/app.ts'],
      // Providers are imported by the package name a Katalog gives, at run time: the bundled ones
      // ship in the image as dependencies, and the provider loader test loads provider-hello.
      ignoreDependencies: [
        '@orkestra/provider-aws',
        '@orkestra/provider-mongodb',
        '@orkestra/provider-hello',
        // Module hooks get the operator's own copy of the kit, resolved by name at load (ADR 0052).
        '@orkestra/provider-kit',
        // The client of `protocol: postgres`, imported by name on its first call (ADR 0053).
        '@orkestra/protocol-postgres',
        '@orkestra/protocol-redis',
        '@orkestra/protocol-mongodb',
        '@orkestra/protocol-kafka',
        // The SMTP client of team notifications, imported by name on the first email (ADR 0060).
        '@orkestra/notify-smtp',
      ],
    },
    'packages/reconciler': {
      // The reconciler's indexes hold only what other packages import (ADR 0013, ADR 0091): an
      // index export nothing outside the package uses is reported like any unused export.
      includeEntryExports: true,
      // The protocol units import their clients by name at run time (ADR 0053), and team
      // notifications the SMTP client (ADR 0060); the tests load them so.
      ignoreDependencies: [
        '@orkestra/protocol-postgres',
        '@orkestra/protocol-redis',
        '@orkestra/protocol-mongodb',
        '@orkestra/protocol-kafka',
        '@orkestra/notify-smtp',
      ],
    },
  },
};

export default config;
