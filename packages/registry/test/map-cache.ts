import type { GroupVersionKind, KubeClient, KubeObject, ObjectReader, ObjectRef } from '../src/index.js';
import { Labels, refOf } from '../src/index.js';

const keyOf = (ref: ObjectRef): string => `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;

/**
 * MapCache is the test implementation of the cache seam (ObjectReader): a map filled from the
 * objects returned by writes (read-after-write) and, to simulate a watch event, from an explicit GET.
 */
export class MapCache implements ObjectReader {
  readonly #objects = new Map<string, KubeObject>();

  get(ref: ObjectRef): KubeObject | undefined {
    return this.#objects.get(keyOf(ref));
  }

  listOwned(ownerUid: string, kind: GroupVersionKind): readonly KubeObject[] {
    return [...this.#objects.values()].filter(
      (o) =>
        o.apiVersion === kind.apiVersion &&
        o.kind === kind.kind &&
        o.metadata.labels?.[Labels.OwnerUid] === ownerUid,
    );
  }

  /** put stores an object returned by a write. */
  readonly put = (obj: KubeObject): void => {
    this.#objects.set(keyOf(refOf(obj)), obj);
  };

  /** forget drops an object (a delete event). */
  forget(ref: ObjectRef): void {
    this.#objects.delete(keyOf(ref));
  }

  /** refresh re-reads an object from the API server, as a watch event would deliver it. */
  async refresh(client: KubeClient, ref: ObjectRef): Promise<void> {
    this.put(await client.get(ref));
  }
}
