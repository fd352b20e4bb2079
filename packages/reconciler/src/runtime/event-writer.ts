/**
 * The EventWriter of the runtime (docs/reference/runtime.md §12): a direct `POST /api/v1/namespaces/<ns>/events`,
 * so writing an Event never needs discovery (core `v1` is fixed).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { RequestCounter } from '@orkestra/registry';
import type { EventWriter } from '../events/event-recorder.js';
import { sendRawRequest } from './raw-request.js';

/** CreateEventWriterOptions configures createEventWriter. */
export interface CreateEventWriterOptions {
  readonly kubeConfig: KubeConfig;
  /** Each Event is counted as `create Event`. */
  readonly requests?: RequestCounter | undefined;
  /** Per-request timeout. Default 30 000 ms. */
  readonly timeoutMs?: number | undefined;
  /** Called when a request ended, with its HTTP status (0 when none arrived) and duration. */
  readonly onRequest?: ((method: string, status: number, seconds: number) => void) | undefined;
}

/**
 * createEventWriter returns an EventWriter that POSTs each core v1 Event to its namespace, with
 * field manager `orkestra`; a failure rejects with a KubeApiError.
 *
 * @example
 * const events = new EventRecorder({ writer: createEventWriter({ kubeConfig }) });
 */
export function createEventWriter(options: CreateEventWriterOptions): EventWriter {
  return {
    async create(namespace, event) {
      options.requests?.record('create', 'Event');
      await sendRawRequest(
        {
          method: 'POST',
          path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
          query: { fieldManager: 'orkestra' },
          body: { ...event, metadata: { ...event.metadata, namespace } },
          contentType: 'application/json',
        },
        {
          kubeConfig: options.kubeConfig,
          timeoutMs: options.timeoutMs,
          onDone: (status, seconds) => options.onRequest?.('POST', status, seconds),
        },
      );
    },
  };
}
