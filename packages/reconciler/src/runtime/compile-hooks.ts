/**
 * Load-time compilation of an entry's hook and provider declarations (docs/reference/katalog.md §14.2, §15, §16):
 * the templated fields of every cross read, git block, external call, docker block and provider
 * declaration are compiled once, so a reconcile only renders them.
 */
import { compileValue } from '@orkestra/template';
import type { CompiledValue, TemplateEngine } from '@orkestra/template';
import { katalogPathOf, parseDuration } from '@orkestra/types';
import type {
  CrdEntry,
  CrossRead,
  DockerHook,
  ExternalCall,
  GitHook,
  ProviderDeclarationEntry,
} from '@orkestra/types';

/** CompiledCross is one `cross` item: its selector (and `endpoint`) compiled. */
export interface CompiledCross {
  readonly declaration: CrossRead;
  readonly katalogPath: string;
  /** Renders `{name?, namespace?, matchLabels?}`. */
  readonly selector: CompiledValue;
  /** Renders the endpoint URL; undefined for in-process reads. */
  readonly endpoint: CompiledValue | undefined;
}

/** CompiledGit is the `git` block: `repo`, `branch` and `path` compiled. */
export interface CompiledGit {
  readonly declaration: GitHook;
  readonly katalogPath: string;
  /** Renders `{repo, branch, path}`. */
  readonly value: CompiledValue;
  /** The declared poll interval in ms (0 = no polling). */
  readonly pollMs: number;
}

/** CompiledExternal is one `external` call: `url`, `headers`, `body` and `auth.secretRef` compiled. */
export interface CompiledExternal {
  readonly declaration: ExternalCall;
  readonly katalogPath: string;
  /** Renders `{url, headers, body?, secretRef?}`. */
  readonly value: CompiledValue;
}

/** CompiledDocker is the `docker` block: `image`, `workingDirectory`, `dockerfile` and `buildArgs` compiled. */
export interface CompiledDocker {
  readonly declaration: DockerHook;
  readonly katalogPath: string;
  /** Renders `{image, workingDirectory?, dockerfile, buildArgs}`. */
  readonly value: CompiledValue;
}

/** CompiledProviderDeclaration is one provider declaration with its spec compiled. */
export interface CompiledProviderDeclaration {
  /** The provider name (the block key). */
  readonly provider: string;
  readonly declaration: ProviderDeclarationEntry;
  readonly katalogPath: string;
  /** Renders the kind's spec (whole-expression leaves keep their native value). */
  readonly spec: CompiledValue;
  /** The declaration's call timeout in ms. */
  readonly timeoutMs: number;
}

/** CompiledHooks is everything of steps 9–12 and 16 for one entry, compiled. */
export interface CompiledHooks {
  readonly cross: readonly CompiledCross[];
  readonly git: CompiledGit | undefined;
  readonly external: readonly CompiledExternal[];
  readonly docker: CompiledDocker | undefined;
  /** Every declaration in order: blocks in the order of their keys, then declaration order. */
  readonly providers: readonly CompiledProviderDeclaration[];
}

/**
 * compileHooks compiles the hook and provider declarations of one CRD entry (hoisting is already
 * done by the loader). `base` is the entry's Katalog path, used when a node carries no source.
 *
 * @example
 * const hooks = compileHooks(entry, 'website', engine);
 * hooks.external[0]?.value.render(context);
 */
export function compileHooks(entry: CrdEntry, base: string, engine: TemplateEngine): CompiledHooks {
  const box = entry.operatorBox;
  const pathOf = (node: object, fallback: string): string => katalogPathOf(node) ?? fallback;
  const cross = box.cross.map((declaration, i): CompiledCross => {
    const katalogPath = pathOf(declaration, `${base}.operatorBox.cross[${i}]`);
    return {
      declaration,
      katalogPath,
      selector: compileValue(declaration.selector, { path: `${katalogPath}.selector`, engine }),
      endpoint:
        declaration.endpoint == null
          ? undefined
          : compileValue(declaration.endpoint, { path: `${katalogPath}.endpoint`, engine }),
    };
  });
  const gitDecl = box.git;
  let git: CompiledGit | undefined;
  if (gitDecl != null) {
    const katalogPath = pathOf(gitDecl, `${base}.operatorBox.git`);
    git = {
      declaration: gitDecl,
      katalogPath,
      value: compileValue(
        { repo: gitDecl.repo, branch: gitDecl.branch, path: gitDecl.path },
        { path: katalogPath, engine },
      ),
      pollMs: parseDuration(gitDecl.pollInterval),
    };
  }
  const external = box.external.map((declaration, i): CompiledExternal => {
    const katalogPath = pathOf(declaration, `${base}.operatorBox.external[${i}]`);
    const secretRef = declaration.auth?.secretRef;
    return {
      declaration,
      katalogPath,
      value: compileValue(
        {
          url: declaration.url,
          headers: declaration.headers,
          ...(declaration.body === undefined ? {} : { body: declaration.body }),
          ...(secretRef == null ? {} : { secretRef }),
        },
        { path: katalogPath, engine },
      ),
    };
  });
  const dockerDecl = box.docker;
  let docker: CompiledDocker | undefined;
  if (dockerDecl != null) {
    const katalogPath = pathOf(dockerDecl, `${base}.operatorBox.docker`);
    docker = {
      declaration: dockerDecl,
      katalogPath,
      value: compileValue(
        {
          image: dockerDecl.image,
          ...(dockerDecl.workingDirectory == null ? {} : { workingDirectory: dockerDecl.workingDirectory }),
          dockerfile: dockerDecl.dockerfile,
          buildArgs: dockerDecl.buildArgs,
        },
        { path: katalogPath, engine },
      ),
    };
  }
  const providers: CompiledProviderDeclaration[] = [];
  for (const [provider, list] of Object.entries(box.providers)) {
    list.forEach((declaration, i) => {
      const katalogPath = pathOf(declaration, `${base}.operatorBox.providers.${provider}[${i}]`);
      providers.push({
        provider,
        declaration,
        katalogPath,
        spec: compileValue(declaration.spec ?? {}, { path: `${katalogPath}.${declaration.kind}`, engine }),
        timeoutMs: parseDuration(declaration.timeout),
      });
    });
  }
  return { cross, git, external, docker, providers };
}
