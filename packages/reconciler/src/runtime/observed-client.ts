/**
 * A KubeClient that reports every call's HTTP method, status and duration
 * (`rest_client_requests_total`, `rest_client_request_duration_seconds`).
 */
import type { KubeClient } from '@orkestra/registry';

/** RequestObserver receives one ended API call: HTTP method, status code (0 when none arrived) and seconds. */
export type RequestObserver = (method: string, status: number, seconds: number) => void;

/**
 * observeKubeClient wraps a KubeClient so each call is reported once when it ends. A paginated
 * `list` is reported as one GET; `discover` is not reported (it is cached and answered without a
 * request for built-in kinds).
 *
 * @example
 * const client = observeKubeClient(createKubeClient({ kubeConfig }), (method, status) => counts.push(`${method} ${status}`));
 */
export function observeKubeClient(client: KubeClient, onRequest: RequestObserver): KubeClient {
  const timed = async <T>(
    method: string,
    run: () => Promise<T>,
    statusOf: (value: T) => number,
  ): Promise<T> => {
    const started = performance.now();
    try {
      const value = await run();
      onRequest(method, statusOf(value), (performance.now() - started) / 1000);
      return value;
    } catch (error) {
      onRequest(method, statusOfError(error), (performance.now() - started) / 1000);
      throw error;
    }
  };
  const ok = (): number => 200;
  return {
    requests: client.requests,
    fieldManager: client.fieldManager,
    get: (ref) => timed('GET', () => client.get(ref), ok),
    list: (kind, options) => timed('GET', () => client.list(kind, options), ok),
    create: (obj) =>
      timed(
        'POST',
        () => client.create(obj),
        () => 201,
      ),
    apply: (obj, options) =>
      timed(
        'PATCH',
        () => client.apply(obj, options),
        (result) => (result.created ? 201 : 200),
      ),
    delete: (ref, options) => timed('DELETE', () => client.delete(ref, options), ok),
    mergePatch: (ref, patch, options) => timed('PATCH', () => client.mergePatch(ref, patch, options), ok),
    patchStatus: (ref, status, options) => timed('PATCH', () => client.patchStatus(ref, status, options), ok),
    discover: (kind) => client.discover(kind),
  };
}

function statusOfError(error: unknown): number {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status;
  if (typeof status === 'number') return status;
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : 0;
}
