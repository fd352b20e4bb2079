/**
 * A JSON merge patch to a CR's `status` subresource that carries the cached resource version
 * (runtime.md §11.4). The registry's `patchStatus` sends `{status}` only, without a precondition.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, RequestCounter } from '@orkestra/registry';
import { KubeApiError } from '../list-watch-client.js';

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
 * counted as `patch <Kind>` in `requests`.
 */
export function createStatusPatcher(options: {
  readonly kubeConfig: KubeConfig;
  readonly requests?: RequestCounter;
  readonly timeoutMs?: number;
}): StatusPatcher {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return async (target, status) => {
    const cluster = options.kubeConfig.getCurrentCluster();
    if (cluster == null) throw new Error('the kubeconfig has no current cluster');
    const ns =
      target.namespace == null || target.namespace === ''
        ? ''
        : `/namespaces/${encodeURIComponent(target.namespace)}`;
    const path = `/apis/${target.group}/${target.version}${ns}/${target.plural}/${encodeURIComponent(target.name)}/status`;
    const url = new URL(`${cluster.server.replace(/\/+$/, '')}${path}`);
    url.searchParams.set('fieldManager', 'orkestra');
    const body = JSON.stringify({
      ...(target.resourceVersion == null ? {} : { metadata: { resourceVersion: target.resourceVersion } }),
      status,
    });
    const requestOptions: https.RequestOptions = {
      method: 'PATCH',
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port,
      path: url.pathname + url.search,
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/merge-patch+json',
        'Content-Length': Buffer.byteLength(body),
      },
      signal: AbortSignal.timeout(timeoutMs),
    };
    await options.kubeConfig.applyToHTTPSOptions(requestOptions);
    const request =
      url.protocol === 'http:' ? (http.request as unknown as typeof https.request) : https.request;
    options.requests?.record('patch', target.kind);
    return new Promise<KubeObject>((resolve, reject) => {
      const req = request(requestOptions, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code >= 300) {
            let message = `HTTP ${code}`;
            let reason: string | undefined;
            try {
              const parsed = JSON.parse(text) as { message?: unknown; reason?: unknown };
              if (typeof parsed.message === 'string') message = `HTTP ${code}: ${parsed.message}`;
              if (typeof parsed.reason === 'string') reason = parsed.reason;
            } catch {
              // not a Status body
            }
            reject(
              new KubeApiError(`patch status of ${target.kind} ${target.name}: ${message}`, {
                statusCode: code,
                ...(reason == null ? {} : { reason }),
              }),
            );
            return;
          }
          try {
            const object = JSON.parse(text) as KubeObject;
            resolve({
              ...object,
              apiVersion: object.apiVersion ?? `${target.group}/${target.version}`,
              kind: object.kind ?? target.kind,
            });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  };
}
