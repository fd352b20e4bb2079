/**
 * The Live API (docs/reference/runtime.md §18.6, ADR 0043): upstream's read-only paths and answer
 * shapes, served on the cross-read port from the informer caches and the process's own counters —
 * no API-server request per read. Every request passes `authorize` (TokenReview +
 * SubjectAccessReview) before anything is revealed; only entries with `crossAccess: true` are served.
 *
 * | path                                              | answer           | access review           |
 * | ------------------------------------------------- | ---------------- | ----------------------- |
 * | `/katalog`                                        | KatalogSummary   | `list`, per entry shown |
 *
 * `list` is reviewed in `?namespace=` when given, else in the operator's watched namespace when it
 * is pinned to one, else cluster-wide.
 * | `/katalog/<crd>`                                  | EntryInfo        | `list`                  |
 * | `/katalog/<crd>/health`                           | EntryHealth      | `list`                  |
 * | `/katalog/<crd>/cr[?field=a.b&namespace=ns&labelSelector=a=b&detail=true]` | CrList | `list` (in `namespace`) |
 * | `/katalog/<crd>/cr/[<ns>/]<name>`                 | CrDetail         | `get` that CR           |
 * | `/katalog/<crd>/cr/[<ns>/]<name>/events`          | CrEvents         | `get` that CR           |
 * | `/katalog/raw`, `/katalog/enriched`               | KatalogDocument  | `list`, per entry shown |
 * | `/katalog/<crd>/raw`, `/katalog/<crd>/enriched`   | KatalogEntry     | `list`                  |
 * | `/api/v1/query?query=<selector>`                  | Prometheus query | `list`, per entry shown |
 * | `/api/v1/resources/<Kind>/<ns>[/<name>]`          | stored CR(s)     | `list` / `get`          |
 *
 * Every `/katalog` path is also served under `/catalog` (upstream's newest generation), with its
 * names added beside ours: `isLeader` by `isKonductor`, `InrunReady` by `OrkReady` (ADR 0083).
 *
 * The JSON Schema of every answer is docs/reference/live-api.schema.json; of `/api/v1/query`,
 * docs/reference/live-api-query.schema.json.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../kube-object.js';
import { OrkestraLabel } from '@orkestra/types';
import type { Lifecycle } from '@orkestra/types';
import type { CrossAuthorize, CrossReadTarget } from './cross-handler.js';
import { katalogDocument, katalogEntry } from './live-api-katalog.js';
import type { LiveKatalogDocuments } from './live-api-katalog.js';
import { answerQuery } from './live-api-query.js';
import type { MetricSample, MetricSamples } from './live-api-query.js';

/** LiveEvent is one Event this process recorded about a CR (kept in memory, newest last). */
export interface LiveEvent {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  /** Epoch ms of the last time it was recorded. */
  readonly lastSeen: number;
  readonly firstSeen: number;
  readonly count: number;
}

/** LiveHealth is what the runtime knows of an entry's reconciles. */
export interface LiveHealth {
  readonly synced: boolean;
  readonly workersStarted: boolean;
  readonly reconciles: number;
  readonly successes: number;
  readonly consecutiveFailures: number;
  readonly lastSuccessAt: number | undefined;
  readonly lastError: string;
  readonly queueDepth: number;
  readonly workers: number;
  readonly activeWorkers: number;
  /** True when a `dependsOn` target is not ready. */
  readonly unhealthyDependencies: boolean;
}

/** LiveChildRef names one child of a CR, as `status.inventory` records it. */
export interface LiveChildRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** LiveChildReadiness is a child's readiness as its kind's module judges it from the child cache. */
export interface LiveChildReadiness {
  readonly ready: boolean;
  /** The kstatus state (`Current`, `InProgress`, `Failed`, `NotFound`, `Terminating`). */
  readonly state: string;
  /** Why, e.g. `1/2 replicas available`; '' when there is nothing to say. */
  readonly reason: string;
}

