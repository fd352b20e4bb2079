/**
 * The git hook (docs/reference/katalog.md §16.1, docs/reference/runtime.md §14.3): one checkout per repository and branch under a
 * work directory, shared by every CR that uses it and guarded by a lock; single-branch clone, then
 * fetch and hard reset to the remote branch; a fetch is skipped when the checkout was fetched less
 * than 10 s ago. The git CLI runs without a shell, with `GIT_TERMINAL_PROMPT=0`, a timeout and the
 * reconcile's signal. Credentials come from the operator's git configuration only.
 *
 * The address guard of external calls covers the repository host: before every clone and fetch,
 * the host of an `https://`, `http://`, `ssh://`, `git://` or scp-like (`user@host:path`) URL is
 * resolved and refused when any address is link-local or a cloud metadata endpoint. The clone or
 * fetch is then bound to the addresses that were checked (`gitAddressPin`), so git never looks the
 * name up again and a DNS answer that changes after the check (rebinding) is not followed:
 * `http.curloptResolve` for http(s), a `url.<address>.insteadOf` rewrite for git://, and for ssh an
 * ssh config file the operator writes under the work directory (`Host`/`HostName`/`HostKeyAlias`,
 * passed as `-F <file>`; the host key is still checked under the name). No value of the repository
 * ever reaches a shell: the repository string is refused when it holds a control character or
 * whitespace, and its host when it is not `[A-Za-z0-9.-]+` or a bracketed IPv6 literal exactly as the
 * URL parser reads it (docs/reference/runtime.md §14.3). Redirects are switched off
 * (`http.followRedirects=false`) and only the git, http, https and ssh transports are allowed
 * (`GIT_ALLOW_PROTOCOL`, no `ext::`), plus `file` for a local repository, which only a repository
 * written literally in the Katalog may name. Errors have credentials in URLs redacted.
 */
import { createHash } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve as resolvePath } from 'node:path';
import { parseDuration, repoHostAllowed } from '@orkestra/types';
import { systemClock } from '../clock.js';
import type { Clock, TimerHandle } from '../clock.js';
import { AddressGuard } from './address-guard.js';
import type { ResolveHost } from './address-guard.js';
import { directoryBytes } from './dir-bytes.js';
import { describeError } from './http-request.js';
import { runProcess } from './run-process.js';

/** GitDeclaration is the rendered `operatorBox.git` block (`GitHook` with rendered values fits it). */
export interface GitDeclaration {
  /** Clone URL. */
  readonly repo: string;
  /** Default `main`. */
  readonly branch?: string;
  /** Subdirectory that counts for change detection; empty means the whole repository. Default `""`. */
  readonly path?: string;
  /** Per git operation (a duration). Default `2m`. */
  readonly timeout?: string;
  /** How often the poller fetches this checkout (a duration); `0` never. Default `5m`. */
  readonly pollInterval?: string;
}

/** GitResult is `git` in the template context (docs/reference/katalog.md §16.1). */
export interface GitResult {
  readonly called: boolean;
  /** The full hash of the last commit touching `path` (of HEAD when `path` is empty); the value to record on the CR. */
  readonly commit: string;
  /** The first 7 characters of `commit`. */
  readonly shortCommit: string;
  readonly branch: string;
  /** The local checkout directory. */
  readonly dir: string;
  /** `commit` differs from the recorded one (true when nothing is recorded). */
  readonly changed: boolean;
  /** `""` on success. */
  readonly error: string;
}

/** GitSyncContext carries the CR's recorded commit and the reconcile's signal. */
export interface GitSyncContext {
  /** The CR annotation `orkestra.konductor.io/last-commit`, if any. */
  readonly recordedCommit?: string;
  readonly signal?: AbortSignal;
  /**
   * A local path or `file://` repository may be checked out: true only when the Katalog wrote the
   * repository literally (a templated repository must name a remote). Default false.
   */
  readonly allowLocal?: boolean;
}

