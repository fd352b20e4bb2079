import type { DeleteOptions, ObjectWriter } from './kube-client.js';
import { ConflictError, NotFoundError } from './errors.js';
import type { ObjectRef } from './kube-object.js';
import type { RemoveResult } from './operation-result.js';

/** RemoveOptions controls removeObject. */
export interface RemoveOptions extends DeleteOptions {
  /** The API client deletes go through. */
  readonly client: Pick<ObjectWriter, 'delete'>;
}

/**
 * removeObject deletes one object idempotently: NotFound is success (`absent`). Background
 * propagation by default; with `uid` set the delete carries a UID precondition, and a failed
 * precondition (the name now belongs to a different object) also counts as `absent`.
 */
export async function removeObject(ref: ObjectRef, options: RemoveOptions): Promise<RemoveResult> {
  try {
    await options.client.delete(ref, {
      propagationPolicy: options.propagationPolicy ?? 'Background',
      ...(options.uid == null ? {} : { uid: options.uid }),
    });
    return 'deleted';
  } catch (err) {
    if (err instanceof NotFoundError) return 'absent';
    if (err instanceof ConflictError && options.uid != null) return 'absent';
    throw err;
  }
}