/** LiveApiEntry is one CRD entry as the Live API sees it. */
export interface LiveApiEntry {
  readonly name: string;
  readonly crossAccess: boolean;
  readonly namespaced: boolean;
  readonly apiTypes: {
    readonly group: string;
    readonly version: string;
    readonly kind: string;
    readonly plural: string;
  };
  /** The resync interval as written (`30s`). */
  readonly resync: string;
  /**
   * Failed reconciles in a row before the entry's state is `degraded` (`queue.degradeThreshold`,
   * docs/reference/katalog.md §20); default (and 0) 1.
   */
  readonly degradeThreshold?: number;
  /** `configured` when the Katalog sets `workers`, `autoscaler` while an autoscaler overrides it. */
  readonly workersSource: 'default' | 'configured' | 'autoscaler';
  health(): LiveHealth;
  /** The entry's autoscaler: its last decision and why (docs/reference/runtime.md §15); undefined without `autoscale`. */
  autoscale?(): Readonly<Record<string, unknown>> | undefined;
  list(): readonly KubeObject[];
  get(namespace: string | undefined, name: string): KubeObject | undefined;
  events(namespace: string | undefined, name: string): readonly LiveEvent[];
  /**
   * A child's readiness from the child caches, judged by its kind's module; undefined when no cache
   * holds that kind (its readiness is not known in memory). Default: readiness is not known.
   */
  childReadiness?(child: LiveChildRef): LiveChildReadiness | undefined;
}

/** LiveApiOptions configures createLiveApiHandler. */
export interface LiveApiOptions {
  /** The Katalog's name, version and `lifecycle` (docs/reference/katalog.md §2.5), answered by `/katalog`. */
  readonly katalog: {
    readonly name: string;
    readonly version?: string | undefined;
    readonly lifecycle?: Lifecycle | undefined;
  };
  readonly entries: () => ReadonlyMap<string, LiveApiEntry>;
  /** Whether this replica runs the workers (upstream's `isKonductor`). */
  readonly isKonductor: () => boolean;
  /** Whether every informer has its first list (upstream's `OrkReady`). */
  readonly ready: () => boolean;
  readonly authorize: CrossAuthorize;
  /**
   * The one namespace the operator watches, if it is pinned to one: lists, health and summaries are
   * then access-reviewed in that namespace (every CR served is there), not cluster-wide.
   */
  readonly namespace?: string | undefined;
  /** The Katalog as written and as loaded, for `/katalog/raw` and `/katalog/enriched`. Default: both answer 404. */
  readonly documents?: () => LiveKatalogDocuments;
  /** Epoch ms. Default Date.now. */
  readonly now?: () => number;
  /** When the process started, epoch ms (for `startedAt` and `uptime`). Default the creation time. */
  readonly startedAt?: number;
  /** The process's metrics, for `/api/v1/query`. Default: `/api/v1/query` answers 404. */
  readonly metrics?: MetricSamples;
}

/** QUERY_PATH is upstream's Prometheus instant-query path (ADR 0083). */
const QUERY_PATH = '/api/v1/query';

/** RESOURCES_PATH is the read half of upstream's gateway resource API (ADR 0083). */
const RESOURCES_PATH = '/api/v1/resources/';

/** ENTRY_LABELS are the metric labels whose value is an entry name (runtime.md §18.2). */
const ENTRY_LABELS = ['controller', 'name'] as const;

/** LiveApiHandler answers a request under `/katalog` and resolves true; otherwise it resolves false and writes nothing. */
export type LiveApiHandler = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

type State = 'healthy' | 'degraded' | 'pending';

/**
 * createLiveApiHandler returns the Live API's request handler. Paths under `/katalog/crds/` are left
 * to the object-read handler (runtime.md §18.5).
 *
 * @example
 * const live = createLiveApiHandler({ katalog, entries, isKonductor, ready, authorize });
 * if (!(await cross(req, res)) && !(await live(req, res))) notFound(res);
 */