/** GitCheckoutsOptions configures GitCheckouts. */
export interface GitCheckoutsOptions {
  /** Where checkouts live (`--work-dir`). */
  readonly workDir: string;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
  /** The operator's environment (git config, HOME, PATH, SSH agent); `GIT_TERMINAL_PROMPT=0` is forced. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The git binary. Default `git`. */
  readonly gitBinary?: string;
  /** A fetch is skipped when the checkout was fetched more recently. Default 10 000 ms. */
  readonly fetchSkipMs?: number;
  /** Between SIGTERM and SIGKILL on timeout or abort. Default 5000 ms. */
  readonly killGraceMs?: number;
  /** Allow repository hosts with link-local and cloud metadata addresses (`--allow-link-local`). Default false. */
  readonly allowLinkLocal?: boolean;
  /** CIDRs let through the address guard (`--allow-private-addresses`). Default none. */
  readonly allowAddresses?: readonly string[];
  /** Resolves repository hosts for the address guard; tests inject a fake. Default `dns.lookup`. */
  readonly resolve?: ResolveHost;
  /**
   * The most bytes the work directory may hold (`--max-work-dir-bytes`); 0 means no cap. A clone or
   * fetch that would pass it is stopped, its checkout removed, and the sync fails with a message
   * naming the cap (docs/reference/runtime.md §14.3). Default 1 GiB.
   */
  readonly maxWorkDirBytes?: number;
  /** How often a running clone or fetch is measured against `maxWorkDirBytes`. Default 500 ms. */
  readonly sizeCheckMs?: number;
  /**
   * The only repository hosts a clone or fetch may reach (the Katalog's `spec.allowedRepoHosts`:
   * a name, or `*.name` for its subdomains); a rendered `repo` elsewhere fails before any lookup.
   * Default: any host.
   */
  readonly allowedHosts?: readonly string[];
}

/** The work directory's default cap: 1 GiB (RUNTIME_TUNING_DEFAULTS; the chart's emptyDir sizeLimit is above it). */
const DEFAULT_MAX_WORK_DIR_BYTES = 1024 * 1024 * 1024;

/** GitRefresh is what the poller found for one checkout. */
export interface GitRefresh {
  readonly repo: string;
  readonly branch: string;
  readonly dir: string;
  /** HEAD after the fetch (`""` on error). */
  readonly head: string;
  /** HEAD moved since the previous refresh (or since the checkout was first used). */
  readonly changed: boolean;
  readonly error: string;
}

interface Checkout {
  readonly repo: string;
  readonly branch: string;
  readonly dir: string;
  timeoutMs: number;
  /** Smallest non-zero poll interval declared for this checkout; 0 = never polled. */
  pollMs: number;
  lastFetchAt: number | undefined;
  reportedHead: string | undefined;
}

class GitError extends Error {
  override readonly name: string = 'GitError';
}

/** WorkDirFullError: a clone or fetch would make the work directory pass its byte cap. */
class WorkDirFullError extends GitError {
  override readonly name: string = 'WorkDirFullError';
}

/** shortCommitOf is the first 7 characters of a commit hash. */
function shortCommitOf(commit: string): string {
  return commit.slice(0, 7);
}

/**
 * GitCheckouts manages the checkouts of one process. `sync` is the hook: it brings the checkout up
 * to date and returns the result for the template context; it never throws.
 *
 * @example
 * const checkouts = new GitCheckouts({ workDir: '/var/lib/orkestra/git' });
 * const git = await checkouts.sync(renderedGit, { recordedCommit: cr.metadata.annotations?.[OrkestraAnnotation.LastCommit], signal });
 * if (git.error !== '' && !decl.continueOnError) throw new OrkestraError(git.error, { code: 'GitFailed' });
 */
export class GitCheckouts {
  readonly #workDir: string;
  readonly #clock: Clock;
  readonly #env: Record<string, string | undefined>;
  readonly #git: string;
  readonly #fetchSkipMs: number;
  readonly #killGraceMs: number;
  readonly #checkouts = new Map<string, Checkout>();
  readonly #locks = new Map<string, Promise<void>>();
  readonly #guard: AddressGuard;
  readonly #maxBytes: number;
  readonly #sizeCheckMs: number;
  readonly #allowedHosts: readonly string[] | undefined;
  #commands = 0;

