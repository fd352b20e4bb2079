/**
 * The hook slots of steps 9–12 (docs/reference/katalog.md §15–16, docs/reference/runtime.md §14.2–14.5) for every entry of one
 * runtime, over process-wide services: in-process cross reads with their reverse index, HTTP cross
 * reads, git checkouts with the poller's reader map, external calls and docker builds.
 */
import { join, isAbsolute } from 'node:path';
import {
  ConditionReason,
  OrkestraAnnotation,
  OrkestraError,
  evaluateConditions,
  stringForm,
} from '@orkestra/types';
import type { EvaluateConditionsOptions } from '@orkestra/types';
import { notFoundCrossResult, readCross } from '../hooks/cross.js';
import type { CrossReadRecord, CrossReaders, CrossResult, CrossTarget } from '../hooks/cross.js';
import type { CrossHttpClient } from '../hooks/cross-http.js';
import type { DockerBuildManager, DockerResult } from '../hooks/docker.js';
import type { ExternalCallDeclaration, ExternalCaller } from '../hooks/external.js';
import type { GitCheckouts, GitRefresh, GitResult } from '../hooks/git.js';
import type { CompiledCrd } from './compile-katalog.js';
import { Pending } from './reconcile-pipeline.js';
import type { HookInput, PipelineHooks } from './reconcile-pipeline.js';

/** DOCKER_SAFETY_REQUEUE_MS is the timed re-queue while a build runs (docs/reference/runtime.md §16). */
export const DOCKER_SAFETY_REQUEUE_MS = 60_000;

/** KatalogHooksOptions are the process-wide services the hooks use. */
export interface KatalogHooksOptions {
  readonly conditions: EvaluateConditionsOptions;
  // The services are narrowed to the calls the hooks make, so the offline engine can inject
  // scripted ones (results from the render context or scenario) behind the same hook code.
  readonly external: Pick<ExternalCaller, 'runAll'>;
  readonly crossHttp: Pick<CrossHttpClient, 'read'>;
  readonly crossReaders: Pick<CrossReaders, 'record' | 'forget'>;
  /** The primary cache of an entry of this Katalog, for in-process cross reads. */
  readonly lookup: (crd: string) => CrossTarget | undefined;
  /** Created on first use (only entries with `git` need it). */
  readonly git: () => Pick<GitCheckouts, 'sync'>;
  /** Created on first use (only entries with `docker` need it). */
  readonly docker: () => Pick<DockerBuildManager, 'request'>;
}

/** GitReader is what a CR's last reconcile checked out, for the poller. */
export interface GitReader {
  readonly crd: string;
  readonly key: string;
  readonly repo: string;
  readonly branch: string;
  readonly path: string;
}

/** readerId names a CR across entries: `<entry>:<namespace>/<name>` (the cross reverse index and docker waiters). */
export function readerId(crd: string, key: string): string {
  return `${crd}:${key}`;
}

/** parseReaderId splits a readerId into entry and key. */
export function parseReaderId(id: string): { readonly crd: string; readonly key: string } {
  const at = id.indexOf(':');
  return { crd: id.slice(0, at), key: id.slice(at + 1) };
}

/**
 * KatalogHooks builds the PipelineHooks of each entry (`hooksFor`) and keeps the per-CR state the
 * runtime's event wiring needs: what each CR checked out (`gitReadersOf`). Cross reads are recorded
 * in the shared CrossReaders.
 *
 * @example
 * const hooks = new KatalogHooks({ conditions, external, crossHttp, crossReaders, lookup, git, docker });
 * new CrdPipeline({ ...options, hooks: hooks.hooksFor(crd) });
 */
export class KatalogHooks {
  readonly #o: KatalogHooksOptions;
  readonly #gitReaders = new Map<string, GitReader>();

  constructor(options: KatalogHooksOptions) {
    this.#o = options;
  }

