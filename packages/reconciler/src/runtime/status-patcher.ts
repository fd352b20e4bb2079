/**
 * A JSON merge patch to a CR's `status` subresource that carries the cached resource version
 * (docs/reference/runtime.md §11.4). The registry's `patchStatus` sends `{status}` only, without a precondition.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, RequestCounter } from '@orkestra/registry';
import { KubeApiError } from '../list-watch-client.js';
import { sendRawRequest } from './raw-request.js';

/** StatusPatchTarget names the CR whose status is patched. */
export interface StatusPatchTarget {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
  readonly resourceVersion?: string | undefined;
}

/** StatusPatcher sends one status merge patch and returns the written object; failures are KubeApiErrors (409 on a stale resource version). */
export type StatusPatcher = (
  target: StatusPatchTarget,
  status: Record<string, unknown>,
) => Promise<KubeObject>;

/**
 * createStatusPatcher returns a StatusPatcher over the cluster of a KubeConfig; each request is
 * counted as `patch <Kind>` in `requests` and reported to `onRequest` with its HTTP status.
 */
export function createStatusPatcher(options: {
  readonly kubeConfig: KubeConfig;
  readonly requests?: RequestCounter;
  readonly timeoutMs?: number;
  readonly onRequest?: (method: string, status: number, seconds: number) => void;
}): StatusPatcher {
  return async (target, status) => {
    const ns =
      target.namespace == null || target.namespace === ''
        ? ''
        : `/namespaces/${encodeURIComponent(target.namespace)}`;
    options.requests?.record('patch', target.kind);
    try {
      const object = (await sendRawRequest(
        {
          method: 'PATCH',
          path: `/apis/${target.group}/${target.version}${ns}/${target.plural}/${encodeURIComponent(target.name)}/status`,
          query: { fieldManager: 'orkestra' },
          body: {
            ...(target.resourceVersion == null
              ? {}
              : { metadata: { resourceVersion: target.resourceVersion } }),
            status,
          },
          contentType: 'application/merge-patch+json',
        },
        {
          kubeConfig: options.kubeConfig,
          timeoutMs: options.timeoutMs,
          onDone: (code, seconds) => options.onRequest?.('PATCH', code, seconds),
        },
      )) as KubeObject;
      return {
        ...object,
        apiVersion: object.apiVersion ?? `${target.group}/${target.version}`,
        kind: object.kind ?? target.kind,
      };
    } catch (error) {
      if (error instanceof KubeApiError) {
        throw new KubeApiError(`patch status of ${target.kind} ${target.name}: ${error.message}`, {
          statusCode: error.statusCode,
          ...(error.reason == null ? {} : { reason: error.reason }),
          ...(error.retryAfterMs == null ? {} : { retryAfterMs: error.retryAfterMs }),
        });
      }
      throw error;
    }
  };
}