  constructor(options: GitCheckoutsOptions) {
    this.#workDir = options.workDir;
    this.#clock = options.clock ?? systemClock;
    this.#env = {
      ...(options.env ?? process.env),
      GIT_TERMINAL_PROMPT: '0',
      LC_ALL: 'C',
      GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS,
    };
    this.#guard = new AddressGuard({
      allowLinkLocal: options.allowLinkLocal ?? false,
      ...(options.allowAddresses == null ? {} : { allowAddresses: options.allowAddresses }),
      ...(options.resolve == null ? {} : { resolve: options.resolve }),
    });
    this.#git = options.gitBinary ?? 'git';
    this.#fetchSkipMs = options.fetchSkipMs ?? 10_000;
    this.#killGraceMs = options.killGraceMs ?? 5000;
    this.#maxBytes = options.maxWorkDirBytes ?? DEFAULT_MAX_WORK_DIR_BYTES;
    this.#sizeCheckMs = options.sizeCheckMs ?? 500;
    this.#allowedHosts = options.allowedHosts;
  }

  /** commands is the number of git processes started, cumulative. */
  get commands(): number {
    return this.#commands;
  }

  /** checkoutDir is the directory of the checkout of `repo` at `branch`. */
  checkoutDir(repo: string, branch: string): string {
    const hash = createHash('sha256').update(`${repo}\n${branch}`).digest('hex').slice(0, 16);
    const base =
      repo
        .replace(/\/+$/, '')
        .replace(/\.git$/, '')
        .split(/[/:]/)
        .pop() ?? 'repo';
    const slug = base.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'repo';
    return join(this.#workDir, `${slug}-${hash}`);
  }

  /** sync clones or updates the checkout (under its lock) and computes the result. Never throws. */
  async sync(declaration: GitDeclaration, context: GitSyncContext = {}): Promise<GitResult> {
    const repo = declaration.repo;
    const branch = declaration.branch == null || declaration.branch === '' ? 'main' : declaration.branch;
    const path = declaration.path ?? '';
    let dir = '';
    try {
      validate(repo, branch, path);
      const host = gitRemote(repo)?.host;
      if (host != null && this.#allowedHosts != null && !repoHostAllowed(host, this.#allowedHosts))
        throw new GitError(
          `git repo host ${JSON.stringify(host)} is not in the Katalog's spec.allowedRepoHosts (${this.#allowedHosts.join(', ')})`,
        );
      if (gitRemote(repo) == null && context.allowLocal !== true) {
        throw new GitError(
          `git repo ${JSON.stringify(repo)} is a local path or file:// URL; only a repository written literally in the Katalog may be local`,
        );
      }
      dir = this.checkoutDir(repo, branch);
      const timeoutMs = parseDuration(declaration.timeout ?? '2m');
      const pollMs = parseDuration(declaration.pollInterval ?? '5m');
      const checkout = this.#register(repo, branch, dir, timeoutMs, pollMs);
      const commit = await this.#withLock(dir, async () => {
        await this.#update(checkout, false, context.signal);
        return this.#lastCommit(checkout, path, context.signal);
      });
      const recorded = context.recordedCommit ?? '';
      return {
        called: true,
        commit,
        shortCommit: shortCommitOf(commit),
        branch,
        dir,
        changed: recorded === '' || recorded !== commit,
        error: '',
      };
    } catch (error) {
      return {
        called: true,
        commit: '',
        shortCommit: '',
        branch,
        dir,
        changed: false,
        error: describeError(error),
      };
    }
  }

  /**
   * lastCommit returns the last commit touching `path` in the local checkout of `repo` at `branch`
   * without fetching, or `""` when there is no checkout or no such commit. The pipeline uses it
   * after a poll to find the CRs whose recorded commit differs.
   */
  async lastCommit(repo: string, branch: string, path = ''): Promise<string> {
    const checkout = this.#checkouts.get(this.checkoutDir(repo, branch));
    if (checkout == null || !existsSync(join(checkout.dir, '.git'))) return '';
    try {
      return await this.#withLock(checkout.dir, () => this.#lastCommit(checkout, path, undefined));
    } catch {
      return '';
    }
  }

  /**
   * refresh fetches the checkouts used so far (only those whose poll interval has elapsed since
   * their last fetch when `dueOnly`) and reports, for each, whether HEAD moved since the previous
   * refresh or since the checkout was first used. Never throws.
   */
  async refresh(
    options: { readonly dueOnly?: boolean; readonly signal?: AbortSignal } = {},
  ): Promise<GitRefresh[]> {
    const now = this.#clock.now();
    const due = [...this.#checkouts.values()].filter(
      (c) =>
        options.dueOnly !== true ||
        (c.pollMs > 0 && (c.lastFetchAt == null || now - c.lastFetchAt >= c.pollMs)),
    );
    const out: GitRefresh[] = [];
    for (const checkout of due) {
      const { repo, branch, dir } = checkout;
      try {
        const head = await this.#withLock(dir, async () => {
          await this.#update(checkout, options.dueOnly !== true, options.signal);
          return this.#head(checkout, options.signal);
        });
        const changed = checkout.reportedHead != null && checkout.reportedHead !== head;
        checkout.reportedHead = head;
        out.push({ repo, branch, dir, head, changed, error: '' });
      } catch (error) {
        out.push({ repo, branch, dir, head: '', changed: false, error: describeError(error) });
      }
    }
    return out;
  }

  #register(repo: string, branch: string, dir: string, timeoutMs: number, pollMs: number): Checkout {
    let checkout = this.#checkouts.get(dir);
    if (checkout == null) {
      checkout = { repo, branch, dir, timeoutMs, pollMs, lastFetchAt: undefined, reportedHead: undefined };
      this.#checkouts.set(dir, checkout);
    }
    checkout.timeoutMs = Math.max(checkout.timeoutMs, timeoutMs);
    if (pollMs > 0) checkout.pollMs = checkout.pollMs === 0 ? pollMs : Math.min(checkout.pollMs, pollMs);
    return checkout;
  }

  async #update(checkout: Checkout, force: boolean, signal: AbortSignal | undefined): Promise<void> {
    const { dir, repo, branch } = checkout;
    const remote = gitRemote(repo);
    const checked =
      remote == null ? undefined : await this.#guard.addresses(new URL(`http://${remote.host}/`));
    const pin =
      checked == null
        ? LOCAL_PIN
        : gitAddressPin(repo, checked, {
            sshCommand: this.#env['GIT_SSH_COMMAND'],
            sshConfigDir: join(resolvePath(this.#workDir), '.ssh-pins'),
          });
    if (pin.sshConfig != null) await writePrivateFile(pin.sshConfig.path, pin.sshConfig.text);
    if (!existsSync(join(dir, '.git'))) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(this.#workDir, { recursive: true });
      try {
        await this.#capped(checkout, 'clone', signal, async (capSignal) => {
          await this.#run(
            ['clone', '--single-branch', '--branch', branch, '--no-tags', '--', repo, dir],
            'clone',
            checkout,
            capSignal,
            this.#workDir,
            pin,
          );
        });
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
      checkout.lastFetchAt = this.#clock.now();
      checkout.reportedHead ??= await this.#head(checkout, signal);
      return;
    }
    const now = this.#clock.now();
    if (!force && checkout.lastFetchAt != null && now - checkout.lastFetchAt < this.#fetchSkipMs) return;
    const remoteRef = `refs/remotes/origin/${branch}`;
    try {
      await this.#capped(checkout, 'fetch', signal, async (capSignal) => {
        await this.#run(
          ['fetch', '--no-tags', '--prune', 'origin', `+refs/heads/${branch}:${remoteRef}`],
          'fetch',
          checkout,
          capSignal,
          checkout.dir,
          pin,
        );
        await this.#run(['reset', '--hard', '--quiet', remoteRef], 'reset', checkout, capSignal);
      });
    } catch (error) {
      // An over-cap checkout is removed to give the space back; the next sync clones it again.
      if (error instanceof WorkDirFullError) await rm(dir, { recursive: true, force: true });
      throw error;
    }
    checkout.lastFetchAt = this.#clock.now();
    checkout.reportedHead ??= await this.#head(checkout, signal);
  }

  /**
   * capped runs `work` (a clone, or a fetch and reset) while measuring the checkout every
   * `sizeCheckMs`, and once more at the end: when the work directory (the other checkouts, counted
   * once before, plus this one) passes the cap, the git process is aborted and a WorkDirFullError
   * names the cap.
   */
  async #capped(
    checkout: Checkout,
    what: string,
    signal: AbortSignal | undefined,
    work: (signal: AbortSignal | undefined) => Promise<void>,
  ): Promise<void> {
    const cap = this.#maxBytes;
    if (cap <= 0) return work(signal);
    const others = await directoryBytes(this.#workDir, cap, new Set([checkout.dir]));
    const full = (bytes: number): WorkDirFullError =>
      new WorkDirFullError(
        `git ${what} of ${checkout.repo} (branch ${checkout.branch}) stopped: the work directory ${this.#workDir} would hold more than ${cap} bytes (--max-work-dir-bytes); at least ${bytes} bytes`,
      );
    const over = async (): Promise<number | undefined> => {
      const bytes = others + (await directoryBytes(checkout.dir, cap - others));
      return bytes > cap ? bytes : undefined;
    };
    const stop = new AbortController();
    let exceeded: number | undefined;
    let timer: TimerHandle | undefined;
    const tick = (): void => {
      timer = this.#clock.setTimeout(() => {
        void over().then((bytes) => {
          if (bytes != null) {
            exceeded = bytes;
            stop.abort();
          } else if (!stop.signal.aborted) tick();
        });
      }, this.#sizeCheckMs);
    };
    tick();
    try {
      await work(signal == null ? stop.signal : AbortSignal.any([signal, stop.signal]));
    } catch (error) {
      if (exceeded != null) throw full(exceeded);
      throw error;
    } finally {
      stop.abort();
      if (timer != null) this.#clock.clearTimeout(timer);
    }
    const bytes = exceeded ?? (await over());
    if (bytes != null) throw full(bytes);
  }

  async #head(checkout: Checkout, signal: AbortSignal | undefined): Promise<string> {
    return (await this.#run(['rev-parse', 'HEAD'], 'rev-parse', checkout, signal)).trim();
  }

  async #lastCommit(checkout: Checkout, path: string, signal: AbortSignal | undefined): Promise<string> {
    const args = ['log', '-1', '--format=%H', 'HEAD', ...(path === '' ? [] : ['--', path])];
    const commit = (await this.#run(args, 'log', checkout, signal)).trim();
    if (commit === '')
      throw new GitError(`no commit on branch ${checkout.branch} of ${checkout.repo} touches path "${path}"`);
    return commit;
  }

  async #run(
    args: readonly string[],
    what: string,
    checkout: Checkout,
    signal: AbortSignal | undefined,
    cwd: string = checkout.dir,
    pin: GitAddressPin = NO_PIN,
  ): Promise<string> {
    this.#commands++;
    const config = ['http.followRedirects=false', ...pin.config].flatMap((c) => ['-c', c]);
    const result = await runProcess(this.#git, [...config, ...args], {
      cwd,
      env: { ...this.#env, ...pin.env },
      timeoutMs: checkout.timeoutMs,
      killGraceMs: this.#killGraceMs,
      clock: this.#clock,
      ...(signal == null ? {} : { signal }),
    });
    const where = `${checkout.repo} (branch ${checkout.branch})`;
    if (result.spawnError != null) {
      throw new GitError(
        `git ${what} of ${where} could not start ${this.#git}: ${describeError(result.spawnError)}`,
      );
    }
    if (result.timedOut)
      throw new GitError(`git ${what} of ${where} timed out after ${checkout.timeoutMs} ms`);
    if (result.aborted) throw new GitError(`git ${what} of ${where} aborted`);
    if (result.code !== 0) {
      throw new GitError(
        `git ${what} of ${where} failed (exit ${String(result.code)}): ${result.tail.trim()}`,
      );
    }
    return result.stdout;
  }

  async #withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(dir) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const current = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => current);
    this.#locks.set(dir, chained);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.#locks.get(dir) === chained) this.#locks.delete(dir);
    }
  }
}

