/**
 * The docker hook (docs/reference/katalog.md §16.2, docs/reference/runtime.md §14.5): a build manager that runs image builds
 * outside reconciles — at most `maxConcurrentBuilds` at a time, one per image reference — with
 * `docker`, `podman` or `buildah` spawned without a shell. A reconcile registers a build and gets
 * `pending`; when the build ends the waiting CRs are reported so the pipeline can enqueue them, and
 * their next reconcile gets the result.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseDuration } from '@orkestra/types';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { createDeadline } from './deadline.js';
import { TimeoutError, describeError } from './http-request.js';
import { runProcess } from './run-process.js';
import type { ProcessResult } from './run-process.js';

/** Builder is the program that builds images. */
export const Builder = {
  Docker: 'docker',
  Podman: 'podman',
  Buildah: 'buildah',
} as const;
export type Builder = (typeof Builder)[keyof typeof Builder];

/**
 * DockerBuildDeclaration is the rendered `operatorBox.docker` block. `workingDirectory` is required
 * here: the pipeline defaults it to the git checkout plus `git.path`.
 */
export interface DockerBuildDeclaration {
  /** The tag to build. */
  readonly image: string;
  /** The build context. */
  readonly workingDirectory: string;
  /** Relative to the context. Default `Dockerfile`. */
  readonly dockerfile?: string;
  /**
   * The directory the context and the Dockerfile must stay inside, symlinks followed (the git
   * checkout). Default: the manager's `workDir`; without either the build is refused.
   */
  readonly root?: string;
  readonly buildArgs?: Readonly<Record<string, string>>;
  /** Default false. */
  readonly push?: boolean;
  /** Default: the `OCI_BUILDER` environment variable, else `docker`. */
  readonly builder?: Builder;
  /** Build plus push (a duration). Default `30m`. */
  readonly timeout?: string;
}

/** DockerResult is `docker` in the template context (docs/reference/katalog.md §16.2). */
export interface DockerResult {
  /** A build ran for this request. */
  readonly called: boolean;
  readonly image: string;
  /** `sha256:…` after a push, else `""`. */
  readonly digest: string;
  /** The image is recorded as built, now or earlier. */
  readonly buildSucceeded: boolean;
  /** `""` on success. */
  readonly error: string;
}

/** DockerRequestOutcome is `pending` while a build runs, else the result. */
export type DockerRequestOutcome =
  | { readonly pending: true; readonly image: string }
  | { readonly pending: false; readonly result: DockerResult };

/** DockerRequestContext identifies the waiting CR and what is recorded on it. */
export interface DockerRequestContext {
  /** An opaque key for the waiting CR (e.g. `<entry>:<namespace>/<name>`), reported when the build ends. */
  readonly waiter: string;
  /** The CR annotation `orkestra.konductor.io/last-image`, if any. */
  readonly lastImage?: string;
}

/** DockerBuildFinished is reported when a build ends. */
export interface DockerBuildFinished {
  readonly image: string;
  readonly result: DockerResult;
  /** The CRs waiting for this build: enqueue them. */
  readonly waiters: readonly string[];
}

/** DockerBuildManagerOptions configures a DockerBuildManager; every field has a default. */
export interface DockerBuildManagerOptions {
  /** `--max-concurrent-builds`. Default 1. */
  readonly maxConcurrentBuilds?: number;
  /** The operator's environment (PATH, DOCKER_HOST, `OCI_BUILDER`, registry credentials). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called when a build ends (exceptions are ignored). */
  readonly onBuildFinished?: (event: DockerBuildFinished) => void;
  /** Source of time and timers. Default `systemClock`. */
  readonly clock?: Clock;
  /** Between SIGTERM and SIGKILL on timeout. Default 5000 ms. */
  readonly killGraceMs?: number;
  /** How much output is kept for the error message. Default 4096 bytes. */
  readonly outputTailBytes?: number;
  /**
   * The operator's work directory (`--work-dir`): a build without a `root` (no git checkout) must
   * have its context and Dockerfile inside it. Without it, such a build is refused
   * (docs/reference/katalog.md §16.2).
   */
  readonly workDir?: string;
}

