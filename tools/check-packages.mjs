#!/usr/bin/env node
// Package hygiene for every publishable workspace package, on the tarball `pnpm pack` makes
// (requires `pnpm build` first):
//   - contents: README.md, LICENSE, package.json, an ESM entry with its .d.ts, a map beside every
//     built .js and .d.ts; no tests, fixtures, sources or build info, and nothing outside the
//     allow-list below (so a tarball that gains a file it should not have fails CI);
//   - publint (strict) and are-the-types-wrong (ESM-only profile);
//   - prints each package's packed and unpacked size (`--json` prints them as JSON instead).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const asJson = process.argv.includes('--json');

// Top-level entries a tarball may hold, besides what is checked below.
const ALLOWED_TOP = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist']);
// Extra top-level entries, per package, that its `files` field publishes on purpose.
const EXTRA_TOP = {
  '@orkestra/types': ['schema'], // the Katalog JSON Schema, for editors
  '@orkestra/testenv': ['versions.json'], // the pinned server versions it looks up in the cache
};
const FORBIDDEN = [
  [/\.test\.[cm]?[jt]sx?$|\.test-d\.|\.test\.d\.ts/, 'a test file'],
  [/(^|\/)(test|tests|__tests__|fixtures?|__fixtures__|testdata)\//, 'a test or fixture directory'],
  [/\.tsbuildinfo$/, 'TypeScript build info'],
  [/^src\//, 'sources'],
  [/(^|\/)\.(env|npmrc)/, 'an environment or npm config file'],
  [/\.tgz$/, 'a tarball'],
];

/** checkContents returns the problems of one tarball's file list (paths without `package/`). */
export function checkContents(pkg, files) {
  const problems = [];
  const set = new Set(files);
  for (const required of ['package.json', 'README.md', 'LICENSE']) {
    if (!set.has(required)) problems.push(`missing ${required}`);
  }
  if (pkg.type !== 'module') problems.push('package.json "type" is not "module" (ESM only)');
  const allowed = new Set([...ALLOWED_TOP, ...(EXTRA_TOP[pkg.name] ?? [])]);
  for (const file of files) {
    const top = file.split('/')[0];
    if (!allowed.has(top))
      problems.push(`unexpected file ${file} (not in the allow-list of tools/check-packages.mjs)`);
    for (const [pattern, what] of FORBIDDEN) if (pattern.test(file)) problems.push(`${file} is ${what}`);
    if (/^dist\/.*\.js$/.test(file) && !set.has(`${file}.map`)) problems.push(`${file} has no source map`);
    if (/^dist\/.*\.d\.ts$/.test(file) && !set.has(`${file}.map`))
      problems.push(`${file} has no declaration map`);
  }
  const exportsField = pkg.publishConfig?.exports ?? pkg.exports;
  // A subpath the workspace resolves must be published too (the operator imports
  // `@orkestra/reconciler/rollout`: a published operator fails to start without it).
  if (pkg.publishConfig?.exports != null)
    for (const subpath of Object.keys(pkg.exports ?? {}))
      if (!(subpath in pkg.publishConfig.exports))
        problems.push(
          `exports["${subpath}"] is not in publishConfig.exports (the published package lacks it)`,
        );
  for (const [subpath, target] of Object.entries(exportsField ?? {})) {
    if (target == null || typeof target !== 'object') continue;
    for (const condition of ['types', 'default']) {
      const path = target[condition]?.replace(/^\.\//, '');
      if (path == null) problems.push(`exports["${subpath}"] has no "${condition}"`);
      else if (!set.has(path))
        problems.push(`exports["${subpath}"].${condition} ${path} is not in the tarball`);
    }
  }
  return problems;
}

const dirs = ['packages', 'providers'].flatMap((r) =>
  readdirSync(join(root, r))
    .map((d) => join(root, r, d))
    .filter((d) => existsSync(join(d, 'package.json'))),
);
let failed = 0;
const sizes = [];
for (const dir of dirs) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (pkg.private) continue;
  if (!existsSync(join(dir, 'dist', 'index.js'))) {
    console.error(`✗ ${pkg.name}: dist/ is missing; run pnpm build first`);
    failed++;
    continue;
  }
  const out = mkdtempSync(join(tmpdir(), 'ork-pack-'));
  try {
    execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'pipe' });
    const tgz = join(
      out,
      readdirSync(out).find((f) => f.endsWith('.tgz')),
    );
    const listing = execFileSync('tar', ['-tvzf', tgz], { encoding: 'utf8' }).trim().split('\n');
    // tar -tv: mode owner/group size date time path
    const entries = listing.map((line) => {
      const parts = line.trim().split(/\s+/);
      return {
        size: Number(parts[2]),
        path: parts
          .slice(5)
          .join(' ')
          .replace(/^package\//, ''),
      };
    });
    const files = entries.map((e) => e.path).filter((p) => !p.endsWith('/'));
    const problems = checkContents(pkg, files);
    if (problems.length > 0) {
      throw Object.assign(new Error('tarball contents'), { stdout: `  ${problems.join('\n  ')}\n` });
    }
    execFileSync('pnpm', ['exec', 'publint', tgz, '--strict'], { cwd: root, stdio: 'pipe' });
    execFileSync('pnpm', ['exec', 'attw', tgz, '--profile', 'esm-only', '--format', 'table-flipped'], {
      cwd: root,
      stdio: 'pipe',
    });
    const size = {
      name: pkg.name,
      files: files.length,
      packedBytes: statSync(tgz).size,
      unpackedBytes: entries.reduce((sum, e) => sum + e.size, 0),
    };
    sizes.push(size);
    if (!asJson) {
      const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
      console.log(
        `✓ ${pkg.name} (${size.files} files, packed ${kb(size.packedBytes)}, unpacked ${kb(size.unpackedBytes)})`,
      );
    }
  } catch (err) {
    failed++;
    console.error(`✗ ${pkg.name}\n${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
if (asJson) console.log(JSON.stringify(sizes, null, 2));
process.exit(failed ? 1 : 0);
