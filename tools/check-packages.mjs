#!/usr/bin/env node
// Package hygiene for every publishable workspace package: publint (strict) on the packed
// tarball and are-the-types-wrong (ESM-only profile). Requires `pnpm build` first.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dirs = ['packages', 'providers'].flatMap((r) =>
  readdirSync(join(root, r))
    .map((d) => join(root, r, d))
    .filter((d) => existsSync(join(d, 'package.json'))),
);
let failed = 0;
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
    execFileSync('pnpm', ['exec', 'publint', tgz, '--strict'], { cwd: root, stdio: 'pipe' });
    execFileSync('pnpm', ['exec', 'attw', tgz, '--profile', 'esm-only', '--format', 'table-flipped'], {
      cwd: root,
      stdio: 'pipe',
    });
    console.log(`✓ ${pkg.name}`);
  } catch (err) {
    failed++;
    console.error(`✗ ${pkg.name}\n${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
