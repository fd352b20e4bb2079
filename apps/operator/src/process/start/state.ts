/**
 * What the start-up parts of `startOperator` share (docs/adr/0044-operator-start-up-parts.md):
 * the running Katalog and its runtime (both change on reload), the rollout of its revision,
 * leadership and the shard this replica holds, and whether shutdown has begun.
 */
import type { RolloutController } from '@orkestra/reconciler/rollout';
import type { LoadedModuleExport, Katalog } from '@orkestra/types';
import type { ShardMember } from '../../sharding/shard-member.js';
import type { WebhookEndpoint } from '../../webhook/endpoint.js';
import type { OperatorRuntime } from '../operator-runtime.js';

/** OperatorState is the operator's mutable state, read live by every part. */
export class OperatorState {
  katalog: Katalog;
  /** The Katalog file's text as last loaded (a reload of the same text changes nothing). */
  katalogText: string;
  readonly katalogName: string;
  rollout: RolloutController | undefined;
  /** True while this replica leads (always without leader election). */
  leading: boolean;
  /** With `--sharding`: this replica's shard membership. */
  member: ShardMember | undefined;
  /** Module hooks loaded so far, by `<package>#<export>` (a reload adds the ones its Katalog names). */
  moduleHooks: ReadonlyMap<string, LoadedModuleExport> = new Map();
  /** The conversion webhook endpoint, when an entry converts versions (runtime.md §26). */
  webhook: WebhookEndpoint | undefined;
  #runtime: OperatorRuntime | undefined;
  readonly #stop = new AbortController();

  constructor(init: { readonly katalog: Katalog; readonly katalogText: string; readonly leading: boolean }) {
    this.katalog = init.katalog;
    this.katalogText = init.katalogText;
    this.katalogName = init.katalog.metadata.name;
    this.leading = init.leading;
  }

  /** True once shutdown began: nothing starts any more. */
  get stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  set stopping(value: boolean) {
    if (value) this.#stop.abort();
  }

  /** Aborted when shutdown begins: background work (the storage migration) stops between two writes. */
  get stopSignal(): AbortSignal {
    return this.#stop.signal;
  }

  /** The running Katalog's runtime (set once the first one is made). */
  get runtime(): OperatorRuntime {
    if (this.#runtime == null) throw new Error('the operator has no runtime yet');
    return this.#runtime;
  }

  set runtime(runtime: OperatorRuntime) {
    this.#runtime = runtime;
  }

  /** reconciling: this replica runs workers — it holds its shard Lease with `--sharding`, else it leads. */
  reconciling(): boolean {
    return this.member == null ? this.leading : this.member.holds();
  }
}