  /** hooksFor returns the slots an entry needs (none for an entry without hooks). */
  hooksFor(crd: CompiledCrd): PipelineHooks {
    const hooks = crd.hooks;
    return {
      ...(hooks.cross.length === 0 ? {} : { cross: (input: HookInput) => this.#cross(input) }),
      ...(hooks.git == null ? {} : { git: (input: HookInput) => this.#git(input) }),
      ...(hooks.external.length === 0 ? {} : { external: (input: HookInput) => this.#external(input) }),
      ...(hooks.docker == null ? {} : { docker: (input: HookInput) => this.#docker(input) }),
    };
  }

  /** forget drops what a deleted CR read (cross reverse index, git readers). */
  forget(crd: string, key: string): void {
    const id = readerId(crd, key);
    this.#o.crossReaders.forget(id);
    this.#gitReaders.delete(id);
  }

  /** gitReadersOf returns the CRs whose last reconcile used the checkout of `repo` at `branch`. */
  gitReadersOf(refresh: Pick<GitRefresh, 'repo' | 'branch'>): GitReader[] {
    return [...this.#gitReaders.values()].filter(
      (r) => r.repo === refresh.repo && r.branch === refresh.branch,
    );
  }

  // ---- step 9: cross ---------------------------------------------------------------------------

  async #cross(input: HookInput): Promise<Record<string, CrossResult>> {
    const { crd, cr } = input;
    const namespace = nonEmpty(cr.metadata.namespace);
    const results: Record<string, CrossResult> = {};
    const records: CrossReadRecord[] = [];
    for (const item of crd.hooks.cross) {
      const as = item.declaration.as ?? item.declaration.crd;
      let selector: { name?: string; namespace?: string; matchLabels?: Record<string, string> };
      let endpoint: string | undefined;
      try {
        selector = stringSelector(item.selector.render(input.context));
        endpoint = item.endpoint == null ? undefined : stringForm(item.endpoint.render(input.context));
      } catch (error) {
        results[as] = notFoundCrossResult('', namespace ?? '', `${item.katalogPath}: ${errorMessage(error)}`);
        continue;
      }
      if (endpoint != null) {
        const read = await this.#o.crossHttp.read(
          {
            crd: item.declaration.crd,
            endpoint,
            selector: {
              ...(selector.name == null ? {} : { name: selector.name }),
              ...(selector.namespace == null ? {} : { namespace: selector.namespace }),
            },
            ...(item.declaration.timeout == null ? {} : { timeout: item.declaration.timeout }),
            ...(item.declaration.cacheFor == null ? {} : { cacheFor: item.declaration.cacheFor }),
          },
          { namespace, signal: input.signal },
        );
        results[as] = read.result;
        if (read.expiresAt != null) input.effects.requeueAt(read.expiresAt);
        continue;
      }
      const read = readCross(
        { crd: item.declaration.crd, selector, as },
        { lookup: this.#o.lookup, namespace },
      );
      results[as] = read.result;
      records.push(read.record);
    }
    this.#o.crossReaders.record(readerId(crd.name, keyOf(cr)), records);
    return results;
  }

  // ---- step 10: git ----------------------------------------------------------------------------

  async #git(input: HookInput): Promise<GitResult> {
    const git = input.crd.hooks.git;
    if (git == null) return notCalledGit();
    if (!evaluateConditions(git.declaration, input.context, this.#o.conditions).passed) return notCalledGit();
    const rendered = git.value.render(input.context) as { repo?: unknown; branch?: unknown; path?: unknown };
    const repo = stringForm(rendered.repo);
    const branch = stringForm(rendered.branch) || 'main';
    const path = stringForm(rendered.path);
    const result = await this.#o.git().sync(
      {
        repo,
        branch,
        path,
        timeout: git.declaration.timeout,
        pollInterval: git.declaration.pollInterval,
      },
      {
        signal: input.signal,
        ...recorded(input.cr.metadata.annotations?.[OrkestraAnnotation.LastCommit], 'recordedCommit'),
      },
    );
    const key = keyOf(input.cr);
    this.#gitReaders.set(readerId(input.crd.name, key), { crd: input.crd.name, key, repo, branch, path });
    if (result.error !== '') {
      if (git.declaration.continueOnError) return result;
      (input.context as Record<string, unknown>)['git'] = result;
      throw new OrkestraError(`${git.katalogPath}: ${result.error}`, {
        code: ConditionReason.GitFailed,
        katalogPath: git.katalogPath,
      });
    }
    input.effects.annotate(OrkestraAnnotation.LastCommit, result.commit);
    return result;
  }

  // ---- step 11: external -----------------------------------------------------------------------

  async #external(input: HookInput): Promise<unknown> {
    const { crd, cr } = input;
    const context = input.context as Record<string, unknown>;
    const calls = crd.hooks.external.map((item) => ({
      item,
      name: item.declaration.name,
      continueOnError: item.declaration.continueOnError,
    }));
    const run = await this.#o.external.runAll(
      calls,
      ({ item }, results) => {
        context['external'] = { ...results };
        if (!evaluateConditions(item.declaration, context, this.#o.conditions).passed) return undefined;
        const rendered = item.value.render(context) as {
          url?: unknown;
          headers?: Record<string, unknown>;
          body?: unknown;
          secretRef?: { name?: unknown; key?: unknown };
        };
        const decl = item.declaration;
        const auth = decl.auth;
        const declaration: ExternalCallDeclaration = {
          name: decl.name,
          url: stringForm(rendered.url),
          method: decl.method,
          headers: Object.fromEntries(
            Object.entries(rendered.headers ?? {}).map(([k, v]) => [k, stringForm(v)]),
          ),
          ...(rendered.body === undefined ? {} : { body: rendered.body }),
          timeout: decl.timeout,
          ...(decl.expectedStatus == null ? {} : { expectedStatus: decl.expectedStatus }),
          ...(auth == null
            ? {}
            : {
                auth: {
                  ...(rendered.secretRef == null
                    ? {}
                    : {
                        secretRef: {
                          name: stringForm(rendered.secretRef.name),
                          key: stringForm(rendered.secretRef.key),
                          // A literal namespace (the schema refuses templates): docs/reference/katalog.md §15.1.
                          ...(auth.secretRef?.namespace == null
                            ? {}
                            : { namespace: auth.secretRef.namespace }),
                        },
                      }),
                  ...(auth.env == null ? {} : { env: auth.env }),
                  header: auth.header,
                  scheme: auth.scheme,
                },
              }),
          cacheFor: decl.cacheFor,
        };
        return declaration;
      },
      { entry: crd.name, namespace: cr.metadata.namespace ?? '', signal: input.signal },
    );
    context['external'] = run.results;
    if (run.failed != null) {
      const failed = crd.hooks.external.find((e) => e.declaration.name === run.failed?.name);
      const katalogPath = failed?.katalogPath ?? `${crd.katalogPath}.operatorBox.external`;
      throw new OrkestraError(
        `${katalogPath}: external call ${run.failed.name} failed: ${run.failed.error}`,
        {
          code: ConditionReason.ExternalCallFailed,
          katalogPath,
        },
      );
    }
    return run.results;
  }

  // ---- step 12: docker -------------------------------------------------------------------------

  async #docker(input: HookInput): Promise<DockerResult> {
    const docker = input.crd.hooks.docker;
    if (docker == null) return notCalledDocker();
    const context = input.context as Record<string, unknown>;
    if (!evaluateConditions(docker.declaration, context, this.#o.conditions).passed) return notCalledDocker();
    const rendered = docker.value.render(context) as {
      image?: unknown;
      workingDirectory?: unknown;
      dockerfile?: unknown;
      buildArgs?: Record<string, unknown>;
    };
    const image = stringForm(rendered.image);
    const gitDir = stringForm((context['git'] as { dir?: unknown } | undefined)?.dir);
    const gitPath = this.#gitPath(input);
    const declared = stringForm(rendered.workingDirectory);
    let workingDirectory: string;
    if (declared !== '')
      workingDirectory = isAbsolute(declared) || gitDir === '' ? declared : join(gitDir, declared);
    else if (gitDir !== '') workingDirectory = gitPath === '' ? gitDir : join(gitDir, gitPath);
    else {
      return this.#dockerFailure(
        input,
        `${docker.katalogPath}: no workingDirectory and no git checkout to build from`,
        image,
      );
    }
    const outcome = this.#o.docker().request(
      {
        image,
        workingDirectory,
        dockerfile: stringForm(rendered.dockerfile) || 'Dockerfile',
        // Build paths are confined to the git checkout (issue 20); without one, to the context.
        ...(gitDir === '' ? {} : { root: gitDir }),
        buildArgs: Object.fromEntries(
          Object.entries(rendered.buildArgs ?? {}).map(([k, v]) => [k, stringForm(v)]),
        ),
        push: docker.declaration.push,
        ...(docker.declaration.builder == null ? {} : { builder: docker.declaration.builder }),
        timeout: docker.declaration.timeout,
      },
      {
        waiter: readerId(input.crd.name, keyOf(input.cr)),
        ...recorded(input.cr.metadata.annotations?.[OrkestraAnnotation.LastImage], 'lastImage'),
      },
    );
    if (outcome.pending) {
      context['docker'] = { called: true, image, digest: '', buildSucceeded: false, error: '' };
      throw new Pending(
        ConditionReason.DockerBuildPending,
        `${docker.katalogPath}: building image ${image}`,
        DOCKER_SAFETY_REQUEUE_MS,
      );
    }
    const result = outcome.result;
    if (!result.buildSucceeded)
      return this.#dockerFailure(input, `${docker.katalogPath}: ${result.error}`, image, result);
    input.effects.annotate(OrkestraAnnotation.LastImage, result.image);
    return result;
  }

  #dockerFailure(input: HookInput, message: string, image: string, result?: DockerResult): DockerResult {
    const docker = input.crd.hooks.docker;
    const failed = result ?? { called: false, image, digest: '', buildSucceeded: false, error: message };
    if (docker?.declaration.continueOnError === true) return failed;
    (input.context as Record<string, unknown>)['docker'] = failed;
    throw new OrkestraError(message, {
      code: ConditionReason.DockerBuildFailed,
      ...(docker == null ? {} : { katalogPath: docker.katalogPath }),
    });
  }

  #gitPath(input: HookInput): string {
    const git = input.crd.hooks.git;
    if (git == null) return '';
    try {
      return stringForm((git.value.render(input.context) as { path?: unknown }).path);
    } catch {
      return '';
    }
  }
}

function stringSelector(value: unknown): {
  name?: string;
  namespace?: string;
  matchLabels?: Record<string, string>;
} {
  const raw = (value ?? {}) as { name?: unknown; namespace?: unknown; matchLabels?: Record<string, unknown> };
  const name = raw.name == null ? undefined : stringForm(raw.name);
  const namespace = raw.namespace == null ? undefined : stringForm(raw.namespace);
  return {
    ...(name == null ? {} : { name }),
    ...(namespace == null || namespace === '' ? {} : { namespace }),
    ...(raw.matchLabels == null
      ? {}
      : {
          matchLabels: Object.fromEntries(
            Object.entries(raw.matchLabels).map(([k, v]) => [k, stringForm(v)]),
          ),
        }),
  };
}

function recorded<K extends string>(value: string | undefined, key: K): { [P in K]?: string } {
  return (value == null || value === '' ? {} : { [key]: value }) as { [P in K]?: string };
}

function notCalledGit(): GitResult {
  return { called: false, commit: '', shortCommit: '', branch: '', dir: '', changed: false, error: '' };
}

function notCalledDocker(): DockerResult {
  return { called: false, image: '', digest: '', buildSucceeded: false, error: '' };
}

function keyOf(cr: { metadata: { namespace?: string; name?: string } }): string {
  const ns = cr.metadata.namespace;
  return ns == null || ns === '' ? (cr.metadata.name ?? '') : `${ns}/${cr.metadata.name ?? ''}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value == null || value === '' ? undefined : value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
