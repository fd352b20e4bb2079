import type { KubeObject } from '@orkestra/registry';
import type { Katalog } from '@orkestra/types';
import type { CompiledKatalog } from '../runtime/compile-katalog.js';

/**
 * RuntimeRevisions tells a runtime which Katalog revision it runs, the previous one it keeps
 * compiled, and which of the two each CR is reconciled with (docs/reference/runtime.md §24.2).
 */
export interface RuntimeRevisions {
  /** The revision of the runtime's own Katalog. */
  readonly current: string;
  /** The revision CRs outside a rollout keep, with its Katalog; undefined when there is none. */
  readonly previous?: { readonly revision: string; readonly katalog: Katalog | CompiledKatalog } | undefined;
  /** Which revision a CR gets; read at the start of each reconcile. Default: current. */
  readonly assign?: ((cr: KubeObject) => 'current' | 'previous') | undefined;
}
