import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerBuildManager } from './docker.js';
import type { DockerBuildFinished } from './docker.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

/**
 * A fake builder: records each invocation (one argument per line, then `--`) in $FAKE_LOG, waits
 * for $FAKE_GATE to exist during `build` when set, fails the build when $FAKE_FAIL is set, and
 * prints (or, with --digestfile, writes) a digest on push.
 */
const FAKE_BUILDER = `#!/bin/sh
{ echo "$(basename "$0")"; for a in "$@"; do echo "$a"; done; echo "--"; } >> "$FAKE_LOG"
case "$1" in
  build)
    if [ -n "$FAKE_GATE" ]; then while [ ! -f "$FAKE_GATE" ]; do sleep 0.02; done; fi
    if [ -n "$FAKE_FAIL" ]; then
      echo "FIRST-LINE-OF-OUTPUT"
      i=0; while [ $i -lt 200 ]; do echo "noise line $i .............................................."; i=$((i+1)); done
      echo "error: step 3/3 RUN make: exit code 2" >&2
      exit 1
    fi
    echo "Successfully built 0123456789ab"
    ;;
  push)
    if [ "$2" = "--digestfile" ]; then printf '%s' "${DIGEST}" > "$3"; else echo "latest: digest: ${DIGEST} size: 1234"; fi
    ;;
esac
exit 0
`;

let root: string;
let fakeBin: string;
let context: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'orkestra-docker-test-'));
  fakeBin = join(root, 'bin');
  mkdirSync(fakeBin);
  writeFileSync(join(fakeBin, 'docker'), FAKE_BUILDER);
  chmodSync(join(fakeBin, 'docker'), 0o755);
  symlinkSync(join(fakeBin, 'docker'), join(fakeBin, 'podman'));
  context = join(root, 'ctx');
  mkdirSync(join(context, 'docker'), { recursive: true });
  writeFileSync(join(context, 'docker', 'Dockerfile.web'), 'FROM scratch\n');
  writeFileSync(join(context, 'Dockerfile'), 'FROM scratch\n');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

let counter = 0;

function fake(extra: Record<string, string> = {}) {
  const log = join(root, `log-${++counter}`);
  writeFileSync(log, '');
  const finished: DockerBuildFinished[] = [];
  const manager = new DockerBuildManager({
    env: { PATH: `${fakeBin}${delimiter}${process.env['PATH'] ?? ''}`, FAKE_LOG: log, ...extra },
    onBuildFinished: (event) => finished.push(event),
    workDir: root,
  });
  const invocations = (): string[][] =>
    readFileSync(log, 'utf8')
      .split('--\n')
      .filter((chunk) => chunk !== '')
      .map((chunk) => chunk.trimEnd().split('\n'));
  return { manager, finished, invocations };
}

