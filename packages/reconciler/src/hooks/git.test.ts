// Local test servers are on loopback, which the address guard refuses unless allowed explicitly.
import { LOOPBACK_CIDRS } from './address-guard.js';
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { GitCheckouts, GitPoller, checkGitHost, gitAddressPin, gitRepoHost } from './git.js';
import type { GitRefresh } from './git.js';

/** The test repositories are local paths, which only a Katalog-literal repository may name. */
const LOCAL = { allowLocal: true } as const;

let root: string;
let origin: string;
let author: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
    {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
    },
  ).trim();
}

/** Commits one file in the author clone, pushes it, and returns the new commit. */
function commit(file: string, content: string, branch = 'main'): string {
  mkdirSync(join(author, file, '..'), { recursive: true });
  writeFileSync(join(author, file), content);
  git(author, 'add', '-A');
  git(author, 'commit', '-q', '-m', `change ${file}`);
  git(author, 'push', '-q', 'origin', `HEAD:${branch}`);
  return git(author, 'rev-parse', 'HEAD');
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'orkestra-git-test-'));
  origin = join(root, 'origin.git');
  author = join(root, 'author');
  git(root, 'init', '-q', '--bare', '-b', 'main', origin);
  git(root, 'clone', '-q', origin, author);
  git(author, 'checkout', '-q', '-b', 'main');
  commit('README.md', 'hello\n');
  commit('services/web/index.html', '<h1>v1</h1>\n');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function newCheckouts(clock = new ManualClock(0), workDir = join(root, 'work')) {
  return new GitCheckouts({ allowAddresses: LOOPBACK_CIDRS, workDir, clock });
}

