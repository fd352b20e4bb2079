/**
 * A small least-recently-used map with per-entry expiry, for the hooks' result caches.
 */

interface Slot<V> {
  readonly value: V;
  readonly expiresAt: number;
}

/** LruCache keeps at most `maxEntries` values; reads refresh recency, expired values read as absent. */
export class LruCache<V> {
  readonly #max: number;
  readonly #map = new Map<string, Slot<V>>();

  constructor(maxEntries: number) {
    this.#max = Math.max(1, Math.floor(maxEntries));
  }

  /** size is the number of stored entries, expired or not. */
  get size(): number {
    return this.#map.size;
  }

  /** get returns the value stored under `key` when it has not expired at `now`. */
  get(key: string, now: number): V | undefined {
    const slot = this.#map.get(key);
    if (slot == null) return undefined;
    this.#map.delete(key);
    if (slot.expiresAt <= now) return undefined;
    this.#map.set(key, slot);
    return slot.value;
  }

  /** entry returns the value and its expiry time when it has not expired at `now`. */
  entry(key: string, now: number): { readonly value: V; readonly expiresAt: number } | undefined {
    const value = this.get(key, now);
    const slot = this.#map.get(key);
    return value === undefined || slot == null ? undefined : { value, expiresAt: slot.expiresAt };
  }

  /** set stores `value` until `expiresAt`, evicting the least recently used entry when full. */
  set(key: string, value: V, expiresAt: number): void {
    this.#map.delete(key);
    this.#map.set(key, { value, expiresAt });
    while (this.#map.size > this.#max) {
      const oldest = this.#map.keys().next();
      if (oldest.done === true) break;
      this.#map.delete(oldest.value);
    }
  }

  /** delete removes one key. */
  delete(key: string): void {
    this.#map.delete(key);
  }
}