/** DockerBuildStats counts builds. */
export interface DockerBuildStats {
  readonly running: number;
  readonly queued: number;
  readonly succeeded: number;
  readonly failed: number;
}

type ImageStatus = 'queued' | 'building' | 'succeeded' | 'failed';

interface ImageState {
  status: ImageStatus;
  declaration: DockerBuildDeclaration;
  digest: string;
  readonly waiters: Set<string>;
  /** Results not yet handed to the waiter's next request. */
  readonly deliveries: Map<string, DockerResult>;
}

const ENGINE_UNREACHABLE =
  /Cannot connect to the Docker daemon|Is the docker daemon running|error during connect|Cannot connect to Podman|unable to connect to Podman|dial unix [^\n]*: connect:/i;

/**
 * DockerBuildManager runs image builds in the background. `request` never blocks on a build.
 *
 * @example
 * const builds = new DockerBuildManager({ onBuildFinished: ({ waiters }) => waiters.forEach(enqueue) });
 * const outcome = builds.request(renderedDocker, { waiter: 'website:shop/web', lastImage });
 * if (outcome.pending) return { requeueAfterMs: 60_000 }; // Ready=False, DockerBuildPending
 */
export class DockerBuildManager {
  readonly #max: number;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #onFinished: ((event: DockerBuildFinished) => void) | undefined;
  readonly #clock: Clock;
  readonly #killGraceMs: number;
  readonly #tailBytes: number;
  readonly #workDir: string | undefined;
  readonly #images = new Map<string, ImageState>();
  readonly #queue: string[] = [];
  readonly #running = new Map<string, AbortController>();
  readonly #idleWaiters: (() => void)[] = [];
  #succeeded = 0;
  #failed = 0;

  constructor(options: DockerBuildManagerOptions = {}) {
    this.#max = Math.max(1, Math.floor(options.maxConcurrentBuilds ?? 1));
    this.#env = options.env ?? process.env;
    this.#onFinished = options.onBuildFinished;
    this.#clock = options.clock ?? systemClock;
    this.#killGraceMs = options.killGraceMs ?? 5000;
    this.#tailBytes = options.outputTailBytes ?? 4096;
    this.#workDir = options.workDir;
  }

  /** stats returns the build counters. */
  stats(): DockerBuildStats {
    return {
      running: this.#running.size,
      queued: this.#queue.length,
      succeeded: this.#succeeded,
      failed: this.#failed,
    };
  }

