/**
 * The consistent-hash ring of a sharded operator (docs/reference/runtime.md §25, ADR 0045): every
 * shard owns `virtualNodes` points on a 32-bit circle, and a CR belongs to the shard of the first
 * point at or after its key's hash. Adding a shard takes only the keys that now fall on its points;
 * removing one hands only its keys to the next points. Deterministic: no clock, no randomness.
 */
import { createHash } from 'node:crypto';

/** DEFAULT_VIRTUAL_NODES is the number of points per shard: 10,000 keys spread within ±7 % of the fair share for 1–4 shards (ring.test.ts bounds it at ±15 %). */
const DEFAULT_VIRTUAL_NODES = 256;

/** hash32 is the first 32 bits of the SHA-256 of `text`, as an unsigned integer. */
export function hash32(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** ObjectKeyParts names one sharded object: what its hash key is made of. */
export interface ObjectKeyParts {
  /** The API group (`''` for the core group). */
  readonly group: string;
  readonly kind: string;
  /** Empty for cluster-scoped objects. */
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** objectKey is the ring key of an object: `group/kind/namespace/name` (no UID, so it is known before creation). */
export function objectKey(parts: ObjectKeyParts): string {
  return `${parts.group}/${parts.kind}/${parts.namespace ?? ''}/${parts.name}`;
}

/**
 * HashRing maps keys to shard IDs.
 *
 * @example
 * const ring = new HashRing(['shard-a', 'shard-b']);
 * ring.owner(objectKey({ group: 'shop.example.com', kind: 'Website', namespace: 'web', name: 'hello' }));
 */
export class HashRing {
  /** The shard IDs on the ring, sorted. */
  readonly shards: readonly string[];
  readonly #points: Uint32Array;
  readonly #owners: string[];

  constructor(shards: Iterable<string>, virtualNodes = DEFAULT_VIRTUAL_NODES) {
    this.shards = [...new Set(shards)].sort();
    const points: { at: number; shard: string }[] = [];
    for (const shard of this.shards)
      for (let i = 0; i < virtualNodes; i++) points.push({ at: hash32(`${shard}#${i}`), shard });
    // Ties (vanishingly rare) go to the smaller shard ID, so every replica builds the same ring.
    points.sort((a, b) => a.at - b.at || (a.shard < b.shard ? -1 : a.shard > b.shard ? 1 : 0));
    this.#points = Uint32Array.from(points.map((p) => p.at));
    this.#owners = points.map((p) => p.shard);
  }

  /** owner is the shard of a key, or undefined when the ring is empty. */
  owner(key: string): string | undefined {
    return this.ownerOfHash(hash32(key));
  }

  /** ownerOfHash is the shard of a precomputed `hash32` of a key. */
  ownerOfHash(hash: number): string | undefined {
    const points = this.#points;
    if (points.length === 0) return undefined;
    let low = 0;
    let high = points.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((points[mid] ?? 0) < hash) low = mid + 1;
      else high = mid;
    }
    return this.#owners[low === points.length ? 0 : low];
  }
}