/** The transports git may use for a remote repository; `file` is added only for a local one. */
const REMOTE_PROTOCOLS = 'git:http:https:ssh';

/**
 * gitRepoHost returns the host (a name or a bracketed IPv6 literal) of a repository URL, or
 * undefined for a local path or a `file://` URL: `scheme://[user@]host[:port]/…`, or the scp-like
 * `[user@]host:path` (a colon before any slash). It does not check the host; `sync` refuses a
 * host `checkGitHost` refuses.
 *
 * @example
 * gitRepoHost('git@git.example.com:org/repo.git'); // 'git.example.com'
 */
export function gitRepoHost(repo: string): string | undefined {
  return gitRemote(repo)?.host;
}

/**
 * gitRemote splits a repository URL: its scheme (undefined for scp-like), its authority as written
 * (`user@host:port`) and its host; undefined for a local path or a `file://` URL.
 */
function gitRemote(repo: string): { scheme?: string; authority: string; host: string } | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(repo);
  if (scheme != null) {
    const written = scheme[1]?.toLowerCase() ?? '';
    if (written === 'file') return undefined;
    // git reads git+ssh:// and ssh+git:// as ssh://, so they are pinned as ssh.
    const name = written === 'git+ssh' || written === 'ssh+git' ? 'ssh' : written;
    const authority = repo.slice(scheme[0].length).split(/[/?#]/, 1)[0] ?? '';
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    const host = hostPort.startsWith('[')
      ? hostPort.slice(0, hostPort.indexOf(']') + 1)
      : hostPort.replace(/:\d*$/, '');
    return host === '' ? undefined : { scheme: name, authority, host };
  }
  const scp = /^(?:[^@/:]+@)?(\[[^\]]+\]|[^/:]+):/.exec(repo);
  return scp?.[1] != null && !/^[a-z]:$/i.test(`${scp[1]}:`)
    ? { authority: scp[0].slice(0, -1), host: scp[1] }
    : undefined;
}