describe('GitCheckouts against a local bare repository', () => {
  it('clones, reports the commit, and compares it with the recorded one', async () => {
    const clock = new ManualClock(0);
    const checkouts = newCheckouts(clock, join(root, 'work-basic'));
    const head = git(author, 'rev-parse', 'HEAD');
    const first = await checkouts.sync({ repo: origin, branch: 'main' }, LOCAL);
    expect(first).toEqual({
      called: true,
      commit: head,
      shortCommit: head.slice(0, 7),
      branch: 'main',
      dir: checkouts.checkoutDir(origin, 'main'),
      changed: true,
      error: '',
    });
    expect(existsSync(join(first.dir, 'services/web/index.html'))).toBe(true);

    // No change since the recorded commit.
    clock.advance(10_000);
    const same = await checkouts.sync({ repo: origin }, { ...LOCAL, recordedCommit: first.commit });
    expect(same).toMatchObject({ commit: head, changed: false, error: '' });

    // A new commit is noticed by the next fetch.
    const next = commit('README.md', 'hello again\n');
    clock.advance(10_000);
    const changed = await checkouts.sync({ repo: origin }, { ...LOCAL, recordedCommit: first.commit });
    expect(changed).toMatchObject({ commit: next, shortCommit: next.slice(0, 7), changed: true, error: '' });

    // A restart (a new instance on the same work directory) with the recorded commit: not changed, no clone.
    const restarted = newCheckouts(new ManualClock(0), join(root, 'work-basic'));
    const afterRestart = await restarted.sync({ repo: origin }, { ...LOCAL, recordedCommit: next });
    expect(afterRestart).toMatchObject({ commit: next, changed: false, error: '' });
  });

  it('skips the fetch when the checkout was fetched less than 10 s ago', async () => {
    const clock = new ManualClock(0);
    const checkouts = newCheckouts(clock, join(root, 'work-skip'));
    const first = await checkouts.sync({ repo: origin }, LOCAL);
    const commandsAfterClone = checkouts.commands;
    const next = commit('skip.txt', String(Math.random()));
    clock.advance(9_999);
    const skipped = await checkouts.sync({ repo: origin }, { ...LOCAL, recordedCommit: first.commit });
    expect(skipped).toMatchObject({ commit: first.commit, changed: false });
    expect(checkouts.commands - commandsAfterClone).toBe(1); // only `git log`
    clock.advance(1);
    const fetched = await checkouts.sync({ repo: origin }, { ...LOCAL, recordedCommit: first.commit });
    expect(fetched).toMatchObject({ commit: next, changed: true });
  });

  it('only counts commits touching path', async () => {
    const clock = new ManualClock(0);
    const checkouts = newCheckouts(clock, join(root, 'work-path'));
    const web = commit('services/web/index.html', '<h1>v2</h1>\n');
    const first = await checkouts.sync({ repo: origin, path: 'services/web' }, LOCAL);
    expect(first.commit).toBe(web);

    commit('services/api/main.go', 'package main\n');
    clock.advance(10_000);
    const elsewhere = await checkouts.sync(
      { repo: origin, path: 'services/web' },
      { ...LOCAL, recordedCommit: web },
    );
    expect(elsewhere).toMatchObject({ commit: web, changed: false, error: '' });

    const web3 = commit('services/web/index.html', '<h1>v3</h1>\n');
    clock.advance(10_000);
    const touched = await checkouts.sync(
      { repo: origin, path: 'services/web' },
      { ...LOCAL, recordedCommit: web },
    );
    expect(touched).toMatchObject({ commit: web3, changed: true });
    expect(await checkouts.lastCommit(origin, 'main', 'services/api')).not.toBe(web3);
  });

  it('keeps one checkout per repository and branch', async () => {
    commit('feature.txt', 'f\n', 'feature');
    const checkouts = newCheckouts(new ManualClock(0), join(root, 'work-branches'));
    const [main, feature] = await Promise.all([
      checkouts.sync({ repo: origin, branch: 'main' }, LOCAL),
      checkouts.sync({ repo: origin, branch: 'feature' }, LOCAL),
    ]);
    expect(main.dir).not.toBe(feature.dir);
    expect(feature).toMatchObject({ branch: 'feature', error: '' });
    // Concurrent syncs of one checkout share it under the lock.
    const [a, b] = await Promise.all([
      checkouts.sync({ repo: origin }, LOCAL),
      checkouts.sync({ repo: origin }, LOCAL),
    ]);
    expect(a.commit).toBe(b.commit);
    expect(a.dir).toBe(main.dir);
  });

  it('reports failures in error and never throws', async () => {
    const checkouts = newCheckouts(new ManualClock(0), join(root, 'work-errors'));
    const missingRepo = await checkouts.sync({ repo: join(root, 'does-not-exist.git') }, LOCAL);
    expect(missingRepo).toMatchObject({ called: true, commit: '', changed: false });
    expect(missingRepo.error).toMatch(
      /^git clone of .*does-not-exist\.git \(branch main\) failed \(exit 128\): .*does not exist/s,
    );
    expect(existsSync(checkouts.checkoutDir(join(root, 'does-not-exist.git'), 'main'))).toBe(false);

    const missingBranch = await checkouts.sync({ repo: origin, branch: 'nope' }, LOCAL);
    expect(missingBranch.error).toMatch(/Remote branch nope not found/);
    expect((await checkouts.sync({ repo: origin, branch: '--upload-pack=evil' }, LOCAL)).error).toBe(
      'git branch "--upload-pack=evil" is not a valid branch name',
    );
    expect((await checkouts.sync({ repo: '-oops' })).error).toBe('git repo "-oops" must not start with "-"');
    expect((await checkouts.sync({ repo: origin, path: 'no/such/dir' }, LOCAL)).error).toBe(
      `no commit on branch main of ${origin} touches path "no/such/dir"`,
    );
  });
});

