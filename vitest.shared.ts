/**
 * Shared vitest project definitions: every package has a fast unit project (`src/**\/*.test.ts`)
 * and, when it has a `test/` folder, an integration project (`test/**\/*.integration.test.ts`)
 * that shares one local control plane per run through @orkestra/testenv's global setup.
 */
import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { TestProjectInlineConfiguration } from 'vitest/config';

const sourceCondition = ['@orkestra/source'];
/** Unit files at a time: at least 2, else the machine's CPUs − 1 (vitest's own default). */
const UNIT_WORKERS = Math.max(2, availableParallelism() - 1);

/** hasTypeTests is true when the package has type-level tests (`src/**\/*.test-d.ts`, vitest typecheck). */
function hasTypeTests(dir: string): boolean {
  const src = join(dir, 'src');
  return (
    existsSync(src) && readdirSync(src, { recursive: true }).some((f) => String(f).endsWith('.test-d.ts'))
  );
}

export function packageProjects(dir: string, name: string): TestProjectInlineConfiguration[] {
  const projects: TestProjectInlineConfiguration[] = [
    {
      resolve: { conditions: sourceCondition },
      ssr: { resolve: { conditions: sourceCondition } },
      test: {
        name,
        root: dir,
        include: ['src/**/*.test.ts'],
        restoreMocks: true,
        // Unit files run first, two at a time (vitest's default on 2 cores is one: CPUs − 1); the
        // integration files run after them, one at a time, because they share one control plane
        // and some count its requests. Projects of one group must agree on maxWorkers.
        sequence: { groupOrder: 0 },
        maxWorkers: UNIT_WORKERS,
        // A hang guard, not a speed check: in `pnpm test` the unit files share 2 cores with the
        // integration files and the control planes, and a 5 s default failed a property test there.
        testTimeout: 30_000,
        typecheck: hasTypeTests(dir)
          ? { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: join(dir, 'tsconfig.test.json') }
          : { enabled: false },
      },
    },
  ];
  if (existsSync(join(dir, 'test'))) {
    projects.push({
      resolve: { conditions: sourceCondition },
      ssr: { resolve: { conditions: sourceCondition } },
      test: {
        name: `${name}:integration`,
        root: dir,
        include: ['test/**/*.integration.test.ts'],
        restoreMocks: true,
        testTimeout: 60_000,
        hookTimeout: 180_000,
        sequence: { groupOrder: 1 },
        maxWorkers: 1,
        globalSetup: [join(import.meta.dirname, 'packages/testenv/src/global-setup.ts')],
      },
    });
  }
  return projects;
}
