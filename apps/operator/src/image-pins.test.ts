import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../test/run-ork.js';

// The image's inputs are pinned (docs/security.md §3): the Dockerfile's build stage by digest, the
// Debian packages of the base by exact version (tools/image/versions.env), and build.sh refuses
// an unpinned or vanished one instead of taking whatever apt offers.

const work = mkdtempSync(join(tmpdir(), 'ork-image-pins-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const buildSh = join(REPO_ROOT, 'tools/image/build.sh');
const hasAptCache = (process.env['PATH'] ?? '').split(':').some((dir) => existsSync(join(dir, 'apt-cache')));

/** basePackages runs `build.sh --base-packages` with BASE_PACKAGES from a temporary inputs file. */
function basePackages(list: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(work, `versions-${Math.abs(hash(list))}.env`);
  writeFileSync(file, `BASE_PACKAGES="${list}"\n`);
  return new Promise((resolve) => {
    execFile(
      'bash',
      [buildSh, '--base-packages'],
      { env: { ...process.env, ORKESTRA_IMAGE_VERSIONS: file } },
      (error, stdout, stderr) => {
        resolve({ code: error == null ? 0 : Number(error.code ?? 1), stdout, stderr });
      },
    );
  });
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

describe('image inputs', () => {
  it('pins every build stage of the Dockerfile by digest', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'apps/operator/deploy/Dockerfile'), 'utf8');
    const from = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1] ?? '');
    expect(from.length).toBeGreaterThanOrEqual(2);
    for (const image of from.filter((i) => i !== 'scratch'))
      expect(image, `FROM ${image}`).toMatch(/@sha256:[0-9a-f]{64}$/);
  });

  it('pins every Debian package of the base to an exact version in versions.env', () => {
    const env = readFileSync(join(REPO_ROOT, 'tools/image/versions.env'), 'utf8');
    const list = /^BASE_PACKAGES="([^"]*)"/m.exec(env)?.[1] ?? '';
    const entries = list.split(/\s+/).filter((e) => e !== '');
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry).toMatch(/^[a-z0-9][a-z0-9+.-]*=[A-Za-z0-9.+~:-]+$/);
  });

  it('build.sh refuses an unpinned Debian package, by name', async () => {
    const run = await basePackages('libc6=2.36-9 ca-certificates');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      'BASE_PACKAGES entry ca-certificates has no version: pin it as ca-certificates=<version>',
    );
    expect(run.stdout).toBe('');
  });

  it.runIf(hasAptCache)('build.sh refuses a pinned version the apt sources do not hold', async () => {
    const run = await basePackages('libc6=0.0-not-a-version');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      'libc6=0.0-not-a-version (pinned in tools/image/versions.env) is not in the apt sources',
    );
  });
});
