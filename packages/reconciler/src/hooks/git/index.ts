/**
 * The `git` hook (docs/reference/katalog.md §16.1, docs/reference/runtime.md §14.3): step 10 checks
 * out `repo` at `branch` and adds `git` (commit, dir, changed, …) to the template context. What
 * each CR checked out is remembered, so the poller's new commits re-queue its readers; the commit
 * is recorded in the `last-commit` annotation (step 18).
 */
import type { CompiledValue } from '@orkestra/template';
import { compileValue } from '@orkestra/template';
import {
  ConditionReason,
  OrkestraAnnotation,
  OrkestraError,
  evaluateConditions,
  isTemplate,
  katalogPathOf,
  parseDuration,
  stringForm,
} from '@orkestra/types';
import type { GitHook } from '@orkestra/types';
import type { GitResult } from '../git.js';
import { contextValue, defineHook, failing, keyOf, readerId, recorded } from '../hook-unit.js';

/** CompiledGit is the `git` block: `repo`, `branch` and `path` compiled. */
export interface CompiledGit {
  readonly declaration: GitHook;
  readonly katalogPath: string;
  /** Renders `{repo, branch, path}`. */
  readonly value: CompiledValue;
  /** The declared poll interval in ms (0 = no polling). */
  readonly pollMs: number;
}

/** GitReader is what a CR's last reconcile checked out, for the poller. */
export interface GitReader {
  readonly crd: string;
  readonly key: string;
  readonly repo: string;
  readonly branch: string;
  readonly path: string;
}

/** gitHook is the `git` unit; its memory maps a readerId to what that CR checked out. */
export const gitHook = defineHook({
  key: 'git',
  schema: 'operatorBox.git — GitHook in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §16.1',
  phase: 'context',
  label: { place: 'the git hook', reader: 'git' },
  enqueuedBy: ['git'],
  compile: (entry, base, engine): CompiledGit | undefined => {
    const declaration = entry.operatorBox.git;
    if (declaration == null) return undefined;
    const katalogPath = katalogPathOf(declaration) ?? `${base}.operatorBox.git`;
    return {
      declaration,
      katalogPath,
      value: compileValue(
        { repo: declaration.repo, branch: declaration.branch, path: declaration.path },
        { path: katalogPath, engine },
      ),
      pollMs: parseDuration(declaration.pollInterval),
    };
  },
  declared: (compiled) => compiled != null,
  names: (compiled) => (compiled == null ? [] : ['git']),
  summary: (entry) => entry.operatorBox.git != null,
  initial: () => ({}),
  settle: contextValue,
  results: 'one',
  resultKeys: ['called', 'commit', 'shortCommit', 'branch', 'dir', 'changed', 'error'],
  // Offline, the checkout is the given `git` result; none reads as not called.
  offline: (script) => ({
    git: () => ({
      sync: async (): Promise<GitResult> => {
        const given = script.given();
        if (given == null) script.note('git: no result in the context; read as not called');
        return { ...notCalledGit(), called: given != null, ...(given as Partial<GitResult> | undefined) };
      },
    }),
  }),
  memory: (): Map<string, GitReader> => new Map(),
  forget: (_services, readers, reader) => {
    readers.delete(reader);
  },
  run: async (services, readers, git, input): Promise<GitResult> => {
    if (git == null) return notCalledGit();
    if (!evaluateConditions(git.declaration, input.context, services.conditions).passed)
      return notCalledGit();
    const rendered = git.value.render(input.context) as { repo?: unknown; branch?: unknown; path?: unknown };
    const repo = stringForm(rendered.repo);
    const branch = stringForm(rendered.branch) || 'main';
    const path = stringForm(rendered.path);
    const result = await services.git().sync(
      { repo, branch, path, timeout: git.declaration.timeout, pollInterval: git.declaration.pollInterval },
      {
        signal: input.signal,
        // A local path or file:// repository only when the Katalog wrote it (docs/reference/runtime.md §14.3).
        allowLocal: !isTemplate(git.declaration.repo),
        ...recorded(input.cr.metadata.annotations?.[OrkestraAnnotation.LastCommit], 'recordedCommit'),
      },
    );
    const key = keyOf(input.cr);
    readers.set(readerId(input.crd.name, key), { crd: input.crd.name, key, repo, branch, path });
    if (result.error !== '') {
      if (git.declaration.continueOnError) return result;
      throw failing(
        new OrkestraError(`${git.katalogPath}: ${result.error}`, {
          code: ConditionReason.GitFailed,
          katalogPath: git.katalogPath,
        }),
        result,
      );
    }
    input.effects.annotate(OrkestraAnnotation.LastCommit, result.commit);
    return result;
  },
});

/** gitPath is the rendered `git.path` of an entry ('' without git or when it does not render), for the docker hook's build directory. */
export function gitPath(git: CompiledGit | undefined, context: Readonly<Record<string, unknown>>): string {
  if (git == null) return '';
  try {
    return stringForm((git.value.render(context) as { path?: unknown }).path);
  } catch {
    return '';
  }
}

function notCalledGit(): GitResult {
  return { called: false, commit: '', shortCommit: '', branch: '', dir: '', changed: false, error: '' };
}
