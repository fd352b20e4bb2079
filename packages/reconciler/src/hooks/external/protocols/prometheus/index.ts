/**
 * `protocol: prometheus` (docs/reference/katalog.md §15.1.1): a PromQL query over Prometheus' HTTP
 * API (`/api/v1/query`, or `/api/v1/query_range` with `range`), through the guarded HTTP path. The
 * result keeps upstream's shape: `result` is the canonical scalar (a scalar's value, a vector's
 * first series' value, a matrix's first series' last value), `raw` the whole parsed response; the
 * `prom*` template helpers read them.
 */
import { parseDuration } from '@orkestra/types';
import { NotRetryable, authorizationHeader, defineProtocol, parseJson } from '../protocol-unit.js';
import type { ProtocolAnswer } from '../protocol-unit.js';
import { isMap } from '../../../../is-map.js';

/** PROMETHEUS_ANSWER is the shape of Prometheus' HTTP API answer (`raw`, `json`). */
const PROMETHEUS_ANSWER = {
  fields: {
    status: 'text',
    // Every result type's `result` is a JSON array (a vector's samples, a scalar's [time, value]).
    data: { fields: { resultType: 'text', result: { list: 'any' } } },
    errorType: 'text',
    error: 'text',
    warnings: { list: 'text' },
    infos: { list: 'text' },
  },
} as const;

export const prometheusProtocol = defineProtocol({
  name: 'prometheus',
  reference: 'docs/reference/katalog.md §15.1.1',
  credential: 'sent as an HTTP header, as for `protocol: http` (`auth.header`, `auth.scheme`)',
  addressGuard: 'the HTTP protocol’s: every resolved address checked when connecting, redirects re-checked',
  errors:
    'an unreachable server, a timeout or a 5xx answer is retried; a query Prometheus refuses (4xx, `status: error` of type `bad_data`) is not',
  result: {
    result: 'text',
    raw: PROMETHEUS_ANSWER,
    status: 'number',
    body: 'text',
    json: PROMETHEUS_ANSWER,
    headers: { map: 'text' },
  },
  // Upstream's helpers (docs/reference/katalog.md §17.6); the template package holds their code.
  helpers: {
    promValue: ['result'],
    promAboveThreshold: ['result', 'number'],
    promBelowThreshold: ['result', 'number'],
    promSeriesCount: ['result'],
    promSum: ['result'],
    promMax: ['result'],
    promLabelValues: ['result', 'text'],
  },
  open: (services) => ({
    async call({ declaration, credential, signal }): Promise<ProtocolAnswer> {
      const url = queryUrl(declaration.url, declaration.query ?? '', declaration.range, services.clock.now());
      const headers: Record<string, string> = {
        'user-agent': 'orkestra',
        accept: 'application/json',
        ...declaration.headers,
      };
      const auth = authorizationHeader(declaration, credential);
      if (auth != null) headers[auth.name] = auth.value;
      const response = await services.http(
        {
          url,
          method: 'GET',
          headers,
          authHeader: auth?.name.toLowerCase(),
          declared: Object.keys(declaration.headers ?? {}).map((name) => name.toLowerCase()),
        },
        signal,
      );
      const parsed = parseJson(response.body);
      const answer = isMap(parsed) ? parsed : undefined;
      const base = { status: response.status, body: response.body, json: parsed, headers: response.headers };
      if (answer?.['status'] !== 'success') {
        const reason =
          answer == null
            ? `status ${response.status}, not a Prometheus API answer`
            : `${String(answer['errorType'] ?? 'error')}: ${String(answer['error'] ?? '')}`;
        return {
          ...base,
          ok: false,
          raw: answer ?? {},
          result: '',
          error: `prometheus: ${reason}`,
          retryable: response.status >= 500 || response.status === 429 || answer == null,
        };
      }
      const extracted = scalarOf(answer['data']);
      return {
        ...base,
        ok: extracted.error === '',
        raw: answer,
        result: extracted.value,
        error: extracted.error,
      };
    },
  }),
});

/**
 * queryUrl is the API URL: `url` may be Prometheus' base URL or already name the endpoint (behind
 * a proxy sub-path), as upstream reads it; a range query ends now and starts `range.duration` ago.
 */
function queryUrl(
  base: string,
  query: string,
  range: { readonly duration: string; readonly step: string } | undefined,
  nowMs: number,
): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new NotRetryable(`invalid URL ${JSON.stringify(base)}`);
  }
  const endpoint = range == null ? '/api/v1/query' : '/api/v1/query_range';
  if (!/\/api\/v1\/query(_range)?\/?$/.test(url.pathname))
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${endpoint}`;
  url.searchParams.set('query', query);
  if (range != null) {
    url.searchParams.set('start', String((nowMs - parseDuration(range.duration)) / 1000));
    url.searchParams.set('end', String(nowMs / 1000));
    url.searchParams.set('step', String(Math.max(1, parseDuration(range.step) / 1000)));
  }
  return url.toString();
}

/** scalarOf is the canonical scalar of an answer's `data`, and why there is none. */
function scalarOf(data: unknown): { readonly value: string; readonly error: string } {
  if (!isMap(data)) return { value: '', error: 'prometheus: answer without data' };
  const result = data['result'];
  const list = Array.isArray(result) ? (result as unknown[]) : [];
  const sample = (pair: unknown): string | undefined =>
    Array.isArray(pair) && typeof pair[1] === 'string' ? pair[1] : undefined;
  switch (data['resultType']) {
    case 'scalar':
    case 'string': {
      const value = sample(result);
      return value == null
        ? { value: '', error: 'prometheus: unexpected scalar format' }
        : { value, error: '' };
    }
    case 'vector': {
      if (list.length === 0) return { value: '', error: '' };
      const value = isMap(list[0]) ? sample(list[0]['value']) : undefined;
      return value == null
        ? { value: '', error: 'prometheus: unexpected vector format' }
        : { value, error: '' };
    }
    case 'matrix': {
      if (list.length === 0) return { value: '', error: '' };
      const values = isMap(list[0]) ? list[0]['values'] : undefined;
      const value = Array.isArray(values) ? sample(values[values.length - 1]) : undefined;
      return value == null
        ? { value: '', error: 'prometheus: unexpected matrix format' }
        : { value, error: '' };
    }
    default:
      return { value: '', error: `prometheus: unknown resultType ${JSON.stringify(data['resultType'])}` };
  }
}
