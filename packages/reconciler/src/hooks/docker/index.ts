/**
 * The `docker` hook (docs/reference/katalog.md §16.2, docs/reference/runtime.md §14.5, §16): step 12
 * builds (and optionally pushes) an image in the background, from the git checkout or a declared
 * directory, and adds `docker` (image, digest, buildSucceeded, …) to the template context. While
 * the build runs the outcome is pending (DockerBuildPending); its end re-queues the waiting CRs.
 */
import { isAbsolute, join } from 'node:path';
import type { CompiledValue } from '@orkestra/template';
import { compileValue } from '@orkestra/template';
import {
  ConditionReason,
  OrkestraAnnotation,
  OrkestraError,
  evaluateConditions,
  katalogPathOf,
  stringForm,
} from '@orkestra/types';
import type { DockerHook } from '@orkestra/types';
import type { DockerResult } from '../docker.js';
import { gitPath } from '../git/index.js';
import {
  contextValue,
  defineHook,
  failing,
  keyOf,
  noMemory,
  pending,
  readerId,
  recorded,
} from '../hook-unit.js';
import type { HookPending } from '../hook-unit.js';

/** DOCKER_SAFETY_REQUEUE_MS is the timed re-queue while a build runs (docs/reference/runtime.md §16). */
const DOCKER_SAFETY_REQUEUE_MS = 60_000;

/** CompiledDocker is the `docker` block: `image`, `workingDirectory`, `dockerfile` and `buildArgs` compiled. */
export interface CompiledDocker {
  readonly declaration: DockerHook;
  readonly katalogPath: string;
  /** Renders `{image, workingDirectory?, dockerfile, buildArgs}`. */
  readonly value: CompiledValue;
}

/** dockerHook is the `docker` unit. */
export const dockerHook = defineHook({
  key: 'docker',
  schema: 'operatorBox.docker — DockerHook in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §16.2',
  phase: 'context',
  label: { place: 'the docker hook', reader: 'docker' },
  enqueuedBy: ['docker'],
  compile: (entry, base, engine): CompiledDocker | undefined => {
    const declaration = entry.operatorBox.docker;
    if (declaration == null) return undefined;
    const katalogPath = katalogPathOf(declaration) ?? `${base}.operatorBox.docker`;
    return {
      declaration,
      katalogPath,
      value: compileValue(
        {
          image: declaration.image,
          ...(declaration.workingDirectory == null ? {} : { workingDirectory: declaration.workingDirectory }),
          dockerfile: declaration.dockerfile,
          buildArgs: declaration.buildArgs,
        },
        { path: katalogPath, engine },
      ),
    };
  },
  declared: (compiled) => compiled != null,
  names: (compiled) => (compiled == null ? [] : ['docker']),
  summary: (entry) => entry.operatorBox.docker != null,
  initial: () => ({}),
  settle: contextValue,
  results: 'one',
  resultKeys: ['called', 'image', 'digest', 'buildSucceeded', 'error'],
  // Offline, the build is the given `docker` result (built); none reads as still building.
  offline: (script) => ({
    docker: () => ({
      request: (declaration) => {
        const given = script.given();
        if (given == null) {
          script.note('docker: no result in the context; the build is pending (DockerBuildPending)');
          return { pending: true, image: declaration.image };
        }
        const result: DockerResult = {
          called: true,
          image: declaration.image,
          digest: '',
          buildSucceeded: true,
          error: '',
          ...(given as Partial<DockerResult>),
        };
        return { pending: false, result };
      },
    }),
  }),
  memory: noMemory,
  run: async (services, _memory, docker, input): Promise<DockerResult | HookPending> => {
    if (docker == null) return notCalledDocker();
    const context = input.context;
    if (!evaluateConditions(docker.declaration, context, services.conditions).passed)
      return notCalledDocker();
    const rendered = docker.value.render(context) as {
      image?: unknown;
      workingDirectory?: unknown;
      dockerfile?: unknown;
      buildArgs?: Record<string, unknown>;
    };
    const image = stringForm(rendered.image);
    const gitDir = stringForm((context['git'] as { dir?: unknown } | undefined)?.dir);
    const workingDirectory = buildDirectory(
      stringForm(rendered.workingDirectory),
      gitDir,
      gitPath(input.crd.hooks.git, context),
    );
    if (workingDirectory == null) {
      return dockerFailure(
        docker,
        `${docker.katalogPath}: no workingDirectory and no git checkout to build from`,
        image,
      );
    }
    const outcome = services.docker().request(
      {
        image,
        workingDirectory,
        dockerfile: stringForm(rendered.dockerfile) || 'Dockerfile',
        // Build paths are confined to the git checkout (docs/reference/katalog.md §16.2); without one, to the context.
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
      return pending(
        ConditionReason.DockerBuildPending,
        `${docker.katalogPath}: building image ${image}`,
        DOCKER_SAFETY_REQUEUE_MS,
        { called: true, image, digest: '', buildSucceeded: false, error: '' },
      );
    }
    const result = outcome.result;
    if (!result.buildSucceeded)
      return dockerFailure(docker, `${docker.katalogPath}: ${result.error}`, image, result);
    input.effects.annotate(OrkestraAnnotation.LastImage, result.image);
    return result;
  },
});

/**
 * buildDirectory is where the image is built: a declared `workingDirectory` (relative ones inside
 * the git checkout), else the checkout at `git.path`; undefined with neither.
 */
export function buildDirectory(declared: string, gitDir: string, path: string): string | undefined {
  if (declared !== '') return isAbsolute(declared) || gitDir === '' ? declared : join(gitDir, declared);
  if (gitDir !== '') return path === '' ? gitDir : join(gitDir, path);
  return undefined;
}

function dockerFailure(
  docker: CompiledDocker,
  message: string,
  image: string,
  result?: DockerResult,
): DockerResult {
  const failed = result ?? { called: false, image, digest: '', buildSucceeded: false, error: message };
  if (docker.declaration.continueOnError) return failed;
  throw failing(
    new OrkestraError(message, { code: ConditionReason.DockerBuildFailed, katalogPath: docker.katalogPath }),
    failed,
  );
}

function notCalledDocker(): DockerResult {
  return { called: false, image: '', digest: '', buildSucceeded: false, error: '' };
}
