/**
 * The built-in hook slots of steps 9–12 (docs/reference/katalog.md §15–16, docs/reference/runtime.md §14.2–14.5)
 * for every entry of one runtime, over process-wide services. Each slot is the run step of a hook
 * unit of the hook table (hooks/table.ts); this class holds the units' memory (what each CR
 * checked out, for the git poller) and forgets a CR's part of it when the CR is gone.
 */
import type { GitRefresh } from '../hooks/git.js';
import { gitHook } from '../hooks/git/index.js';
import { runModuleHookDeletions } from '../hooks/modules/index.js';
import type { CompiledModuleHook } from '../hooks/modules/index.js';
import { runModuleReconcilerDeletion } from '../hooks/remote/index.js';
import type { CompiledRemote } from '../hooks/remote/index.js';
import type { GitReader } from '../hooks/git/index.js';
import { readerId } from '../hooks/hook-unit.js';
import type {
  AnyHookUnit,
  HookServices,
  HookSlot,
  OfflineScript,
  OfflineServiceInputs,
} from '../hooks/hook-unit.js';
import { declaredHooks, hookUnits } from '../hooks/table.js';
import type { CompiledCrd } from './compile-katalog.js';
import type { PipelineHooks } from './reconcile-pipeline.js';

export type { GitReader } from '../hooks/git/index.js';

/** KatalogHooksOptions are the process-wide services the hooks use (narrowed to the calls the hooks make, so the offline engine can inject scripted ones behind the same hook code). */
export type KatalogHooksOptions = HookServices;

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
  /** Each unit's memory, by hook key. */
  readonly #memory = new Map<string, unknown>(hookUnits.map((unit) => [unit.key, unit.memory()]));

  constructor(options: KatalogHooksOptions) {
    this.#o = options;
  }

  /** hooksFor returns the slots an entry needs: one per declared hook, and the deletion path's provider calls. */
  hooksFor(crd: CompiledCrd): PipelineHooks {
    const slots: Record<string, HookSlot> = {};
    for (const unit of declaredHooks(crd.hooks)) {
      const compiled: unknown = (crd.hooks as Record<string, unknown>)[unit.key];
      const memory = this.#memory.get(unit.key);
      slots[unit.key] = (input) => unit.run(this.#o, memory, compiled, input);
    }
    const modules = (crd.hooks as { hooks?: readonly CompiledModuleHook[] }).hooks ?? [];
    const remote = (crd.hooks as { remote?: CompiledRemote }).remote;
    const reconciler = remote?.declaration.module == null ? undefined : remote;
    // The module `onDelete` steps (ADR 0099, ADR 0109) in reverse of their run order: the module
    // reconciler (step 12b) first, then the module hooks (step 12), last declared first.
    const deletions: PipelineHooks =
      modules.length === 0 && reconciler == null
        ? slots
        : {
            ...slots,
            deleteModuleHooks: async (input) => {
              if (reconciler != null) await runModuleReconcilerDeletion(this.#o, reconciler, input);
              if (modules.length > 0) await runModuleHookDeletions(this.#o, modules, input);
            },
          };
    const providers = this.#o.providers;
    return providers == null
      ? deletions
      : { ...deletions, deleteProviders: (input) => providers.delete(input) };
  }

  /** forget drops what a deleted CR read (cross reverse index, git readers). */
  forget(crd: string, key: string): void {
    const id = readerId(crd, key);
    for (const unit of hookUnits) unit.forget?.(this.#o, this.#memory.get(unit.key), id);
  }

  /** memoryOf is the memory of one unit (what its run step keeps across reconciles). */
  memoryOf<M>(unit: { readonly key: string; memory(): M }): M {
    return this.#memory.get(unit.key) as M;
  }

  /** gitReadersOf returns the CRs whose last reconcile used the checkout of `repo` at `branch`. */
  gitReadersOf(refresh: Pick<GitRefresh, 'repo' | 'branch'>): GitReader[] {
    const readers = this.memoryOf(gitHook);
    return [...readers.values()].filter((r) => r.repo === refresh.repo && r.branch === refresh.branch);
  }
}

/**
 * scriptedServices are the hook services of the offline engine: each unit's `offline` services
 * (answering from its part of the results) over the shared `base` ones. The same units run the
 * same slots over them as over the runtime's.
 */
export function scriptedServices(
  base: Pick<HookServices, 'conditions' | 'lookup'>,
  script: (unit: AnyHookUnit) => OfflineScript,
  inputs: OfflineServiceInputs,
): HookServices {
  let services: Partial<HookServices> = base;
  for (const unit of hookUnits) services = { ...services, ...unit.offline?.(script(unit), inputs) };
  return services as HookServices;
}