describe('DockerBuildManager with a fake builder', () => {
  it('builds in the background: pending while building, then the result once, then recorded', async () => {
    const gate = join(root, `gate-${++counter}`);
    const { manager, finished, invocations } = fake({ FAKE_GATE: gate });
    const decl = {
      image: 'registry.example.com/web:abc1234',
      workingDirectory: context,
      dockerfile: 'docker/Dockerfile.web',
      buildArgs: { VERSION: '1.2.3', MODE: 'prod' },
    };
    expect(manager.request(decl, { waiter: 'web:shop/a' })).toEqual({ pending: true, image: decl.image });
    expect(manager.request(decl, { waiter: 'web:shop/b' })).toEqual({ pending: true, image: decl.image });
    expect(manager.stats()).toMatchObject({ running: 1, queued: 0 });
    writeFileSync(gate, '');
    await manager.whenIdle();

    expect(invocations()).toEqual([
      [
        'docker',
        'build',
        '-t',
        decl.image,
        '-f',
        join(context, 'docker/Dockerfile.web'),
        '--build-arg',
        'VERSION=1.2.3',
        '--build-arg',
        'MODE=prod',
        context,
      ],
    ]);
    const result = { called: true, image: decl.image, digest: '', buildSucceeded: true, error: '' };
    expect(finished).toEqual([{ image: decl.image, result, waiters: ['web:shop/a', 'web:shop/b'] }]);
    expect(manager.request(decl, { waiter: 'web:shop/a' })).toEqual({ pending: false, result });
    // Delivered once; afterwards the image is known as built (no new build).
    expect(manager.request(decl, { waiter: 'web:shop/a', lastImage: decl.image })).toEqual({
      pending: false,
      result: { ...result, called: false },
    });
    expect(manager.request(decl, { waiter: 'web:shop/c' })).toEqual({
      pending: false,
      result: { ...result, called: false },
    });
    expect(invocations()).toHaveLength(1);
  });

  it('does not build an image equal to the recorded last-image', () => {
    const { manager, invocations } = fake();
    const outcome = manager.request(
      { image: 'web:1', workingDirectory: context },
      { waiter: 'x', lastImage: 'web:1' },
    );
    expect(outcome).toEqual({
      pending: false,
      result: { called: false, image: 'web:1', digest: '', buildSucceeded: true, error: '' },
    });
    expect(invocations()).toEqual([]);
  });

  it('pushes and reads the digest from the push output', async () => {
    const { manager, invocations } = fake();
    const decl = { image: 'registry.example.com/web:push', workingDirectory: context, push: true };
    manager.request(decl, { waiter: 'w' });
    await manager.whenIdle();
    expect(invocations().map((args) => args.slice(0, 2))).toEqual([
      ['docker', 'build'],
      ['docker', 'push'],
    ]);
    expect(manager.request(decl, { waiter: 'w' })).toEqual({
      pending: false,
      result: { called: true, image: decl.image, digest: DIGEST, buildSucceeded: true, error: '' },
    });
  });

  it('uses OCI_BUILDER when the declaration names no builder, and a digest file for podman', async () => {
    const { manager, invocations } = fake({ OCI_BUILDER: 'podman' });
    const decl = { image: 'web:podman', workingDirectory: context, push: true };
    manager.request(decl, { waiter: 'w' });
    await manager.whenIdle();
    const calls = invocations();
    expect(calls.map((args) => args[0])).toEqual(['podman', 'podman']);
    expect(calls[1]?.slice(1, 3)).toEqual(['push', '--digestfile']);
    const outcome = manager.request(decl, { waiter: 'w' });
    expect(outcome.pending === false && outcome.result.digest).toBe(DIGEST);
    // An explicit builder wins over OCI_BUILDER.
    manager.request({ ...decl, image: 'web:explicit', builder: 'docker', push: false }, { waiter: 'w' });
    await manager.whenIdle();
    expect(invocations()[2]?.[0]).toBe('docker');
  });

  it('keeps the last 4 KiB of output for the error, and rebuilds after a failure', async () => {
    const { manager, finished, invocations } = fake({ FAKE_FAIL: '1' });
    const decl = { image: 'web:broken', workingDirectory: context };
    manager.request(decl, { waiter: 'w' });
    await manager.whenIdle();
    const outcome = manager.request(decl, { waiter: 'w', lastImage: 'web:broken' });
    if (outcome.pending) throw new Error('expected a result');
    expect(outcome.result).toMatchObject({ called: true, buildSucceeded: false, digest: '' });
    expect(outcome.result.error).toMatch(/^docker build of web:broken failed \(exit 1\): /);
    expect(outcome.result.error).toMatch(/error: step 3\/3 RUN make: exit code 2$/);
    expect(outcome.result.error).not.toContain('FIRST-LINE-OF-OUTPUT');
    const prefix = 'docker build of web:broken failed (exit 1): ';
    expect(outcome.result.error.length).toBeLessThanOrEqual(prefix.length + 4096);
    expect(finished[0]?.result.buildSucceeded).toBe(false);
    // The last build of this image failed: the next request builds again, even though it equals last-image.
    expect(manager.request(decl, { waiter: 'w', lastImage: 'web:broken' })).toEqual({
      pending: true,
      image: 'web:broken',
    });
    await manager.whenIdle();
    expect(invocations()).toHaveLength(2);
  });

  it('runs at most maxConcurrentBuilds builds at a time, one per image', async () => {
    const gate = join(root, `gate-${++counter}`);
    const { manager, invocations } = fake({ FAKE_GATE: gate });
    manager.request({ image: 'web:1', workingDirectory: context }, { waiter: 'a' });
    manager.request({ image: 'web:2', workingDirectory: context }, { waiter: 'b' });
    manager.request({ image: 'web:1', workingDirectory: context }, { waiter: 'c' });
    expect(manager.stats()).toMatchObject({ running: 1, queued: 1 });
    writeFileSync(gate, '');
    await manager.whenIdle();
    expect(invocations().map((args) => args[3])).toEqual(['web:1', 'web:2']);
    expect(manager.stats()).toMatchObject({ running: 0, queued: 0, succeeded: 2, failed: 0 });
  });

  it('stops a build at its timeout', async () => {
    const { manager } = fake({ FAKE_GATE: join(root, 'never-created') });
    manager.request({ image: 'web:slow', workingDirectory: context, timeout: '200ms' }, { waiter: 'w' });
    await manager.whenIdle();
    const outcome = manager.request({ image: 'web:slow', workingDirectory: context }, { waiter: 'w' });
    expect(outcome.pending === false && outcome.result.error).toBe(
      'docker build of web:slow timed out after 200ms',
    );
  });

  it('confines the context and the Dockerfile to the checkout, symlinks followed', async () => {
    const { manager, invocations } = fake();
    const checkout = join(root, 'checkout');
    mkdirSync(join(checkout, 'app'), { recursive: true });
    writeFileSync(join(checkout, 'app', 'Dockerfile'), 'FROM scratch\n');
    symlinkSync('/', join(checkout, 'to-root'));
    const cases: [string, { workingDirectory: string; dockerfile?: string }, RegExp][] = [
      [
        'a context above the checkout',
        { workingDirectory: join(checkout, '..') },
        /^build context .* is outside /,
      ],
      ['an absolute context elsewhere', { workingDirectory: '/etc' }, /^build context \/etc is outside /],
      [
        'a symlink out of the checkout',
        { workingDirectory: join(checkout, 'to-root', 'etc') },
        /^build context .* is outside /,
      ],
      [
        'a Dockerfile above the checkout',
        { workingDirectory: join(checkout, 'app'), dockerfile: '../../x/Dockerfile' },
        /^Dockerfile .* is outside /,
      ],
      [
        'an absolute Dockerfile',
        { workingDirectory: join(checkout, 'app'), dockerfile: '/etc/passwd' },
        /^Dockerfile \/etc\/passwd is outside /,
      ],
    ];
    for (const [what, paths, error] of cases) {
      const image = `web:${what.replaceAll(' ', '-')}`;
      manager.request({ image, root: checkout, ...paths }, { waiter: 'w' });
      await manager.whenIdle();
      const outcome = manager.request({ image, root: checkout, ...paths }, { waiter: 'w' });
      expect(outcome.pending === false && outcome.result.error, what).toMatch(error);
    }
    expect(invocations()).toEqual([]);
    // Inside the checkout, a Dockerfile one level up from the context is fine.
    const inside = {
      image: 'web:inside',
      root: checkout,
      workingDirectory: join(checkout, 'app', '..'),
      dockerfile: 'app/Dockerfile',
    };
    manager.request(inside, { waiter: 'w' });
    await manager.whenIdle();
    const ok = manager.request(inside, { waiter: 'w' });
    expect(ok.pending === false && ok.result.error).toBe('');
  });

  it('without a git checkout, confines the context to the work directory, and refuses without one', async () => {
    const { manager, invocations } = fake();
    manager.request({ image: 'x.example.com/stolen:1', workingDirectory: '/', push: true }, { waiter: 'w' });
    await manager.whenIdle();
    const outside = manager.request(
      { image: 'x.example.com/stolen:1', workingDirectory: '/' },
      { waiter: 'w' },
    );
    expect(outside.pending === false && outside.result.error).toBe(
      `build context / is outside ${root}; build paths must stay inside the work directory`,
    );
    const bare = new DockerBuildManager({ env: { PATH: fakeBin } });
    bare.request({ image: 'web:bare', workingDirectory: context }, { waiter: 'w' });
    await bare.whenIdle();
    const refused = bare.request({ image: 'web:bare', workingDirectory: context }, { waiter: 'w' });
    expect(refused.pending === false && refused.result.error).toContain(
      'is not inside a git checkout and the operator has no work directory',
    );
    expect(invocations()).toEqual([]);
  });

  it('reports a missing builder binary and a missing context clearly', async () => {
    const manager = new DockerBuildManager({ env: { PATH: fakeBin }, workDir: root });
    manager.request({ image: 'web:x', workingDirectory: context, builder: 'buildah' }, { waiter: 'w' });
    manager.request({ image: 'web:y', workingDirectory: join(root, 'nope') }, { waiter: 'w' });
    await manager.whenIdle();
    const x = manager.request({ image: 'web:x', workingDirectory: context }, { waiter: 'w' });
    expect(x.pending === false && x.result.error).toBe(
      "builder buildah not found on PATH (the builder binary must be present in the operator's image)",
    );
    const y = manager.request({ image: 'web:y', workingDirectory: context }, { waiter: 'w' });
    expect(y.pending === false && y.result.error).toBe(`build context ${join(root, 'nope')} does not exist`);
  });
});

function realDocker(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v docker'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const docker = realDocker();

describe('DockerBuildManager with the real docker CLI and no engine', () => {
  // The machine has the docker client but no engine; skipped (with this reason) only where the client is absent.
  it.skipIf(docker == null || !existsSync(docker))(
    'reports that no container engine is reachable',
    async () => {
      const manager = new DockerBuildManager({
        // DOCKER_HOST points at a socket that cannot exist, so no engine can answer even where one runs.
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: root,
          DOCKER_HOST: `unix://${join(root, 'no-engine.sock')}`,
        },
        workDir: root,
      });
      manager.request({ image: 'orkestra-test/no-engine:1', workingDirectory: context }, { waiter: 'w' });
      await manager.whenIdle();
      const outcome = manager.request(
        { image: 'orkestra-test/no-engine:1', workingDirectory: context },
        { waiter: 'w' },
      );
      if (outcome.pending) throw new Error('expected a result');
      expect(outcome.result.buildSucceeded).toBe(false);
      expect(outcome.result.error).toMatch(
        /^no reachable container engine for docker \(docker build of orkestra-test\/no-engine:1 failed\): /,
      );
      expect(outcome.result.error).toContain('Cannot connect to the Docker daemon');
    },
  );
});
