import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useNpmRegistry } from '@orkestra/testenv/vitest';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const registry = useNpmRegistry();
const dirs: string[] = [];

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'orkestra-npm-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('verdaccio npm registry', () => {
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('publishes a scoped package with npm and installs it in another project', async () => {
    const npmrc = registry().npmrc('@orkestra-test');
    const pkg = project({
      '.npmrc': npmrc,
      'package.json': JSON.stringify({ name: '@orkestra-test/hello', version: '1.2.3', type: 'module' }),
      'index.js': 'export const hello = "world";\n',
    });
    await run('npm', ['publish'], { cwd: pkg });
    const consumer = project({ '.npmrc': npmrc, 'package.json': '{"name":"consumer","private":true}' });
    await run('npm', ['install', '--no-audit', '--no-fund', '@orkestra-test/hello@1.2.3'], { cwd: consumer });
    const installed = JSON.parse(
      readFileSync(join(consumer, 'node_modules/@orkestra-test/hello/package.json'), 'utf8'),
    ) as { version: string };
    expect(installed.version).toBe('1.2.3');
  });

  it('refuses a publish without the token', async () => {
    const pkg = project({
      '.npmrc': `@orkestra-test:registry=${registry().url}\n//${new URL(registry().url).host}/:_authToken=wrong\n`,
      'package.json': JSON.stringify({ name: '@orkestra-test/denied', version: '1.0.0' }),
      'index.js': '',
    });
    await expect(run('npm', ['publish'], { cwd: pkg })).rejects.toThrow(/E401|E403|unauthorized|forbidden/i);
  });
});
