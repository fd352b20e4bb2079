import { request as plainRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** HttpRequestOptions configures one {@link httpRequest} call. */
export interface HttpRequestOptions {
  /** HTTP method. Default `GET`. */
  readonly method?: string;
  /** PEM CA certificate trusted for `https:` URLs. */
  readonly ca?: string;
  /** PEM client certificate for mutual TLS. */
  readonly cert?: string;
  /** PEM client key for mutual TLS. */
  readonly key?: string;
  /** Request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Request body. */
  readonly body?: string;
  /** Abort after this many milliseconds. Default 5 000. */
  readonly timeoutMs?: number;
}

/** HttpResponse is the status and the whole body of a response. */
export interface HttpResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * httpRequest sends one request with Node's http/https modules (fetch cannot present a client
 * certificate without undici internals) and returns the status and body.
 */
export async function httpRequest(url: string, options: HttpRequestOptions = {}): Promise<HttpResponse> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : plainRequest;
  return await new Promise<HttpResponse>((resolve, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        timeout: options.timeoutMs ?? 5000,
        ...(options.ca == null ? {} : { ca: options.ca }),
        ...(options.cert == null ? {} : { cert: options.cert }),
        ...(options.key == null ? {} : { key: options.key }),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on('error', reject);
    if (options.body != null) req.write(options.body);
    req.end();
  });
}