describe('the work directory cap (--max-work-dir-bytes, docs/reference/runtime.md §14.3)', () => {
  it('refuses a clone, then a fetch, that passes the cap: the checkout is removed and the error names the cap', async () => {
    const capRoot = mkdtempSync(join(root, 'cap-'));
    const capOrigin = join(capRoot, 'origin.git');
    const capAuthor = join(capRoot, 'author');
    git(capRoot, 'init', '-q', '--bare', '-b', 'main', capOrigin);
    git(capRoot, 'clone', '-q', capOrigin, capAuthor);
    git(capAuthor, 'checkout', '-q', '-b', 'main');
    const push = (file: string, bytes: number): void => {
      writeFileSync(join(capAuthor, file), randomBytes(bytes));
      git(capAuthor, 'add', '-A');
      git(capAuthor, 'commit', '-q', '-m', file);
      git(capAuthor, 'push', '-q', 'origin', 'HEAD:main');
    };
    push('small.bin', 1000);
    const workDir = join(capRoot, 'work');
    const clock = new ManualClock(0);
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir,
      clock,
      maxWorkDirBytes: 400_000,
    });
    const small = await checkouts.sync({ repo: capOrigin }, LOCAL);
    expect(small.error).toBe('');
    // A commit that makes the checkout (working tree plus objects) pass 400 000 bytes.
    push('large.bin', 300_000);
    clock.advance(60_000);
    const fetched = await checkouts.sync({ repo: capOrigin }, LOCAL);
    expect(fetched.error).toMatch(
      new RegExp(
        `^git fetch of ${capOrigin} \\(branch main\\) stopped: the work directory ${workDir} would hold more than 400000 bytes \\(--max-work-dir-bytes\\); at least \\d+ bytes$`,
      ),
    );
    expect(existsSync(small.dir)).toBe(false);
    // The clone of the grown repository is refused the same way, and leaves nothing behind.
    const cloned = await checkouts.sync({ repo: capOrigin }, LOCAL);
    expect(cloned.error).toContain(`git clone of ${capOrigin} (branch main) stopped`);
    expect(existsSync(small.dir)).toBe(false);
    // Without the cap, the same clone succeeds.
    const uncapped = new GitCheckouts({ allowAddresses: LOOPBACK_CIDRS, workDir, clock, maxWorkDirBytes: 0 });
    expect((await uncapped.sync({ repo: capOrigin }, LOCAL)).error).toBe('');
  });

  it('stops a running git process as soon as its checkout passes the cap', async () => {
    const dir = mkdtempSync(join(root, 'fake-git-'));
    const fake = join(dir, 'git');
    // A clone that never ends and keeps writing: the last argument is the checkout directory.
    writeFileSync(
      fake,
      '#!/bin/sh\nfor last; do :; done\nmkdir -p "$last"\nwhile :; do head -c 65536 /dev/urandom >> "$last/blob"; sleep 0.02; done\n',
    );
    chmodSync(fake, 0o755);
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir: join(root, 'work-cap-running'),
      gitBinary: fake,
      maxWorkDirBytes: 1_000_000,
      sizeCheckMs: 50,
      killGraceMs: 100,
    });
    const started = Date.now();
    // The timeout ends the fake clone even when the cap does not (it must, well before).
    const result = await checkouts.sync({ repo: origin, timeout: '8s' }, LOCAL);
    expect(result.error).toContain('would hold more than 1000000 bytes (--max-work-dir-bytes)');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(existsSync(result.dir)).toBe(false);
  });
});