/**
 * checkGitHost throws unless `host` is a plain name (`[A-Za-z0-9.-]+`, not starting with `-`) or a
 * bracketed IPv6 literal, and the URL parser reads it unchanged (up to case): no character it would
 * drop (tab, newline), decode or rewrite (`0x7f.1`, `2130706433`, a non-canonical IPv6 literal).
 * The host then is safe in an ssh config file, a `-c` value and a DNS query.
 */
export function checkGitHost(host: string): void {
  const refuse = (why: string): never => {
    throw new GitError(`git repo host ${JSON.stringify(host)} ${why}`);
  };
  const bracketed = /^\[([0-9A-Fa-f:.]+)\]$/.exec(host);
  if (bracketed == null && !/^[A-Za-z0-9.-]+$/.test(host))
    refuse('may hold only letters, digits, dots and hyphens, or be a bracketed IPv6 address');
  if (bracketed != null && isIP(bracketed[1] ?? '') !== 6) refuse('is not an IPv6 address');
  if (host.startsWith('-')) refuse('must not start with "-"');
  let parsed = '';
  try {
    parsed = new URL(`http://${host}/`).hostname;
  } catch {
    refuse('is not a valid host name');
  }
  if (parsed !== host.toLowerCase())
    refuse(`is read as ${JSON.stringify(parsed)} by the URL parser; write that`);
}

