import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The operator process never loads client-node's package index, which loads every generated API
 * class and model (about 50 MiB of RSS), nor @orkestra/testenv (docs/reference/runtime.md §20).
 * Walks the static value imports (not `import type`, not `import()`) from the operator's entries
 * through this workspace's packages, from source.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Workspace package name → its source entry per export subpath (the `@orkestra/source` condition). */
function workspaceEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const group of ['packages', 'providers', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const file = join(root, group, name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
        name: string;
        exports?: Record<string, unknown>;
      };
      for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
        const source = (target as Record<string, unknown> | null)?.['@orkestra/source'];
        if (typeof source === 'string')
          entries.set(sub === '.' ? pkg.name : `${pkg.name}${sub.slice(1)}`, join(root, group, name, source));
      }
    }
  }
  return entries;
}

/** valueImports lists the specifiers a module loads when it is evaluated. */
function valueImports(text: string): string[] {
  const out: string[] = [];
  const statement = /^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm;
  for (const match of text.matchAll(statement)) if (match[1] != null) out.push(match[1]);
  return out;
}

/** loadedFrom walks the graph from `entries` and returns every bare specifier outside the workspace, with one importer. */
function loadedFrom(entries: readonly string[]): Map<string, string> {
  const workspace = workspaceEntries();
  const external = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [...entries];
  for (let file = queue.pop(); file != null; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of valueImports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        queue.push(existsSync(target) ? target : join(target.replace(/\.ts$/, ''), 'index.ts'));
      } else if (workspace.has(spec)) {
        const entry = workspace.get(spec);
        if (entry != null) queue.push(entry);
        external.set(spec, external.get(spec) ?? file);
      } else if (!spec.startsWith('node:')) {
        external.set(spec, external.get(spec) ?? file);
      }
    }
  }
  return external;
}

describe("the operator's import graph", () => {
  const loaded = loadedFrom([
    join(root, 'apps/operator/src/cli.ts'),
    join(root, 'apps/operator/src/index.ts'),
  ]);

  it("loads client-node's KubeConfig, patch and types modules, never its package index", () => {
    const clientNode = [...loaded.keys()].filter((spec) => spec.startsWith('@kubernetes/client-node'));
    expect(clientNode.sort()).toEqual([
      '@kubernetes/client-node/dist/config.js',
      '@kubernetes/client-node/dist/patch.js',
      '@kubernetes/client-node/dist/types.js',
    ]);
  });

  it('does not load @orkestra/testenv (ork dev and ork demo import it on use)', () => {
    expect(loaded.get('@orkestra/testenv')).toBeUndefined();
  });

  it('loads a KubeConfig module patched not to load the generated index (patches/)', () => {
    const pkg = createRequire(import.meta.url).resolve('@kubernetes/client-node/package.json');
    const imports = valueImports(readFileSync(join(dirname(pkg), 'dist/config.js'), 'utf8'));
    expect(imports).toContain('./gen/configuration.js');
    expect(imports.filter((spec) => spec.startsWith('./gen/'))).toEqual([
      './gen/configuration.js',
      './gen/servers.js',
    ]);
  });
});
