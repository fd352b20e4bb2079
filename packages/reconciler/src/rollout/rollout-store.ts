/**
 * Where revisions and rollout state live (docs/reference/runtime.md §24.1): ConfigMaps in the
 * operator's namespace. A revision is immutable and hash-named; the rollout state is one
 * ConfigMap per Katalog, written with resource-version preconditions (the operator and `ork
 * rollout` both write it).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { AlreadyExistsError, NotFoundError, createKubeClient } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { Katalog } from '@orkestra/types';
import { isNewerResourceVersion } from '../kube-object.js';
import type { RolloutState } from './plan.js';
import { RevisionLabel, revisionObject, revisionObjectName, rolloutObjectName } from './revision.js';

/** StoredRollout is the state with the resource version it was read at. */
export interface StoredRollout {
  readonly state: RolloutState;
  readonly resourceVersion: string;
}

/** RolloutStoreOptions configures a RolloutStore. */
export interface RolloutStoreOptions {
  readonly client: Pick<KubeClient, 'get' | 'create' | 'mergePatch'>;
  readonly namespace: string;
  readonly katalogName: string;
  /**
   * The Katalog's ConfigMaps from a watch (a RolloutWatch, ADR 0034): reads come from it and cost
   * no request. Default: none, every read is a GET (`ork rollout`).
   */
  readonly cache?: { get(name: string): KubeObject | undefined };
}

/** RolloutStore reads and writes one Katalog's revisions and rollout state. */
export class RolloutStore {
  readonly #o: RolloutStoreOptions;
  /** The last state this store wrote, newer than the cache until the watch delivers it. */
  #written: StoredRollout | undefined;

  constructor(options: RolloutStoreOptions) {
    this.#o = options;
  }

  #ref(name: string): { apiVersion: string; kind: string; namespace: string; name: string } {
    return { apiVersion: 'v1', kind: 'ConfigMap', namespace: this.#o.namespace, name };
  }

  /** saveRevision creates the revision's ConfigMap unless it exists (revisions never change). */
  async saveRevision(revision: string, katalog: Katalog, text: string): Promise<void> {
    if (this.#o.cache?.get(revisionObjectName(this.#o.katalogName, revision)) != null) return;
    try {
      await this.#o.client.create(revisionObject({ katalog, revision, text, namespace: this.#o.namespace }));
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
    }
  }

  /** loadRevision reads a revision's loaded Katalog; undefined when its ConfigMap is gone. */
  async loadRevision(revision: string): Promise<Katalog | undefined> {
    const name = revisionObjectName(this.#o.katalogName, revision);
    try {
      const object = this.#o.cache?.get(name) ?? (await this.#o.client.get(this.#ref(name)));
      const json = (object['data'] as Record<string, string> | undefined)?.['katalog.json'];
      return json == null ? undefined : (JSON.parse(json) as Katalog);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** read reads the rollout state; undefined when there is none yet. */
  async read(): Promise<StoredRollout | undefined> {
    if (this.#o.cache != null) {
      const object = this.#o.cache.get(rolloutObjectName(this.#o.katalogName));
      const cached = object == null ? undefined : parseStored(object);
      const written = this.#written;
      if (written == null) return cached;
      if (cached == null || isNewerResourceVersion(written.resourceVersion, cached.resourceVersion))
        return written;
      return cached;
    }
    try {
      const object = await this.#o.client.get(this.#ref(rolloutObjectName(this.#o.katalogName)));
      return parseStored(object);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * write stores the state: a create when `resourceVersion` is undefined, else a merge patch with
   * that resource version as precondition (ConflictError when someone wrote in between).
   */
  async write(state: RolloutState, resourceVersion: string | undefined): Promise<StoredRollout> {
    const name = rolloutObjectName(this.#o.katalogName);
    const data = { state: JSON.stringify(state), target: state.target, phase: state.phase };
    const written =
      resourceVersion == null
        ? await this.#o.client.create({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name,
              namespace: this.#o.namespace,
              labels: {
                'app.kubernetes.io/managed-by': 'orkestra',
                [RevisionLabel.Katalog]: this.#o.katalogName,
              },
            },
            data,
          })
        : await this.#o.client.mergePatch(this.#ref(name), { metadata: { resourceVersion }, data });
    this.#written = parseStored(written);
    return this.#written;
  }
}

function parseStored(object: KubeObject): StoredRollout {
  const text = (object['data'] as Record<string, string> | undefined)?.['state'] ?? '{}';
  return { state: JSON.parse(text) as RolloutState, resourceVersion: object.metadata.resourceVersion ?? '' };
}

/**
 * createRolloutStore is a RolloutStore over its own API client, with that client's request
 * counts (for benchmarks and `ork rollout`).
 */
export function createRolloutStore(options: {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly katalogName: string;
  /** Field manager of the writes. Default `orkestra`. */
  readonly fieldManager?: string;
}): { readonly store: RolloutStore; readonly client: KubeClient } {
  const client = createKubeClient({
    kubeConfig: options.kubeConfig,
    ...(options.fieldManager == null ? {} : { fieldManager: options.fieldManager }),
  });
  return {
    store: new RolloutStore({ client, namespace: options.namespace, katalogName: options.katalogName }),
    client,
  };
}