/** GitAddressPin binds one git command to resolved addresses: `-c` settings and environment. */
export interface GitAddressPin {
  readonly config: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** An ssh config file to write (mode 0600) before git runs; `env.GIT_SSH_COMMAND` passes it with `-F`. */
  readonly sshConfig?: { readonly path: string; readonly text: string };
}

/** GitAddressPinOptions configures gitAddressPin for ssh. */
export interface GitAddressPinOptions {
  /** The operator's own `GIT_SSH_COMMAND` (never data from a Katalog or CR). Default `ssh`. */
  readonly sshCommand?: string | undefined;
  /** The directory, chosen by the operator, of the pin's ssh config file. Default `.ssh-pins` under the current directory. */
  readonly sshConfigDir?: string;
}

const NO_PIN: GitAddressPin = { config: [], env: {} };
const LOCAL_PIN: GitAddressPin = { config: [], env: { GIT_ALLOW_PROTOCOL: 'file' } };

/** shellQuote quotes one word for `sh` (single quotes; `'` as `'\''`). */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** writePrivateFile writes `text` to `path` (mode 0600) through a rename, so a concurrent reader sees a whole file. */
async function writePrivateFile(path: string, text: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, path);
}

/**
 * gitAddressPin returns the git settings that make a clone or fetch of `repo` connect to
 * `addresses` (the ones the address guard checked) instead of resolving the host again: for
 * http(s) `http.curloptResolve=<host>:<port>:<addresses>`; for git:// a `url.<…>.insteadOf`
 * rewrite to the first address; for ssh and scp-like URLs an ssh config file (`Host <host>`,
 * `HostName <address>`, `HostKeyAlias <host>`, then the user's and the system's configuration) and
 * `GIT_SSH_COMMAND` = `sshCommand -F '<file>'`: the file's path is the operator's, and the host and
 * address are never part of the shell command. An IP literal host, a local path or no address
 * needs no pin. Throws when the host fails `checkGitHost`.
 *
 * @example
 * gitAddressPin('https://git.example.com/r.git', [{ address: '192.0.2.7', family: 4 }]).config;
 * // ['http.curloptResolve=git.example.com:443:192.0.2.7']
 */
