#!/usr/bin/env node
// Checks that workspace dependencies point one way (docs/architecture.md, "Packages and their direction"):
//   types ← template ← registry ← reconciler ← operator; provider-kit depends on types only and
//   providers on types and provider-kit (ADR 0003); testenv depends on nothing in the workspace (it is a dev dependency elsewhere).
// Prints the project graph as an edge list and exits non-zero on a forbidden edge.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const allowed = {
  '@orkestra/types': [],
  '@orkestra/template': ['@orkestra/types'],
  '@orkestra/registry': ['@orkestra/types', '@orkestra/template'],
  '@orkestra/reconciler': ['@orkestra/types', '@orkestra/template', '@orkestra/registry'],
  '@orkestra/testenv': [],
  '@orkestra/provider-kit': ['@orkestra/types'],
  // Providers build on the provider SDK, which itself depends only on types (ADR 0003).
  '@orkestra/provider-aws': ['@orkestra/types', '@orkestra/provider-kit'],
  '@orkestra/provider-mongodb': ['@orkestra/types', '@orkestra/provider-kit'],
  '@orkestra/operator': ['*'],
};
// Test-only edges: end-to-end tests may load real providers and protocol clients (the runtime
// itself only knows the Provider interface and the protocol units' structural types, and loads
// both by name; ADR 0003, ADR 0053).
const devAllowed = [
  '@orkestra/testenv',
  '@orkestra/provider-kit',
  '@orkestra/types',
  '@orkestra/provider-hello',
  '@orkestra/provider-aws',
  '@orkestra/provider-mongodb',
  '@orkestra/protocol-postgres',
  '@orkestra/protocol-redis',
  '@orkestra/protocol-mongodb',
  '@orkestra/protocol-kafka',
  '@orkestra/notify-smtp',
];

const root = new URL('..', import.meta.url).pathname;
const problems = [];
const edges = [];
for (const group of ['packages', 'providers', 'apps', 'examples']) {
  if (!existsSync(join(root, group))) continue;
  for (const d of readdirSync(join(root, group))) {
    const file = join(root, group, d, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    const ok = allowed[pkg.name] ?? ['@orkestra/types', '@orkestra/provider-kit'];
    for (const field of ['dependencies', 'peerDependencies', 'devDependencies']) {
      for (const dep of Object.keys(pkg[field] ?? {})) {
        if (!dep.startsWith('@orkestra/')) continue;
        edges.push(`${pkg.name} -> ${dep}${field === 'devDependencies' ? ' (dev)' : ''}`);
        const fine =
          ok.includes('*') || ok.includes(dep) || (field === 'devDependencies' && devAllowed.includes(dep));
        if (!fine) problems.push(`${pkg.name} must not depend on ${dep} (${field})`);
      }
    }
  }
}
if (process.argv.includes('--print')) console.log(edges.sort().join('\n'));
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`workspace boundaries ok (${edges.length} edges)`);