  /**
   * request asks for `declaration.image` on behalf of `context.waiter`. Returns the result of a
   * build that ended since the waiter's previous request; `pending` while the image is building or
   * queued; a `called: false` success when the image equals `lastImage` (and its last build here did
   * not fail) or was already built by this process; otherwise it starts a build and returns `pending`.
   */
  request(declaration: DockerBuildDeclaration, context: DockerRequestContext): DockerRequestOutcome {
    const image = declaration.image;
    const state = this.#images.get(image);
    const delivered = state?.deliveries.get(context.waiter);
    if (state != null && delivered != null) {
      state.deliveries.delete(context.waiter);
      return { pending: false, result: delivered };
    }
    if (state != null && (state.status === 'queued' || state.status === 'building')) {
      state.waiters.add(context.waiter);
      return { pending: true, image };
    }
    if ((image === context.lastImage && state?.status !== 'failed') || state?.status === 'succeeded') {
      return {
        pending: false,
        result: { called: false, image, digest: state?.digest ?? '', buildSucceeded: true, error: '' },
      };
    }
    this.#images.set(image, {
      status: 'queued',
      declaration,
      digest: '',
      waiters: new Set([context.waiter]),
      deliveries: state?.deliveries ?? new Map(),
    });
    this.#queue.push(image);
    this.#pump();
    return { pending: true, image };
  }

  /** whenIdle resolves once no build is running or queued. */
  whenIdle(): Promise<void> {
    if (this.#running.size === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** stop drops queued builds and aborts running ones (their waiters get an error result). */
  stop(): void {
    for (const image of this.#queue.splice(0)) {
      this.#finish(image, {
        called: true,
        image,
        digest: '',
        buildSucceeded: false,
        error: 'build cancelled: the operator is stopping',
      });
    }
    for (const controller of this.#running.values()) controller.abort(new Error('the operator is stopping'));
  }

  #pump(): void {
    while (this.#running.size < this.#max && this.#queue.length > 0) {
      const image = this.#queue.shift();
      const state = image == null ? undefined : this.#images.get(image);
      if (image == null || state == null) continue;
      const controller = new AbortController();
      this.#running.set(image, controller);
      state.status = 'building';
      void this.#build(state.declaration, controller.signal).then((result) => {
        this.#running.delete(image);
        this.#finish(image, result);
        this.#pump();
      });
    }
    if (this.#running.size === 0 && this.#queue.length === 0)
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  #finish(image: string, result: DockerResult): void {
    const state = this.#images.get(image);
    if (state == null) return;
    state.status = result.buildSucceeded ? 'succeeded' : 'failed';
    state.digest = result.digest;
    if (result.buildSucceeded) this.#succeeded++;
    else this.#failed++;
    const waiters = [...state.waiters];
    state.waiters.clear();
    for (const waiter of waiters) state.deliveries.set(waiter, result);
    try {
      this.#onFinished?.({ image, result, waiters });
    } catch {
      // A reporting hook must not break the manager.
    }
  }

  async #build(declaration: DockerBuildDeclaration, stopSignal: AbortSignal): Promise<DockerResult> {
    const image = declaration.image;
    const fail = (error: string): DockerResult => ({
      called: true,
      image,
      digest: '',
      buildSucceeded: false,
      error,
    });
    let builder: Builder;
    let timeoutMs: number;
    try {
      builder = this.#builderFor(declaration);
      timeoutMs = parseDuration(declaration.timeout ?? '30m');
    } catch (error) {
      return fail(describeError(error));
    }
    const context = resolve(declaration.workingDirectory);
    if (!existsSync(context)) return fail(`build context ${context} does not exist`);
    const dockerfile = resolve(context, declaration.dockerfile ?? 'Dockerfile');
    // Without a git checkout the context is confined to the work directory, never `/` or the
    // operator's own files; without a work directory such a build is refused.
    const root = declaration.root ?? this.#workDir;
    if (root == null)
      return fail(
        `build context ${context} is not inside a git checkout and the operator has no work directory; build from a git hook's checkout, or run with --work-dir and a workingDirectory inside it`,
      );
    const escaped = [
      ['build context', context],
      ['Dockerfile', dockerfile],
    ].find(([, path]) => !isInside(path ?? '', root));
    if (escaped != null)
      return fail(
        `${escaped[0]} ${escaped[1]} is outside ${root}; build paths must stay inside the ${declaration.root == null ? 'work directory' : 'checkout'}`,
      );
    const deadline = createDeadline(
      this.#clock,
      timeoutMs,
      `${builder} build of ${image} timed out after ${declaration.timeout ?? '30m'}`,
      stopSignal,
    );
    try {
      const buildArgs = Object.entries(declaration.buildArgs ?? {}).flatMap(([k, v]) => [
        '--build-arg',
        `${k}=${v}`,
      ]);
      const built = await this.#run(
        builder,
        ['build', '-t', image, '-f', dockerfile, ...buildArgs, context],
        context,
        deadline.signal,
      );
      const buildError = this.#describeFailure(builder, 'build', image, built, deadline.signal);
      if (buildError != null) return fail(buildError);
      if (declaration.push !== true)
        return { called: true, image, digest: '', buildSucceeded: true, error: '' };

      const digestFile = join(tmpdir(), `orkestra-digest-${randomUUID()}`);
      const pushArgs = builder === 'docker' ? ['push', image] : ['push', '--digestfile', digestFile, image];
      try {
        const pushed = await this.#run(builder, pushArgs, context, deadline.signal);
        const pushError = this.#describeFailure(builder, 'push', image, pushed, deadline.signal);
        if (pushError != null) return fail(pushError);
        let digest =
          /digest: (sha256:[0-9a-f]{64})/.exec(pushed.stdout)?.[1] ??
          /digest: (sha256:[0-9a-f]{64})/.exec(pushed.tail)?.[1];
        if (digest == null && builder !== 'docker')
          digest = (await readFile(digestFile, 'utf8').catch(() => '')).trim() || undefined;
        if (digest == null) {
          const inspected = await this.#run(
            builder,
            ['inspect', '--format', '{{index .RepoDigests 0}}', image],
            context,
            deadline.signal,
          );
          if (inspected.code === 0) digest = /@(sha256:[0-9a-f]{64})/.exec(inspected.stdout)?.[1];
        }
        return { called: true, image, digest: digest ?? '', buildSucceeded: true, error: '' };
      } finally {
        await rm(digestFile, { force: true });
      }
    } finally {
      deadline.clear();
    }
  }

  #builderFor(declaration: DockerBuildDeclaration): Builder {
    const chosen = declaration.builder ?? this.#env['OCI_BUILDER'] ?? 'docker';
    if (chosen !== 'docker' && chosen !== 'podman' && chosen !== 'buildah') {
      throw new Error(
        `unknown builder ${JSON.stringify(chosen)} (from OCI_BUILDER); use docker, podman or buildah`,
      );
    }
    return chosen;
  }

  #run(builder: Builder, args: readonly string[], cwd: string, signal: AbortSignal): Promise<ProcessResult> {
    return runProcess(builder, args, {
      cwd,
      env: this.#env,
      timeoutMs: 0,
      signal,
      killGraceMs: this.#killGraceMs,
      clock: this.#clock,
      tailBytes: this.#tailBytes,
    });
  }

  #describeFailure(
    builder: Builder,
    step: string,
    image: string,
    result: ProcessResult,
    signal: AbortSignal,
  ): string | undefined {
    if (result.spawnError != null) {
      return result.spawnError.code === 'ENOENT'
        ? `builder ${builder} not found on PATH (the builder binary must be present in the operator's image)`
        : `could not start ${builder}: ${describeError(result.spawnError)}`;
    }
    if (result.aborted) {
      const reason: unknown = signal.reason;
      return reason instanceof TimeoutError
        ? `${reason.message}${result.tail.trim() === '' ? '' : `: ${result.tail.trim()}`}`
        : `${builder} ${step} of ${image} aborted: ${describeError(reason)}`;
    }
    if (result.code === 0) return undefined;
    const output = result.tail.trim();
    if (ENGINE_UNREACHABLE.test(output)) {
      return `no reachable container engine for ${builder} (${builder} ${step} of ${image} failed): ${output}`;
    }
    return `${builder} ${step} of ${image} failed (exit ${String(result.code)}): ${output}`;
  }
}

/**
 * isInside tells whether `path` is `root` or below it once symlinks are resolved (a checkout may
 * hold a symlink to `/`); a path that does not exist yet is resolved through its nearest existing
 * parent.
 */
function isInside(path: string, root: string): boolean {
  const real = (p: string): string => {
    let current = resolve(p);
    const rest: string[] = [];
    for (;;) {
      try {
        return join(realpathSync(current), ...rest.reverse());
      } catch {
        const parent = resolve(current, '..');
        if (parent === current) return resolve(p);
        rest.push(current.slice(parent.length).replace(/^[/\\]+/, ''));
        current = parent;
      }
    }
  };
  const rel = relative(real(root), real(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