export function createLiveApiHandler(options: LiveApiOptions): LiveApiHandler {
  const now = options.now ?? Date.now;
  const startedAt = options.startedAt ?? now();
  return async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://live.invalid');
    const path = url.pathname;
    const prefix = path === '/catalog' || path.startsWith('/catalog/') ? '/catalog' : '/katalog';
    const query = path === QUERY_PATH;
    const resources = path.startsWith(RESOURCES_PATH);
    if (!query && !resources && path !== prefix && !path.startsWith(`${prefix}/`)) return false;
    if (path.startsWith('/katalog/crds/')) return false;
    // Under `/catalog`, upstream's newest names are added beside ours (ADR 0083).
    const out = (status: number, body: Record<string, unknown>, headers?: Record<string, string>): void =>
      send(response, request, status, prefix === '/catalog' ? withInrunNames(body) : body, headers);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      out(405, { error: 'method not allowed; use GET' }, { allow: 'GET, HEAD' });
      return true;
    }
    let segments: string[];
    try {
      segments = path
        .slice(prefix.length)
        .split('/')
        .filter((s) => s !== '')
        .map((s) => decodeURIComponent(s));
    } catch {
      out(404, { error: 'malformed path' });
      return true;
    }
    const all = options.entries();
    const served = (name: string): LiveApiEntry | undefined => {
      const entry = all.get(name);
      return entry?.crossAccess === true ? entry : undefined;
    };
    const refuse = async (target: CrossReadTarget | undefined): Promise<boolean> => {
      const decision = await options.authorize(request, target);
      if (decision.ok) return false;
      out(decision.status, { error: decision.message });
      return true;
    };

    // The entries with crossAccess the caller may list (after authenticating).
    const listable = async (): Promise<LiveApiEntry[]> => {
      const shown: LiveApiEntry[] = [];
      for (const entry of [...all.values()].filter((e) => e.crossAccess)) {
        const decision = await options.authorize(request, target(entry, 'list', options.namespace ?? '', ''));
        if (decision.ok) shown.push(entry);
      }
      return shown;
    };

    if (resources) {
      await gatewayResources(
        path.slice(RESOURCES_PATH.length),
        url.searchParams,
        [...all.values()],
        refuse,
        out,
      );
      return true;
    }

    if (query) {
      // The process's own metrics (ADR 0083): authenticate, then only series of entries the caller may list.
      if (await refuse(undefined)) return true;
      if (options.metrics == null) {
        out(404, { error: `no Live API path ${path}` });
        return true;
      }
      const shown = new Set((await listable()).map((e) => e.name));
      if (shown.size === 0) {
        out(403, {
          status: 'error',
          errorType: 'forbidden',
          error: 'the caller may list no entry of this Katalog',
        });
        return true;
      }
      const hidden = (sample: MetricSample): boolean =>
        ENTRY_LABELS.some((label) => {
          const value = sample.labels[label];
          return value != null && all.has(value) && !shown.has(value);
        });
      const answer = await answerQuery(url.searchParams, {
        samples: options.metrics,
        visible: (sample) => !hidden(sample),
        now: now(),
      });
      out(answer.status, answer.body);
      return true;
    }

    const [first = ''] = segments;
    if (segments.length === 1 && (first === 'raw' || first === 'enriched')) {
      if (await refuse(undefined)) return true;
      const shown = new Set((await listable()).map((e) => e.name));
      const document = options.documents?.()[first];
      if (shown.size === 0) out(403, { error: 'the caller may list no entry of this Katalog' });
      else if (document == null) out(404, { error: `no Katalog document ${path}` });
      else
        send(
          response,
          request,
          200,
          katalogDocument(document, (name) => shown.has(name)),
        );
      return true;
    }

    if (segments.length === 0) {
      // Authenticate first; then only the entries the caller may list are shown.
      if (await refuse(undefined)) return true;
      const crds = (await listable()).map((entry) => entrySummary(entry, options.isKonductor()));
      const counts = { healthy: 0, degraded: 0, pending: 0 };
      for (const crd of crds) counts[crd['state'] as State]++;
      const healthy = counts.degraded === 0;
      out(200, {
        name: options.katalog.name,
        ...(options.katalog.version == null ? {} : { version: options.katalog.version }),
        ...(options.katalog.lifecycle == null ? {} : { lifecycle: options.katalog.lifecycle }),
        total: crds.length,
        totalEnabled: crds.length,
        totalDegraded: counts.degraded,
        healthy,
        OrkReady: options.ready(),
        status: healthy ? 200 : 503,
        degradedReason: healthy ? '' : `${counts.degraded} CRD(s) degraded`,
        isKonductor: options.isKonductor(),
        statusCounts: counts,
        crds,
      });
      return true;
    }

    const [crdName = '', sub, ...rest] = segments;
    const entry = served(crdName);
    const scope = url.searchParams.get('namespace') ?? options.namespace ?? '';
    const listTarget = entry == null ? undefined : target(entry, 'list', scope, '');
    if (sub == null || sub === 'health' || (sub === 'cr' && rest.length === 0)) {
      if (await refuse(listTarget)) return true;
      if (entry == null) return absent(out, crdName, all.has(crdName));
      if (sub == null) out(200, entryInfo(entry, options.isKonductor()));
      else if (sub === 'health') out(200, entryHealth(entry, now, startedAt, options));
      else {
        const selector = parseLabelSelector(url.searchParams.get('labelSelector') ?? '');
        if (typeof selector === 'string') out(400, { error: `labelSelector: ${selector}` });
        else out(200, crList(entry, now, options.isKonductor(), url.searchParams, selector));
      }
      return true;
    }
    if ((sub === 'raw' || sub === 'enriched') && rest.length === 0) {
      if (await refuse(listTarget)) return true;
      if (entry == null) return absent(out, crdName, all.has(crdName));
      const document = options.documents?.()[sub];
      const one = document == null ? undefined : katalogEntry(document, entry.name);
      if (one != null) out(200, one);
      else
        out(404, {
          error:
            sub === 'raw'
              ? `entry ${crdName} is not written in the Katalog file (an include, motif or preset made it); /katalog/${crdName}/enriched shows it`
              : `no Katalog document ${path}`,
        });
      return true;
    }
    if (sub !== 'cr') {
      if (await refuse(undefined)) return true;
      out(404, { error: `no Live API path ${path}` });
      return true;
    }
    // /cr/[<ns>/]<name>[/events]
    const events = rest.length > 1 && rest[rest.length - 1] === 'events';
    const parts = events ? rest.slice(0, -1) : rest;
    const namespaced = entry?.namespaced ?? true;
    const shaped = namespaced ? parts.length === 2 : parts.length === 1;
    const namespace = namespaced ? parts[0] : undefined;
    const name = parts[parts.length - 1] ?? '';
    if (await refuse(entry == null || !shaped ? undefined : target(entry, 'get', namespace, name)))
      return true;
    if (entry == null) return absent(out, crdName, all.has(crdName));
    if (!shaped) {
      out(404, {
        error: namespaced
          ? `expected /katalog/${crdName}/cr/<namespace>/<name>`
          : `expected /katalog/${crdName}/cr/<name> (${crdName} is cluster-scoped)`,
      });
      return true;
    }
    const object = entry.get(namespace, name);
    if (object == null) {
      out(404, {
        error: `CR "${namespace == null ? name : `${namespace}/${name}`}" not found`,
        found: false,
        name,
        namespace: namespace ?? '',
      });
      return true;
    }
    if (events) out(200, crEvents(entry, namespace, name, now));
    else out(200, crDetail(entry, object, options.isKonductor()));
    return true;
  };
}

