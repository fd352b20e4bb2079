/**
 * `protocol: http` (the default; docs/reference/katalog.md §15.1): one request with the declared
 * method, headers and body; the answer's status, body, parsed JSON and headers.
 */
import { authorizationHeader, defineProtocol, parseJson } from '../protocol-unit.js';
import type { ProtocolAnswer } from '../protocol-unit.js';

export const httpProtocol = defineProtocol({
  name: 'http',
  reference: 'docs/reference/katalog.md §15.1',
  credential: 'sent in `auth.header` (default `Authorization`) after `auth.scheme` (default `Bearer`)',
  addressGuard:
    'every address the host resolves to is checked when connecting, and again after each redirect; credentials and declared headers never follow a redirect to another origin',
  errors:
    'a transport failure, a timeout or a status outside `expectedStatus` fails the call; each is retried',
  result: {
    status: 'number',
    body: 'text',
    json: 'any',
    headers: { map: 'text' },
  },
  open: (services) => ({
    async call({ declaration, credential, signal }): Promise<ProtocolAnswer> {
      const method = (declaration.method ?? 'GET').toUpperCase();
      const body = bodyText(declaration.body);
      const headers: Record<string, string> = { 'user-agent': 'orkestra', ...declaration.headers };
      if (body != null && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
      const auth = authorizationHeader(declaration, credential);
      if (auth != null) headers[auth.name] = auth.value;
      const response = await services.http(
        {
          url: declaration.url,
          method,
          headers,
          body,
          authHeader: auth?.name.toLowerCase(),
          declared: Object.keys(declaration.headers ?? {}).map((name) => name.toLowerCase()),
        },
        signal,
      );
      const ok = statusAccepted(response.status, declaration.expectedStatus);
      return {
        ok,
        status: response.status,
        body: response.body,
        json: parseJson(response.body),
        headers: response.headers,
        error: ok
          ? ''
          : `unexpected status ${response.status} (expected ${describeExpected(declaration.expectedStatus)})`,
      };
    },
  }),
});

/** bodyText is the request body: a string as is, a map or list as JSON, absent as none. */
export function bodyText(body: unknown): string | undefined {
  if (body == null) return undefined;
  if (typeof body === 'string') return body;
  if (typeof body === 'object') return JSON.stringify(body);
  return String(body as number | boolean);
}

function statusAccepted(status: number, expected: number | readonly number[] | undefined): boolean {
  if (expected == null) return status >= 200 && status < 300;
  return typeof expected === 'number' ? status === expected : expected.includes(status);
}

function describeExpected(expected: number | readonly number[] | undefined): string {
  if (expected == null) return '2xx';
  return typeof expected === 'number' ? String(expected) : expected.join(' or ');
}
