/**
 * The EventWriter of the runtime (docs/reference/runtime.md §12): each core v1 Event is created
 * through the one API transport, the registry's KubeClient. Core `v1/Event` is in the client's
 * built-in resource table, so writing an Event never needs discovery.
 */
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { EventWriter } from '../events/event-recorder.js';

/**
 * createEventWriter returns an EventWriter that creates each Event in its namespace with
 * `client.create` (field manager `orkestra`, counted as `create Event`) and raises a repeated
 * Event's count with `client.mergePatch` (counted as `patch Event`; ADR 0042); a failure rejects
 * with the registry's KubeApiError.
 *
 * @example
 * const events = new EventRecorder({ writer: createEventWriter(createKubeClient({ kubeConfig })) });
 */
export function createEventWriter(client: Pick<KubeClient, 'create' | 'mergePatch'>): EventWriter {
  return {
    async create(namespace, event) {
      const created = await client.create({
        ...event,
        metadata: { ...event.metadata, namespace },
      } as unknown as KubeObject);
      return created.metadata.name;
    },
    async update(namespace, name, change) {
      await client.mergePatch({ apiVersion: 'v1', kind: 'Event', namespace, name }, { ...change });
    },
  };
}