export function gitAddressPin(
  repo: string,
  addresses: readonly LookupAddress[],
  options: GitAddressPinOptions = {},
): GitAddressPin {
  const remote = gitRemote(repo);
  if (remote != null) checkGitHost(remote.host);
  const first = addresses[0];
  if (remote == null || first == null || remote.host.startsWith('[') || isIP(remote.host) !== 0)
    return NO_PIN;
  if (isIP(first.address) === 0)
    throw new GitError(`resolved address ${JSON.stringify(first.address)} is not an IP address`);
  const { scheme, authority, host } = remote;
  const bracketed = (a: LookupAddress): string => (a.family === 6 ? `[${a.address}]` : a.address);
  const at = authority.lastIndexOf('@') + 1;
  if (scheme === 'http' || scheme === 'https') {
    const port = /:(\d+)$/.exec(authority.slice(at))?.[1] ?? (scheme === 'https' ? '443' : '80');
    return { config: [`http.curloptResolve=${host}:${port}:${addresses.map(bracketed).join(',')}`], env: {} };
  }
  if (scheme === 'git') {
    const pinned = authority.slice(0, at) + authority.slice(at).replace(host, bracketed(first));
    return { config: [`url.git://${pinned}/.insteadOf=git://${authority}/`], env: {} };
  }
  if (scheme === 'ssh' || scheme == null) {
    const sshCommand = options.sshCommand;
    const base = sshCommand == null || sshCommand.trim() === '' ? 'ssh' : sshCommand;
    const name = createHash('sha256').update(`${host}\n${first.address}`).digest('hex').slice(0, 16);
    const path = join(options.sshConfigDir ?? '.ssh-pins', `${name}.conf`);
    const text = [
      `Host ${host}`,
      `  HostName ${first.address}`,
      `  HostKeyAlias ${host}`,
      'Match all',
      '  Include ~/.ssh/config',
      '  Include /etc/ssh/ssh_config',
      '',
    ].join('\n');
    return {
      config: [],
      env: { GIT_SSH_COMMAND: `${base} -F ${shellQuote(path)}` },
      sshConfig: { path, text },
    };
  }
  return NO_PIN;
}

