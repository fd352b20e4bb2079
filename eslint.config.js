// ESLint flat config. Beyond the recommended rules it enforces the package boundaries of
// docs/architecture.md ("Packages and their direction"): no deep imports into another package
// (`@orkestra/x/src/...`, `.../dist/...`, or a relative path that climbs into a sibling package),
// and `import type` for type-only imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { packageBoundaries } from './tools/eslint/package-boundaries.js';

const deepImport = {
  patterns: [
    {
      group: [
        '@orkestra/*/src',
        '@orkestra/*/src/**',
        '@orkestra/*/dist',
        '@orkestra/*/dist/**',
        '@orkestra/*/internal/**',
      ],
      message:
        'Import another package through its public entry point (@orkestra/<name>), never its src/, dist/ or internals.',
    },
  ],
};

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '.nx/**', '**/*.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    plugins: { orkestra: packageBoundaries },
    rules: {
      'orkestra/no-cross-package-relative': 'error',
      'no-restricted-imports': ['error', deepImport],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use an `as const` object and a type of the same name.' },
        { selector: 'ExportDefaultDeclaration', message: 'No default exports.' },
      ],
    },
  },
  {
    // Workspace-level config files may import the shared vitest setup at the root.
    files: ['**/vitest.config.ts'],
    rules: { 'orkestra/no-cross-package-relative': 'off' },
  },
  {
    // Config files must default-export their config.
    files: [
      '**/vitest.config.ts',
      '**/vitest.*.config.ts',
      'eslint.config.js',
      '**/vitest.shared.ts',
      'knip.config.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
