/**
 * The Live API's `/api/v1/query` (docs/reference/runtime.md §18.6, ADR 0083): upstream's runtime
 * answers the Prometheus instant-query API from its own metrics, so an `external` call with
 * `protocol: prometheus` (or any Prometheus client) can read one operator's counters without a
 * Prometheus server. The answer is built from the process's metrics registry in memory — no
 * API-server request. A selector is answered: a metric name, label matchers, or both
 * (`workqueue_depth{controller="db"}`, `{__name__="up"}`); `=` and `!=` match. PromQL functions and
 * operators need a Prometheus server: they answer an empty vector with a warning, as upstream
 * answers them empty. Regular-expression matchers (`=~`, `!~`) are refused (`bad_data`), since a
 * pattern a caller sends is not run here.
 */

/** MetricSample is one series of the process's metrics at the time of reading: its exposed name (`_bucket`, `_sum`, `_count` for histograms), labels and value. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** MetricSamples reads the process's metrics (a scrape, in memory). */
export type MetricSamples = () => Promise<readonly MetricSample[]>;

/** LabelMatcher is one `label op "value"` of a selector. */
export interface LabelMatcher {
  readonly label: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

/** ParsedQuery is what `parseQuery` understood of `query`. */
export type ParsedQuery =
  | { readonly kind: 'selector'; readonly matchers: readonly LabelMatcher[] }
  | { readonly kind: 'unsupported'; readonly reason: string }
  | { readonly kind: 'bad'; readonly reason: string };

/** QUERY_LIMIT bounds the query text (Prometheus' own default is far larger; a selector is short). */
const QUERY_LIMIT = 4096;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/**
 * parseQuery reads an instant query as a series selector: `name`, `name{m, …}` or `{m, …}` where
 * each matcher is `label="value"` or `label!="value"` (double or single quotes, Go escapes).
 *
 * @example
 * parseQuery('workqueue_depth{controller="db"}')
 * // { kind: 'selector', matchers: [{label: '__name__', op: '=', value: 'workqueue_depth'}, {label: 'controller', op: '=', value: 'db'}] }
 */
function parseQuery(query: string): ParsedQuery {
  const text = query.trim();
  if (text === '') return { kind: 'bad', reason: 'query parameter is required' };
  if (text.length > QUERY_LIMIT)
    return { kind: 'bad', reason: `query is longer than ${QUERY_LIMIT} characters` };
  const brace = text.indexOf('{');
  const name = (brace < 0 ? text : text.slice(0, brace)).trim();
  const matchers: LabelMatcher[] = [];
  if (name !== '') {
    if (!NAME.test(name)) return unsupported(text);
    matchers.push({ label: '__name__', op: '=', value: name });
  }
  if (brace < 0) return { kind: 'selector', matchers };
  if (!text.endsWith('}')) return unsupported(text);
  const body = text.slice(brace + 1, -1);
  let at = 0;
  const skipSpace = (): void => {
    while (at < body.length && /\s/.test(body[at] ?? '')) at++;
  };
  for (;;) {
    skipSpace();
    if (at >= body.length) break;
    const label = LABEL.exec(body.slice(at))?.[0];
    if (label == null)
      return { kind: 'bad', reason: `expected a label name at ${JSON.stringify(body.slice(at, at + 20))}` };
    at += label.length;
    skipSpace();
    const op = /^(=~|!~|!=|=)/.exec(body.slice(at))?.[0];
    if (op == null) return { kind: 'bad', reason: `expected =, != after label ${label}` };
    if (op === '=~' || op === '!~')
      return {
        kind: 'bad',
        reason: `regular-expression matchers (${label}${op}…) are not answered here; match with = or !=, or ask a Prometheus server`,
      };
    at += op.length;
    skipSpace();
    const quoted = readQuoted(body, at);
    if (quoted == null) return { kind: 'bad', reason: `expected a quoted value after ${label}${op}` };
    at = quoted.end;
    matchers.push({ label, op: op as '=' | '!=', value: quoted.value });
    skipSpace();
    if (at >= body.length) break;
    if (body[at] !== ',')
      return { kind: 'bad', reason: `expected , or } after ${label}${op}${JSON.stringify(quoted.value)}` };
    at++;
  }
  if (!matchers.some((m) => m.op === '=' && m.value !== ''))
    return { kind: 'bad', reason: 'vector selector must contain at least one non-empty matcher' };
  return { kind: 'selector', matchers };
}

function unsupported(text: string): ParsedQuery {
  return {
    kind: 'unsupported',
    reason: `only a series selector (a metric name and label matchers) is answered from the operator's own metrics; ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)} needs a Prometheus server`,
  };
}

/** readQuoted reads a "…" or '…' string with Go escapes (\\, \", \', \n, \t) from `at`. */
function readQuoted(text: string, at: number): { value: string; end: number } | undefined {
  const quote = text[at];
  if (quote !== '"' && quote !== "'") return undefined;
  let value = '';
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === quote) return { value, end: i + 1 };
    if (c === '\\') {
      const next = text[++i];
      if (next == null) return undefined;
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      continue;
    }
    value += c;
  }
  return undefined;
}

/** matches tells whether a sample's labels (with `__name__`) satisfy every matcher; an absent label is ''. */
function matches(sample: MetricSample, matchers: readonly LabelMatcher[]): boolean {
  return matchers.every((m) => {
    const actual = m.label === '__name__' ? sample.name : (sample.labels[m.label] ?? '');
    return m.op === '=' ? actual === m.value : actual !== m.value;
  });
}

/** promValue prints a sample value as Prometheus does: `NaN`, `+Inf`, `-Inf`, else the shortest decimal. */
function promValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** QueryAnswer is the status code and body of an `/api/v1/query` answer (Prometheus' HTTP API shape). */
export interface QueryAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** QueryOptions are what `answerQuery` needs besides the request's parameters. */
export interface QueryOptions {
  readonly samples: MetricSamples;
  /** Whether the caller may see a series (its entry labels name an entry the caller may list). */
  readonly visible: (sample: MetricSample) => boolean;
  /** Epoch ms. */
  readonly now: number;
}

/**
 * answerQuery answers `GET /api/v1/query?query=…[&time=…]` in Prometheus' shape: `{status:
 * "success", data: {resultType: "vector", result: [{metric, value: [<unix s>, "<value>"]}]},
 * warnings?}`, or `{status: "error", errorType: "bad_data", error}` with 400. `time` is not
 * evaluated (the answer is the current value) and says so in `warnings`.
 */
export async function answerQuery(params: URLSearchParams, options: QueryOptions): Promise<QueryAnswer> {
  const parsed = parseQuery(params.get('query') ?? '');
  if (parsed.kind === 'bad')
    return { status: 400, body: { status: 'error', errorType: 'bad_data', error: parsed.reason } };
  const warnings: string[] = [];
  if (params.has('time')) warnings.push('time is not evaluated: the answer is the current value');
  if (parsed.kind === 'unsupported') {
    warnings.push(parsed.reason);
    return { status: 200, body: success([], warnings) };
  }
  const at = options.now / 1000;
  const result = (await options.samples())
    .filter((sample) => matches(sample, parsed.matchers) && options.visible(sample))
    .map((sample) => ({
      metric: { __name__: sample.name, ...sample.labels },
      value: [at, promValue(sample.value)],
    }));
  return { status: 200, body: success(result, warnings) };
}

function success(result: readonly unknown[], warnings: readonly string[]): Record<string, unknown> {
  return {
    status: 'success',
    data: { resultType: 'vector', result },
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}
