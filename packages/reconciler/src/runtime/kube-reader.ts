/**
 * The read-only Kubernetes access providers and external-call auth get (docs/reference/runtime.md §14.4, §14.6):
 * `GET` of Secrets and ConfigMaps, each object kept for 30 s, 404 as undefined, restricted to the
 * CR's namespace for namespaced CRs. Nothing here writes.
 */
import { NotFoundError } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { KubeReader } from '@orkestra/types';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';

/** KubeReadCacheOptions configures a KubeReadCache. */
export interface KubeReadCacheOptions {
  /** Only `get` is used. */
  readonly client: Pick<KubeClient, 'get'>;
  /** Source of time. Default `systemClock`. */
  readonly clock?: Clock;
  /** How long an object (or its absence) is kept. Default 30 000 ms. */
  readonly ttlMs?: number;
}

/**
 * KubeReadCache reads Secrets and ConfigMaps with one `GET` per object per `ttlMs`, shared by the
 * whole process. `readerFor` hands out a KubeReader restricted to one namespace.
 *
 * @example
 * const reads = new KubeReadCache({ client });
 * const kube = reads.readerFor('shop'); // a namespaced CR's reader
 * await kube.getConfigMap('shop', 'settings');
 */
export class KubeReadCache {
  readonly #client: Pick<KubeClient, 'get'>;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #entries = new Map<
    string,
    { readonly at: number; readonly value: Promise<KubeObject | undefined> }
  >();
  #gets = 0;

  constructor(options: KubeReadCacheOptions) {
    this.#client = options.client;
    this.#clock = options.clock ?? systemClock;
    this.#ttlMs = options.ttlMs ?? 30_000;
  }

  /** gets is the number of `GET` requests sent, cumulative. */
  get gets(): number {
    return this.#gets;
  }

  /** secretValue returns one decoded key of a Secret (undefined when the Secret or the key is absent); the `readSecret` of external calls. */
  async secretValue(namespace: string, name: string, key: string): Promise<string | undefined> {
    const data = await this.#read('Secret', namespace, name);
    const encoded = (data?.['data'] as Record<string, string> | undefined)?.[key];
    return encoded == null ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
  }

  /** configMapValue returns one key of a ConfigMap (`data`, else `binaryData` decoded; undefined when absent). */
  async configMapValue(namespace: string, name: string, key: string): Promise<string | undefined> {
    const map = await this.#read('ConfigMap', namespace, name);
    const text = (map?.['data'] as Record<string, string> | undefined)?.[key];
    if (text != null) return text;
    const binary = (map?.['binaryData'] as Record<string, string> | undefined)?.[key];
    return binary == null ? undefined : Buffer.from(binary, 'base64').toString('utf8');
  }

  /**
   * readerFor returns a KubeReader. With a namespace, reads elsewhere throw (a namespaced CR's
   * provider sees only its own namespace); undefined allows any namespace (cluster-scoped CRs).
   */
  readerFor(namespace: string | undefined): KubeReader {
    const check = (wanted: string): void => {
      if (namespace != null && wanted !== namespace) {
        throw new Error(
          `reading namespace ${wanted} is not allowed: this CR's providers may read only namespace ${namespace}`,
        );
      }
    };
    return {
      getSecret: async (ns, name) => {
        check(ns);
        const secret = await this.#read('Secret', ns, name);
        if (secret == null) return undefined;
        const data = (secret['data'] as Record<string, string> | undefined) ?? {};
        const out: Record<string, Uint8Array> = {};
        for (const [k, v] of Object.entries(data)) out[k] = new Uint8Array(Buffer.from(v, 'base64'));
        return out;
      },
      getConfigMap: async (ns, name) => {
        check(ns);
        const map = await this.#read('ConfigMap', ns, name);
        if (map == null) return undefined;
        return { ...((map['data'] as Record<string, string> | undefined) ?? {}) };
      },
    };
  }

  #read(kind: 'Secret' | 'ConfigMap', namespace: string, name: string): Promise<KubeObject | undefined> {
    const key = `${kind}/${namespace}/${name}`;
    const now = this.#clock.now();
    const cached = this.#entries.get(key);
    if (cached != null && now - cached.at < this.#ttlMs) return cached.value;
    this.#gets++;
    const value = this.#client.get({ apiVersion: 'v1', kind, namespace, name }).then(
      (object) => object,
      (error: unknown) => {
        if (error instanceof NotFoundError) return undefined;
        this.#entries.delete(key); // errors are not kept
        throw error;
      },
    );
    this.#entries.set(key, { at: now, value });
    if (this.#entries.size > 5000) {
      for (const [k, e] of this.#entries) if (now - e.at >= this.#ttlMs) this.#entries.delete(k);
    }
    return value;
  }
}