/**
 * gatewayResources answers upstream's gateway reads from the caches (ADR 0083):
 * `GET /api/v1/resources/<Kind>/<namespace>` (`{items}`) and `…/<namespace>/<name>` (the CR as
 * stored, or `{value}` with `?field=a.b`); a cluster-scoped kind is `…/<Kind>/<name>` and
 * `…/<Kind>`. `<Kind>` is the Kubernetes kind of a served entry (upstream resolves it by kind,
 * not by Serve target). Reviewed as the Live API's CR paths: `list` in the namespace, `get` on
 * the name. `DELETE` is 405 with the other writes.
 */
async function gatewayResources(
  rest: string,
  params: URLSearchParams,
  entries: readonly LiveApiEntry[],
  refuse: (target: CrossReadTarget | undefined) => Promise<boolean>,
  out: (status: number, body: Record<string, unknown>) => void,
): Promise<void> {
  let parts: string[];
  try {
    parts = rest
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    if (!(await refuse(undefined))) out(404, { error: 'malformed path' });
    return;
  }
  const [kind = '', ...names] = parts;
  const served = entries.filter((e) => e.crossAccess);
  const byKind = served.filter((e) => e.apiTypes.kind === kind);
  const matched =
    byKind.length > 0 ? byKind : served.filter((e) => e.apiTypes.kind.toLowerCase() === kind.toLowerCase());
  const entry = matched.length === 1 ? matched[0] : undefined;
  const shaped =
    entry == null ? false : entry.namespaced ? names.length >= 1 && names.length <= 2 : names.length <= 1;
  const one = entry != null && (entry.namespaced ? names.length === 2 : names.length === 1);
  const namespace = entry?.namespaced === true ? names[0] : undefined;
  const name = one ? (names[names.length - 1] ?? '') : '';
  const review =
    entry == null || !shaped ? undefined : target(entry, one ? 'get' : 'list', namespace ?? '', name);
  if (await refuse(review)) return;
  if (matched.length > 1) {
    out(400, {
      error: `kind ${kind} names ${matched.length} entries (${matched.map((e) => e.name).join(', ')}); read /katalog/<crd>/cr instead`,
    });
    return;
  }
  if (entry == null) {
    const hidden = entries.some((e) => e.apiTypes.kind.toLowerCase() === kind.toLowerCase());
    out(hidden ? 403 : 404, {
      error: hidden ? `kind ${kind} does not allow cross reads (crossAccess: false)` : `no kind ${kind}`,
    });
    return;
  }
  if (!shaped) {
    out(404, {
      error: entry.namespaced
        ? `expected /api/v1/resources/${kind}/<namespace>[/<name>]`
        : `expected /api/v1/resources/${kind}[/<name>] (${kind} is cluster-scoped)`,
    });
    return;
  }
  if (!one) {
    const items = entry
      .list()
      .filter((cr) => namespace == null || cr.metadata.namespace === namespace)
      .map(storedForm)
      .sort((a, b) =>
        String(asMap(a['metadata'])['name']).localeCompare(String(asMap(b['metadata'])['name'])),
      );
    out(200, { items });
    return;
  }
  const object = entry.get(namespace, name);
  if (object == null) {
    out(404, { error: `${kind} "${namespace == null ? name : `${namespace}/${name}`}" not found` });
    return;
  }
  const field = params.get('field');
  if (field != null && field !== '') out(200, { value: valueAt(object, field) ?? null });
  else out(200, storedForm(object));
}

