/**
 * One shard of a sharded operator (docs/reference/runtime.md §25, ADR 0045): the runtime sees only
 * the CRs and children labelled with its shard ID, and hands a CR over when the sharder drains it.
 */
import type { KubeObject } from '@orkestra/registry';
import { OrkestraLabel } from '@orkestra/types';

/** RuntimeShard makes a KatalogRuntime one shard of a sharded operator (ADR 0045). */
export interface RuntimeShard {
  /** This replica's shard ID: the CR and child informers select `orkestra.konductor.io/shard=<id>`. */
  readonly id: string;
  /**
   * Acknowledges the drain of a CR (the sharder set `orkestra.konductor.io/drain`), called instead
   * of a reconcile, so never while a reconcile of the CR runs: it removes the shard and drain labels.
   * A failure is retried like a failed reconcile.
   */
  readonly onDrain: (cr: KubeObject) => Promise<void>;
}

/** shardSelector is the label selector of a shard's informers. */
export function shardSelector(shard: RuntimeShard | undefined): string | undefined {
  return shard == null ? undefined : `${OrkestraLabel.Shard}=${shard.id}`;
}

/** isDraining tells whether the sharder asked this shard to hand the CR over. */
export function isDraining(cr: KubeObject): boolean {
  const labels = cr.metadata.labels;
  return labels != null && labels[OrkestraLabel.Drain] != null && labels[OrkestraLabel.Drain] !== '';
}