describe('git process control', () => {
  function fakeGit(body: string): string {
    const dir = mkdtempSync(join(root, 'fake-git-'));
    const path = join(dir, 'git');
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  it('stops a git process at the timeout, with SIGKILL when SIGTERM is ignored', async () => {
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir: join(root, 'work-timeout'),
      gitBinary: fakeGit("trap '' TERM\nsleep 30"),
      killGraceMs: 100,
    });
    const result = await checkouts.sync({ repo: origin, timeout: '200ms' }, LOCAL);
    expect(result.error).toBe(`git clone of ${origin} (branch main) timed out after 200 ms`);
  });

  it("stops a git process when the reconcile's signal aborts", async () => {
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir: join(root, 'work-abort'),
      gitBinary: fakeGit('sleep 30'),
    });
    const controller = new AbortController();
    const pending = checkouts.sync({ repo: origin }, { ...LOCAL, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('reconcile timeout')), 100);
    expect((await pending).error).toBe(`git clone of ${origin} (branch main) aborted`);
  });

  it("refuses a repository host outside the Katalog's allowedRepoHosts before any lookup or git process", async () => {
    const looked: string[] = [];
    const checkouts = new GitCheckouts({
      workDir: join(root, 'work-allowed-hosts'),
      gitBinary: fakeGit('echo ran >&2; exit 3'),
      allowedHosts: ['git.example.com', '*.corp.example'],
      resolve: async (host) => {
        looked.push(host);
        return [{ address: '203.0.113.7', family: 4 }];
      },
    });
    for (const repo of ['https://evil.example.org/org/r.git', 'git@corp.example:org/r.git']) {
      const refused = await checkouts.sync({ repo });
      expect(refused.error).toBe(
        `git repo host ${JSON.stringify(repo.includes('evil') ? 'evil.example.org' : 'corp.example')} is not in the Katalog's spec.allowedRepoHosts (git.example.com, *.corp.example)`,
      );
    }
    expect(looked).toEqual([]);
    expect(checkouts.commands).toBe(0);
    // Allowed hosts (exactly, and a subdomain of a *. item) get past the list to the guard and git.
    for (const repo of ['https://GIT.example.com/org/r.git', 'ssh://git@src.corp.example/org/r.git']) {
      const passed = await checkouts.sync({ repo });
      expect(passed.error).toContain('failed (exit 3)');
    }
    expect(looked).toEqual(['git.example.com', 'src.corp.example']);
  });

  it('finds the host of URL and scp-like repositories, none for local paths', () => {
    expect(gitRepoHost('https://bot:tok@git.example.com:8443/org/r.git')).toBe('git.example.com');
    expect(gitRepoHost('ssh://git@[fd00:ec2::254]:22/r.git')).toBe('[fd00:ec2::254]');
    expect(gitRepoHost('git://169.254.169.254/r')).toBe('169.254.169.254');
    expect(gitRepoHost('git@metadata.google.internal:org/r.git')).toBe('metadata.google.internal');
    expect(gitRepoHost('/srv/git/r.git')).toBeUndefined();
    expect(gitRepoHost('file:///srv/git/r.git')).toBeUndefined();
    expect(gitRepoHost('./relative/r.git')).toBeUndefined();
  });

  it('refuses metadata and link-local hosts before git runs, and redacts credentials in errors', async () => {
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir: join(root, 'work-guard'),
      gitBinary: fakeGit('echo ran >&2; exit 3'),
      resolve: async () => [{ address: '169.254.169.254', family: 4 }],
    });
    for (const repo of [
      'http://169.254.169.254/r.git',
      'https://bot:s3cr3t@rebinds.example.com/r.git',
      'git@[::ffff:a9fe:a9fe]:r.git',
      'ssh://metadata.google.internal/r.git',
    ]) {
      const result = await checkouts.sync({ repo });
      expect(result.error).toMatch(/^refused .*(link-local|cloud metadata)/);
      expect(result.error).not.toContain('s3cr3t');
    }
    expect(checkouts.commands).toBe(0);
  });

  it('redacts credentials in git failures', async () => {
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir: join(root, 'work-redact'),
      gitBinary: fakeGit(
        'echo "fatal: unable to access https://bot:s3cr3t@git.example.com/r.git" >&2; exit 128',
      ),
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const result = await checkouts.sync({ repo: 'https://bot:s3cr3t@git.example.com/r.git' });
    expect(result.error).toContain('https://[REDACTED]@git.example.com/r.git');
    expect(result.error).not.toContain('s3cr3t');
  });

  it('runs git without a terminal prompt', async () => {
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir: join(root, 'work-env'),
      gitBinary: fakeGit('echo "prompt=$GIT_TERMINAL_PROMPT" >&2; exit 3'),
    });
    expect((await checkouts.sync({ repo: origin }, LOCAL)).error).toBe(
      `git clone of ${origin} (branch main) failed (exit 3): prompt=0`,
    );
  });
});

