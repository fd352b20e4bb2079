/**
 * The EventWriter of the runtime (docs/reference/runtime.md §12): each core v1 Event is created
 * through the one API transport, the registry's KubeClient. Core `v1/Event` is in the client's
 * built-in resource table, so writing an Event never needs discovery.
 */
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { EventWriter } from '../events/event-recorder.js';

/**
 * createEventWriter returns an EventWriter that creates each Event in its namespace with
 * `client.create` (field manager `orkestra`, counted as `create Event`); a failure rejects with
 * the registry's KubeApiError.
 *
 * @example
 * const events = new EventRecorder({ writer: createEventWriter(createKubeClient({ kubeConfig })) });
 */
export function createEventWriter(client: Pick<KubeClient, 'create'>): EventWriter {
  return {
    async create(namespace, event) {
      await client.create({ ...event, metadata: { ...event.metadata, namespace } } as unknown as KubeObject);
    },
  };
}