/** storedForm is a CR as the API server stores it, without `managedFields` (upstream's gateway answer). */
function storedForm(cr: KubeObject): Record<string, unknown> {
  const { managedFields: _managed, ...metadata } = cr.metadata as Record<string, unknown>;
  return { ...cr, metadata };
}

/** valueAt resolves a dot path (`status.phase`) against the CR: any JSON value, undefined when absent. */
function valueAt(cr: KubeObject, path: string): unknown {
  let at: unknown = cr;
  for (const part of path.split('.')) {
    if (at == null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** LiveAnswerContext is what an in-process Live API answer needs besides the entry. */
export interface LiveAnswerContext {
  readonly isKonductor: boolean;
  readonly now: () => number;
  readonly startedAt: number;
}

/**
 * liveAnswer is the answer the Live API would give for a cross read's `protocol`, built in process
 * (the same shapes, no HTTP) for a kind this operator serves; undefined when the CR is absent.
 */
export function liveAnswer(
  entry: LiveApiEntry,
  protocol: 'cr' | 'health' | 'metrics' | 'info' | 'events',
  namespace: string | undefined,
  name: string,
  context: LiveAnswerContext,
): Record<string, unknown> | undefined {
  const ns = entry.namespaced ? namespace : undefined;
  switch (protocol) {
    case 'health':
      return entryHealth(entry, context.now, context.startedAt, { isKonductor: () => context.isKonductor });
    case 'metrics':
    case 'info':
      return entryInfo(entry, context.isKonductor);
    default: {
      const object = entry.get(ns, name);
      if (object == null) return undefined;
      return protocol === 'events'
        ? crEvents(entry, ns, name, context.now)
        : crDetail(entry, object, context.isKonductor);
    }
  }
}

function target(
  entry: LiveApiEntry,
  verb: 'get' | 'list',
  namespace: string | undefined,
  name: string,
): CrossReadTarget {
  return {
    entry: entry.name,
    group: entry.apiTypes.group,
    plural: entry.apiTypes.plural,
    namespace: entry.namespaced ? (namespace === '' ? undefined : namespace) : undefined,
    name,
    verb,
  };
}

function absent(
  out: (status: number, body: Record<string, unknown>) => void,
  crd: string,
  exists: boolean,
): true {
  if (exists) out(403, { error: `entry ${crd} does not allow cross reads (crossAccess: false)` });
  else out(404, { error: `no CRD ${crd}` });
  return true;
}

/**
 * withInrunNames adds upstream's newest names beside ours to an answer under `/catalog`: `isLeader`
 * by each `isKonductor` (the answer's and its `crds[]`'), `InrunReady` by `OrkReady`, and points
 * `eventsEndpoint` at `/catalog` (ADR 0083). A CR's own `spec` and `status` are left as they are.
 */
function withInrunNames(body: Record<string, unknown>): Record<string, unknown> {
  const named = (map: Record<string, unknown>): Record<string, unknown> => ({
    ...map,
    ...(typeof map['isKonductor'] === 'boolean' ? { isLeader: map['isKonductor'] } : {}),
  });
  const out = named(body);
  if (typeof body['OrkReady'] === 'boolean') out['InrunReady'] = body['OrkReady'];
  if (Array.isArray(body['crds']) && typeof body['total'] === 'number')
    out['crds'] = (body['crds'] as unknown[]).map((crd) => named(asMap(crd)));
  if (typeof body['eventsEndpoint'] === 'string')
    out['eventsEndpoint'] = body['eventsEndpoint'].replace(/^\/katalog\//, '/catalog/');
  return out;
}

function gvk(entry: LiveApiEntry): string {
  return `${entry.apiTypes.group}/${entry.apiTypes.version}, Kind=${entry.apiTypes.kind}`;
}

function stateOf(health: LiveHealth, degradeThreshold: number | undefined): State {
  if (!health.synced || !health.workersStarted) return 'pending';
  return health.consecutiveFailures >= Math.max(1, degradeThreshold ?? 1) ? 'degraded' : 'healthy';
}

function metrics(health: LiveHealth): Record<string, number> {
  const errors = health.reconciles - health.successes;
  return {
    workers: health.workers,
    activeWorkers: health.activeWorkers,
    queueDepth: health.queueDepth,
    errorRate: health.reconciles === 0 ? 0 : round(errors / health.reconciles),
    successRate: health.reconciles === 0 ? 1 : round(health.successes / health.reconciles),
  };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function entrySummary(entry: LiveApiEntry, isKonductor: boolean): Record<string, unknown> {
  const health = entry.health();
  return {
    name: entry.name,
    gvk: gvk(entry),
    gvr: `${entry.apiTypes.group}/${entry.apiTypes.version}/${entry.apiTypes.plural}`,
    state: stateOf(health, entry.degradeThreshold),
    healthy: stateOf(health, entry.degradeThreshold) === 'healthy',
    isKonductor,
    crCount: entry.list().length,
    workers: health.workers,
    queueDepth: health.queueDepth,
    lastReconcile: health.lastSuccessAt == null ? '' : new Date(health.lastSuccessAt).toISOString(),
  };
}

function entryInfo(entry: LiveApiEntry, isKonductor: boolean): Record<string, unknown> {
  const health = entry.health();
  return {
    name: entry.name,
    gvk: gvk(entry),
    namespaced: entry.namespaced,
    workers: { current: health.workers, source: entry.workersSource },
    resync: entry.resync,
    queue: { depth: health.queueDepth },
    isKonductor,
    crCount: entry.list().length,
    metrics: metrics(health),
    ...(entry.autoscale?.() == null ? {} : { autoscale: entry.autoscale() }),
  };
}

function entryHealth(
  entry: LiveApiEntry,
  now: () => number,
  startedAt: number,
  options: Pick<LiveApiOptions, 'isKonductor'>,
): Record<string, unknown> {
  const health = entry.health();
  const state = stateOf(health, entry.degradeThreshold);
  return {
    name: entry.name,
    state,
    status: state === 'degraded' ? 503 : 200,
    isKonductor: options.isKonductor(),
    healthy: state === 'healthy',
    started: health.workersStarted,
    pending: state === 'pending',
    startedAt: new Date(startedAt).toISOString(),
    uptime: formatAge(now() - startedAt),
    queueDepth: health.queueDepth,
    errorRate: metrics(health)['errorRate'],
    consecutiveFails: health.consecutiveFailures,
    totalReconciles: health.reconciles,
    resourceCount: entry.list().length,
    lastError: health.lastError,
    lastReconcile:
      health.lastSuccessAt == null ? 'not started' : new Date(health.lastSuccessAt).toISOString(),
    hasUnhealthyDependencies: health.unhealthyDependencies,
  };
}

function crList(
  entry: LiveApiEntry,
  now: () => number,
  isKonductor: boolean,
  query: URLSearchParams,
  selector: readonly LabelRequirement[],
): Record<string, unknown> {
  const field = query.get('field') ?? '';
  const namespace = query.get('namespace') ?? '';
  // `?detail=true`: each item is the CR's whole answer (as `/cr/<ns>/<name>` gives it), for a cross
  // read that lists a peer's CRs by label (ADR 0101).
  const detail = query.get('detail') === 'true';
  const items = entry
    .list()
    .filter((cr) => namespace === '' || !entry.namespaced || cr.metadata.namespace === namespace)
    .filter((cr) => labelsSelected(cr.metadata.labels, selector))
    .map((cr): Record<string, unknown> & { name: string; namespace?: string } => {
      if (detail) return { ...crDetail(entry, cr, isKonductor), name: cr.metadata.name ?? '' };
      const ready = readyOf(cr);
      const value = field === '' ? undefined : scalarAt(cr, field);
      return {
        name: cr.metadata.name ?? '',
        ...(cr.metadata.namespace == null ? {} : { namespace: cr.metadata.namespace }),
        ...(phaseOf(cr) === '' ? {} : { phase: phaseOf(cr) }),
        ready: ready.ready,
        ...(ready.reason === '' ? {} : { readyReason: ready.reason }),
        age: ageOf(cr, now),
        generation: generationOf(cr),
        ...(value == null || value === '' ? {} : { value }),
        ...shardOf(cr),
      };
    })
    .sort((a, b) => `${a.namespace ?? ''}/${a.name}`.localeCompare(`${b.namespace ?? ''}/${b.name}`));
  return { crd: entry.name, gvk: gvk(entry), total: items.length, items, isKonductor };
}

/** LabelRequirement is one term of a label selector: `key=value` (`==` too) or `key!=value`. */
interface LabelRequirement {
  readonly key: string;
  readonly value: string;
  readonly equal: boolean;
}

/** LABEL_TERM is `key=value`, `key==value` or `key!=value` (Kubernetes' equality-based selector). */
const LABEL_TERM = /^([A-Za-z0-9][-A-Za-z0-9_./]*)\s*(==|=|!=)\s*([-A-Za-z0-9_.]*)$/;

/**
 * parseLabelSelector reads `?labelSelector=` in Kubernetes' equality-based form (`a=b,c!=d`), as a
 * cross read sends its `selector.matchLabels`; a set-based term (`in`, `notin`, `!key`, `key`) is
 * refused with the reason (a string), not ignored: a list that ignored a term would read too much.
 */
function parseLabelSelector(text: string): readonly LabelRequirement[] | string {
  const out: LabelRequirement[] = [];
  for (const raw of text.split(',')) {
    const term = raw.trim();
    if (term === '') continue;
    const match = LABEL_TERM.exec(term);
    if (match == null)
      return `"${term}" is not an equality term (key=value or key!=value; set-based terms are not served)`;
    out.push({ key: match[1] ?? '', value: match[3] ?? '', equal: match[2] !== '!=' });
  }
  return out;
}

function labelsSelected(
  labels: Readonly<Record<string, string>> | undefined,
  selector: readonly LabelRequirement[],
): boolean {
  return selector.every((term) => (labels?.[term.key] === term.value) === term.equal);
}

/** crDetail is upstream's CR detail answer plus `found` and `spec`, so cross readers of either kind get `.spec`. */
function crDetail(entry: LiveApiEntry, cr: KubeObject, isKonductor: boolean): Record<string, unknown> {
  const ready = readyOf(cr);
  const namespace = cr.metadata.namespace;
  const name = cr.metadata.name ?? '';
  const status = asMap(cr['status']);
  return {
    found: true,
    name,
    ...(namespace == null ? {} : { namespace }),
    generation: generationOf(cr),
    creationTimestamp:
      typeof cr.metadata['creationTimestamp'] === 'string' ? cr.metadata['creationTimestamp'] : '',
    labels: cr.metadata.labels ?? {},
    annotations: Object.fromEntries(
      Object.entries(cr.metadata.annotations ?? {}).filter(
        ([key]) => key !== 'kubectl.kubernetes.io/last-applied-configuration',
      ),
    ),
    ready: ready.ready,
    ...(ready.reason === '' ? {} : { readyReason: ready.reason }),
    ...(ready.message === '' ? {} : { readyMessage: ready.message }),
    ...(phaseOf(cr) === '' ? {} : { phase: phaseOf(cr) }),
    spec: asMap(cr['spec']),
    status,
    children: childrenOf(status, entry),
    eventsEndpoint: `/katalog/${encodeURIComponent(entry.name)}/cr/${namespace == null ? '' : `${encodeURIComponent(namespace)}/`}${encodeURIComponent(name)}/events`,
    isKonductor,
    ...shardOf(cr),
  };
}

/** shardOf names the replica that owns a CR of a sharded operator (runtime.md §25, ADR 0058); nothing otherwise. */
function shardOf(cr: KubeObject): { shard?: string } {
  const shard = cr.metadata.labels?.[OrkestraLabel.Shard];
  return shard == null || shard === '' ? {} : { shard };
}

function crEvents(
  entry: LiveApiEntry,
  namespace: string | undefined,
  name: string,
  now: () => number,
): Record<string, unknown> {
  const events = [...entry.events(namespace, name)]
    .sort((a, b) => b.lastSeen - a.lastSeen)
    .slice(0, 100)
    .map((event) => ({
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: 'orkestra',
      object: `${entry.apiTypes.kind}/${name}`,
      count: event.count,
      firstSeen: new Date(event.firstSeen).toISOString(),
      lastSeen: new Date(event.lastSeen).toISOString(),
      age: formatAge(now() - event.lastSeen),
    }));
  return { name, ...(namespace == null ? {} : { namespace }), total: events.length, events };
}

/**
 * childrenOf groups the CR's `status.inventory` by kind (the runtime's record of its children):
 * `children.<Kind>` lists them, each with its readiness — from the child cache, judged by its
 * kind's module, or else as the inventory recorded it at the last status write — and
 * `children.<kind>` (the kind in lower case, upstream's key: `children.deployment.ready`) sums
 * them up: `ready` is true when every child of that kind is known ready (ADR 0101).
 */
function childrenOf(status: Record<string, unknown>, entry: LiveApiEntry): Record<string, unknown> {
  const byKind = new Map<string, Record<string, unknown>[]>();
  const inventory = Array.isArray(status['inventory']) ? (status['inventory'] as unknown[]) : [];
  for (const item of inventory) {
    const child = asMap(item);
    const kind = typeof child['kind'] === 'string' ? child['kind'] : '';
    if (kind === '') continue;
    const name = typeof child['name'] === 'string' ? child['name'] : '';
    const namespace = typeof child['namespace'] === 'string' ? child['namespace'] : undefined;
    const apiVersion = typeof child['apiVersion'] === 'string' ? child['apiVersion'] : '';
    const readiness =
      (apiVersion === '' ? undefined : entry.childReadiness?.({ apiVersion, kind, namespace, name })) ??
      recordedReadiness(child['readiness']);
    let list = byKind.get(kind);
    if (list == null) byKind.set(kind, (list = []));
    list.push({
      name,
      ...(namespace == null ? {} : { namespace }),
      kind,
      ...(readiness == null
        ? {}
        : {
            ready: readiness.ready,
            state: readiness.state,
            ...(readiness.reason === '' ? {} : { reason: readiness.reason }),
          }),
    });
  }
  const out: Record<string, unknown> = {};
  for (const [kind, list] of byKind) out[kind] = list;
  for (const [kind, list] of byKind) {
    const key = kind.toLowerCase();
    // A kind already written in lower case keeps its list; its summary is not given.
    if (key === kind || byKind.has(key)) continue;
    const readyCount = list.filter((child) => child['ready'] === true).length;
    out[key] = {
      kind,
      ready: readyCount === list.length,
      total: list.length,
      readyCount,
      known: list.filter((child) => typeof child['ready'] === 'boolean').length,
    };
  }
  return out;
}

/** recordedReadiness is the readiness the inventory recorded at the last status write, for a kind no cache holds. */
function recordedReadiness(value: unknown): LiveChildReadiness | undefined {
  const recorded = asMap(value);
  const state = recorded['state'];
  if (typeof state !== 'string' || state === '') return undefined;
  const reason = recorded['message'];
  return { ready: state === 'Current', state, reason: typeof reason === 'string' ? reason : '' };
}

function readyOf(cr: KubeObject): { ready: boolean; reason: string; message: string } {
  const conditions = asMap(cr['status'])['conditions'];
  const ready = Array.isArray(conditions)
    ? (conditions as unknown[]).map(asMap).find((c) => c['type'] === 'Ready')
    : undefined;
  return {
    ready: ready?.['status'] === 'True',
    reason: typeof ready?.['reason'] === 'string' ? ready['reason'] : '',
    message: typeof ready?.['message'] === 'string' ? ready['message'] : '',
  };
}

function phaseOf(cr: KubeObject): string {
  const phase = asMap(cr['status'])['phase'];
  return typeof phase === 'string' ? phase : '';
}

function ageOf(cr: KubeObject, now: () => number): string {
  const stamp = cr.metadata['creationTimestamp'];
  const at = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
  return Number.isNaN(at) ? '' : formatAge(now() - at);
}

/** formatAge prints a duration the way upstream does (`4m32s`, `3h2m`, `2d5h`). */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (d > 0) return `${d}d${h}h`;
  if (h > 0) return `${h}h${m}m`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** scalarAt resolves a dot path against the CR (`?field=spec.domain`); objects and lists give undefined. */
function scalarAt(cr: KubeObject, path: string): string | undefined {
  let at: unknown = cr;
  for (const part of path.split('.')) {
    if (at == null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  if (typeof at === 'string') return at;
  if (typeof at === 'number' || typeof at === 'boolean') return String(at);
  return undefined;
}

function asMap(value: unknown): Record<string, unknown> {
  return value != null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function send(
  response: ServerResponse,
  request: IncomingMessage,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(request.method === 'HEAD' ? undefined : text);
}

function generationOf(cr: KubeObject): number {
  const generation = cr.metadata['generation'];
  return typeof generation === 'number' ? generation : 0;
}