describe('git connects to the addresses the guard checked (no DNS rebinding window)', () => {
  // `.invalid` never resolves (RFC 6761), so a clone can only succeed when git uses the address
  // the guard's resolver returned instead of looking the name up itself.
  const lookups: string[] = [];
  const resolveToLoopback = async (host: string) => {
    lookups.push(host);
    return [{ address: '127.0.0.1', family: 4 }];
  };

  it('builds the pin for http(s), git:// and ssh, and none for IP literals and local paths', () => {
    const v4 = [{ address: '192.0.2.7', family: 4 }];
    const both = [...v4, { address: '2001:db8::7', family: 6 }];
    expect(gitAddressPin('https://bot:t@git.example.com/r.git', both).config).toEqual([
      'http.curloptResolve=git.example.com:443:192.0.2.7,[2001:db8::7]',
    ]);
    expect(gitAddressPin('http://git.example.com:8080/r.git', v4).config).toEqual([
      'http.curloptResolve=git.example.com:8080:192.0.2.7',
    ]);
    expect(gitAddressPin('git://git.example.com:9418/r.git', v4).config).toEqual([
      'url.git://192.0.2.7:9418/.insteadOf=git://git.example.com:9418/',
    ]);
    const pins = join(root, 'pins');
    const ssh = gitAddressPin('git@git.example.com:org/r.git', v4, {
      sshCommand: 'ssh -i /keys/id',
      sshConfigDir: pins,
    });
    expect(ssh.env['GIT_SSH_COMMAND']).toMatch(/^ssh -i \/keys\/id -F '[^']+\/pins\/[0-9a-f]{16}\.conf'$/);
    expect(ssh.env['GIT_SSH_COMMAND']).not.toContain('git.example.com');
    expect(ssh.sshConfig?.text).toBe(
      'Host git.example.com\n  HostName 192.0.2.7\n  HostKeyAlias git.example.com\n' +
        'Match all\n  Include ~/.ssh/config\n  Include /etc/ssh/ssh_config\n',
    );
    for (const repo of [
      'ssh://git@git.example.com/r.git',
      'git+ssh://git@git.example.com/r.git',
      'ssh+git://git@git.example.com/r.git',
    ])
      expect(gitAddressPin(repo, v4, { sshConfigDir: pins }).sshConfig?.text).toBe(ssh.sshConfig?.text);
    for (const repo of [
      'https://192.0.2.7/r.git',
      'ssh://[2001:db8::7]/r.git',
      '/srv/r.git',
      'file:///srv/r.git',
    ])
      expect(gitAddressPin(repo, v4)).toEqual({ config: [], env: {} });
  });

  it('clones over http from the checked address, never resolving the name again', async () => {
    git(origin, 'update-server-info');
    const served = resolvePath(root);
    const server = createServer((req, res) => {
      const file = resolvePath(
        served,
        `.${decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)}`,
      );
      if (!file.startsWith(served) || !existsSync(file) || statSync(file).isDirectory()) {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.end(readFileSync(file));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const port = (server.address() as AddressInfo).port;
      lookups.length = 0;
      const checkouts = new GitCheckouts({
        allowAddresses: LOOPBACK_CIDRS,
        workDir: join(root, 'work-pin-http'),
        resolve: resolveToLoopback,
      });
      const result = await checkouts.sync({ repo: `http://git.rebind.invalid:${port}/origin.git` });
      expect(result.error).toBe('');
      expect(result.commit).toBe(git(origin, 'rev-parse', 'main'));
      expect(lookups).toEqual(['git.rebind.invalid']);
    } finally {
      server.close();
    }
  });

  it('clones over git:// from the checked address', async () => {
    const port = await new Promise<number>((ok) => {
      const probe = createTcpServer().listen(0, '127.0.0.1', () => {
        const free = (probe.address() as AddressInfo).port;
        probe.close(() => ok(free));
      });
    });
    const daemon = spawn(
      'git',
      [
        'daemon',
        '--export-all',
        '--reuseaddr',
        `--base-path=${root}`,
        '--listen=127.0.0.1',
        `--port=${port}`,
        root,
      ],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 100; i++) {
        const up = await new Promise<boolean>((ok) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.end();
            ok(true);
          }).on('error', () => ok(false));
        });
        if (up) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      lookups.length = 0;
      const checkouts = new GitCheckouts({
        allowAddresses: LOOPBACK_CIDRS,
        workDir: join(root, 'work-pin-git'),
        resolve: resolveToLoopback,
      });
      const result = await checkouts.sync({ repo: `git://git.rebind.invalid:${port}/origin.git` });
      expect(result.error).toBe('');
      expect(result.commit).toBe(git(origin, 'rev-parse', 'main'));
      expect(lookups).toEqual(['git.rebind.invalid']);
    } finally {
      daemon.kill();
    }
  });

  it('gives ssh the checked address and keeps the host key checked under the name', async () => {
    // The operator's ssh command is `ssh -G`, which prints the configuration ssh would use.
    const fakeSsh = join(root, 'fake-ssh');
    writeFileSync(fakeSsh, '#!/bin/sh\nssh -G "$@" | grep -E "^(hostname|hostkeyalias) " >&2\nexit 3\n');
    chmodSync(fakeSsh, 0o755);
    const checkouts = new GitCheckouts({
      allowAddresses: LOOPBACK_CIDRS,
      workDir: join(root, 'work-pin-ssh'),
      env: { ...process.env, GIT_SSH_COMMAND: fakeSsh },
      resolve: async () => [{ address: '192.0.2.7', family: 4 }],
    });
    for (const repo of ['git@git.example.com:org/r.git', 'git+ssh://git@git.example.com/org/r.git']) {
      const result = await checkouts.sync({ repo });
      expect(result.error).toContain('hostname 192.0.2.7');
      expect(result.error).toContain('hostkeyalias git.example.com');
    }
  });
});

