import { request } from 'node:https';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** RawResponse is a response of the API server with the `Warning` headers it sent. */
export interface RawResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** The text of each `Warning: 299 - "…"` header. */
  readonly warnings: readonly string[];
}

function warningText(header: string): string {
  const match = /^\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(header);
  return match?.[1]?.replace(/\\(.)/g, '$1') ?? header;
}

/**
 * parseBody reads a JSON answer; a text one (the API server's `404 page not found` for a path it
 * does not route at that moment) is `{ text }`, so a caller sees it instead of an uncaught throw.
 */
function parseBody(text: string): Record<string, unknown> {
  if (text === '') return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}

/** How long {@link kubeRequest} waits for an answer before it rejects (a stuck request fails, never hangs). */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * kubeRequest sends one JSON request to the API server with the kubeconfig's credentials and
 * returns the status, the parsed body and the Warning headers (which the typed clients drop).
 * It rejects when no answer has come within `timeoutMs` (default 30 s).
 */
export async function kubeRequest(
  kubeConfig: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<RawResponse> {
  const server = new URL(kubeConfig.getCurrentCluster()?.server ?? '');
  const options: RequestOptions = {
    method,
    hostname: server.hostname,
    port: server.port,
    path,
    headers: {
      'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
      accept: 'application/json',
    },
    agent: false,
  };
  await kubeConfig.applyToHTTPSOptions(options);
  return await new Promise<RawResponse>((resolve, reject) => {
    const req = request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = res.headers['warning'];
        const headers = raw == null ? [] : Array.isArray(raw) ? raw : [raw];
        // Node joins repeated Warning headers with ", "; split at the start of each "299 - ".
        const warnings = headers.flatMap((h) => h.split(/, (?=\d{3} \S+ ")/)).map(warningText);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          body: parseBody(text),
          warnings,
        });
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}