function validate(repo: string, branch: string, path: string): void {
  if (repo.trim() === '') throw new GitError('git repo is empty');
  if (repo.startsWith('-')) throw new GitError(`git repo ${JSON.stringify(repo)} must not start with "-"`);
  // \s covers the Unicode spaces, \p{Cc} the C0/C1 controls (tab, newline, DEL included).
  if (/[\s\p{Cc}]/u.test(repo))
    throw new GitError(`git repo ${JSON.stringify(repo)} must not hold whitespace or a control character`);
  const remote = gitRemote(repo);
  if (remote != null) checkGitHost(remote.host);
  if (branch.startsWith('-') || branch.includes('..') || !/^[^\s~^:?*[\\]+$/.test(branch)) {
    throw new GitError(`git branch ${JSON.stringify(branch)} is not a valid branch name`);
  }
  if (path.startsWith('-')) throw new GitError(`git path ${JSON.stringify(path)} must not start with "-"`);
}

/** GitPollerOptions configures a GitPoller. */
export interface GitPollerOptions {
  readonly checkouts: Pick<GitCheckouts, 'refresh'>;
  /** How often to look for due checkouts; each is fetched at its own `pollInterval`. Default 15 000 ms. */
  readonly tickMs?: number;
  /** Called after each tick with the checkouts whose HEAD moved (not called when none did). */
  readonly onNewCommits: (refreshes: readonly GitRefresh[]) => void;
  /** Called with each failed refresh. Default: none. */
  readonly onError?: (refresh: GitRefresh) => void;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
}

/**
 * GitPoller fetches every checkout at its `pollInterval` and reports the ones with new commits, so
 * the pipeline can enqueue the CRs whose recorded commit differs. Start it on the leader only, stop
 * it when leadership is lost. Ticks never overlap.
 */
export class GitPoller {
  readonly #checkouts: Pick<GitCheckouts, 'refresh'>;
  readonly #tickMs: number;
  readonly #onNewCommits: (refreshes: readonly GitRefresh[]) => void;
  readonly #onError: ((refresh: GitRefresh) => void) | undefined;
  readonly #clock: Clock;
  #timer: TimerHandle | undefined;
  #controller: AbortController | undefined;
  #running = false;
  #ticks = 0;

  constructor(options: GitPollerOptions) {
    this.#checkouts = options.checkouts;
    this.#tickMs = options.tickMs ?? 15_000;
    this.#onNewCommits = options.onNewCommits;
    this.#onError = options.onError;
    this.#clock = options.clock ?? systemClock;
  }

  /** running tells whether the poller is started. */
  get running(): boolean {
    return this.#running;
  }

  /** ticks is the number of completed ticks. */
  get ticks(): number {
    return this.#ticks;
  }

  /** start schedules the first tick after `tickMs`; calling it again does nothing. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#controller = new AbortController();
    this.#schedule();
  }

  /** stop cancels the next tick and aborts a running fetch. */
  stop(): void {
    this.#running = false;
    if (this.#timer != null) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#controller?.abort(new Error('git poller stopped'));
    this.#controller = undefined;
  }

  /** tick runs one poll now (also used by tests). */
  async tick(): Promise<readonly GitRefresh[]> {
    const signal = this.#controller?.signal;
    const refreshes = await this.#checkouts.refresh({ dueOnly: true, ...(signal == null ? {} : { signal }) });
    this.#ticks++;
    for (const r of refreshes) if (r.error !== '') this.#onError?.(r);
    const moved = refreshes.filter((r) => r.changed);
    if (moved.length > 0) this.#onNewCommits(moved);
    return refreshes;
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      void this.tick()
        .catch(() => undefined)
        .finally(() => {
          if (this.#running) this.#schedule();
        });
    }, this.#tickMs);
  }
}