describe('no shell runs data from the repository string (docs/reference/runtime.md §14.3)', () => {
  /** The resolver of the review's reproduction: like glibc and musl, it answers only plain names. */
  const plainNamesOnly = async (host: string) => {
    if (!/^[a-z0-9.-]+$/.test(host)) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return [{ address: '127.0.0.1', family: 4 }];
  };

  it('refuses the review reproduction (tab and newline in an ssh host) and no shell creates PWNED', async () => {
    const workDir = join(root, 'work-pwned');
    const checkouts = new GitCheckouts({ workDir, resolve: plainNamesOnly });
    const errors: string[] = [];
    for (const repo of [
      'git@a\ntouch\tPWNED\n.attacker.example:org/repo.git',
      'ssh://git@a\ntouch\tPWNED\n.attacker.example/org/repo.git',
    ])
      errors.push((await checkouts.sync({ repo, branch: 'main', timeout: '10s' })).error);
    expect(existsSync(join(workDir, 'PWNED'))).toBe(false);
    for (const error of errors) expect(error).toMatch(/whitespace or a control character/);
    expect(checkouts.commands).toBe(0);
  });

  it.each([
    ['newline', 'a\nb.example'],
    ['tab', 'a\tb.example'],
    ['command substitution', 'a$(touch PWNED).example'],
    ['backtick', 'a`touch PWNED`.example'],
    ['semicolon', 'a;touch PWNED;.example'],
    ['percent-encoding', 'a%2eexample'],
    ['leading hyphen', '-oProxyCommand=x'],
    ['numeric IPv4 the URL parser rewrites', '0x7f.1'],
    ['non-canonical IPv6', '[::ffff:127.0.0.1]'],
  ])('refuses a host with %s, before any lookup or git process', async (_what, host) => {
    const lookups: string[] = [];
    const checkouts = new GitCheckouts({
      workDir: join(root, 'work-hosts'),
      resolve: async (name) => {
        lookups.push(name);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    for (const repo of [`git@${host}:org/r.git`, `ssh://git@${host}/org/r.git`, `https://${host}/r.git`]) {
      const result = await checkouts.sync({ repo });
      expect(result.error).toMatch(/^git repo (host )?"/);
      expect(() => gitAddressPin(repo, [{ address: '127.0.0.1', family: 4 }])).toThrow();
    }
    expect(lookups).toEqual([]);
    expect(checkouts.commands).toBe(0);
  });

  it('accepts plain names and canonical IPv6 literals', () => {
    for (const host of ['git.example.com', 'GIT.Example.com', '10.0.0.1', '[2001:db8::7]'])
      expect(() => checkGitHost(host)).not.toThrow();
  });

  it('refuses a local path or file:// repository unless the Katalog wrote it literally', async () => {
    const checkouts = new GitCheckouts({ workDir: join(root, 'work-local') });
    for (const repo of [origin, `file://${origin}`]) {
      expect((await checkouts.sync({ repo })).error).toMatch(/is a local path or file:\/\/ URL/);
      expect((await checkouts.sync({ repo }, LOCAL)).error).toBe('');
    }
  });

  it('lets git use the file transport only for a local repository', async () => {
    const script = join(root, 'fake-git-protocols');
    writeFileSync(script, '#!/bin/sh\necho "allow=$GIT_ALLOW_PROTOCOL" >&2\nexit 3\n');
    chmodSync(script, 0o755);
    const checkouts = new GitCheckouts({
      workDir: join(root, 'work-protocols'),
      gitBinary: script,
      resolve: async () => [{ address: '192.0.2.7', family: 4 }],
    });
    expect((await checkouts.sync({ repo: 'https://git.example.com/r.git' })).error).toMatch(
      /allow=git:http:https:ssh$/,
    );
    expect((await checkouts.sync({ repo: origin }, LOCAL)).error).toMatch(/allow=file$/);
  });
});

describe('GitPoller', () => {
  it('fetches due checkouts on its ticks and reports the ones with new commits', async () => {
    const clock = new ManualClock(0);
    const checkouts = newCheckouts(clock, join(root, 'work-poll'));
    const reports: (readonly GitRefresh[])[] = [];
    const poller = new GitPoller({ checkouts, clock, tickMs: 15_000, onNewCommits: (r) => reports.push(r) });
    const first = await checkouts.sync({ repo: origin, path: 'services/web', pollInterval: '1m' }, LOCAL);
    await checkouts.sync({ repo: origin, branch: 'feature', pollInterval: '0' }, LOCAL);

    // Not due yet: nothing fetched.
    clock.advance(30_000);
    expect((await poller.tick()).length).toBe(0);

    // Due, but nothing new.
    clock.advance(30_000);
    const quiet = await poller.tick();
    expect(quiet.map((r) => [r.branch, r.changed])).toEqual([['main', false]]);
    expect(reports).toEqual([]);

    const web = commit('services/web/index.html', '<h1>polled</h1>\n');
    clock.advance(60_000);
    await poller.tick();
    expect(reports).toHaveLength(1);
    expect(reports[0]?.[0]).toMatchObject({
      repo: origin,
      branch: 'main',
      head: web,
      changed: true,
      error: '',
    });
    // The pipeline then compares each CR's recorded commit with the last commit touching its path.
    expect(await checkouts.lastCommit(origin, 'main', 'services/web')).toBe(web);
    expect(first.commit).not.toBe(web);
  });

  it('starts and stops its timer (leader only)', () => {
    const clock = new ManualClock(0);
    const poller = new GitPoller({
      checkouts: { refresh: async () => [] },
      clock,
      onNewCommits: () => undefined,
    });
    poller.start();
    expect(poller.running).toBe(true);
    expect(clock.pendingTimers).toBe(1);
    poller.stop();
    expect(poller.running).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });
});
