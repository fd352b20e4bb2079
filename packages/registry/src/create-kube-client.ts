import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
// Not the package index, which loads every generated API class (docs/reference/runtime.md §20).
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import { BUILTIN_RESOURCES } from './builtin-resources.js';
import type { StatusCause } from './errors.js';
import { KubeErrorCode, NotFoundError, createKubeApiError, kubeErrorCodeOf } from './errors.js';
import type {
  ApplyOptions,
  ApplyResult,
  DeleteOptions,
  KubeClient,
  KubeList,
  ListOptions,
  PatchOptions,
  ResourceInfo,
} from './kube-client.js';
import type { GroupVersionKind, KubeObject, ObjectRef } from './kube-object.js';
import { refOf } from './kube-object.js';
import type { RequestVerb } from './request-counter.js';
import { RequestCounter } from './request-counter.js';
import { KeepAliveAgents } from './keep-alive-agent.js';
import { AppliedCredentials } from './applied-credentials.js';

/** KubeClientOptions configures createKubeClient. */
export interface KubeClientOptions {
  /** Cluster address and credentials (client-node's KubeConfig). */
  readonly kubeConfig: KubeConfig;
  /** Per-request timeout. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Field manager for create, apply and patches. Default `orkestra`. */
  readonly fieldManager?: string;
  /** `User-Agent` of every request, so the API server's audit log names the client. Default `orkestra`. */
  readonly userAgent?: string;
  /** Counter to record requests in; a new one by default. */
  readonly requests?: RequestCounter;
  /** How long a discovery result for a custom kind is trusted. Default 30 000 ms. */
  readonly discoveryTtlMs?: number;
  /** Source of time for the discovery cache and the reuse of applied credentials. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Plural and scope of further kinds, keyed by `apiVersion/kind` (e.g. the CR kinds of a Katalog,
   * from their `apiTypes`), so requests about them need no discovery. Built-in kinds are known
   * already (BUILTIN_RESOURCES, from the kind facts table).
   */
  readonly resources?: Readonly<Record<string, ResourceInfo>>;
  /**
   * Called once per HTTP request when it ends (each page of a list, each discovery request), with
   * the HTTP method, the status (0 when no response arrived) and the seconds taken, so a caller's
   * `rest_client_requests_total` counts exactly what the API server's audit log records (ADR 0035).
   * Default: none.
   */
  readonly onRequest?: (method: string, status: number, seconds: number) => void;
}

interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: unknown;
}

interface CallSpec {
  readonly verb: RequestVerb;
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly ref?: ObjectRef;
}

/**
 * createKubeClient returns a KubeClient that talks to the API server named by a KubeConfig with
 * plain HTTP requests (TLS and credentials from client-node's `applyToHTTPSOptions`, reused while
 * unchanged: AppliedCredentials), counts every
 * request and maps failures to typed errors from the server's Status object.
 *
 * @example
 * const kc = new KubeConfig(); kc.loadFromDefault();
 * const client = createKubeClient({ kubeConfig: kc });
 * await client.apply(manifest, { force: true });
 */
export function createKubeClient(options: KubeClientOptions): KubeClient {
  const kc = options.kubeConfig;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const fieldManager = options.fieldManager ?? 'orkestra';
  const userAgent = options.userAgent ?? 'orkestra';
  const requests = options.requests ?? new RequestCounter();
  const discoveryTtlMs = options.discoveryTtlMs ?? 30_000;
  const now = options.now ?? Date.now;
  const discovered = new Map<
    string,
    { readonly at: number; readonly resources: ReadonlyMap<string, ResourceInfo> }
  >();

  const server = kc.getCurrentCluster()?.server;
  if (server == null) throw new Error('createKubeClient: the KubeConfig has no current cluster');
  const base = new URL(server);
  const agents = new KeepAliveAgents();
  // TLS material, Authorization header and agent, applied once and reused while unchanged (ADR 0077).
  const credentials = new AppliedCredentials({ kubeConfig: kc, agents, protocol: base.protocol, now });

  async function call(spec: CallSpec): Promise<RawResponse> {
    requests.record(spec.verb, spec.kind);
    const url = new URL(base.pathname.replace(/\/$/, '') + spec.path, base);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v != null) url.searchParams.set(k, v);
    // Credentials applied before this request: a 401 answer makes the next request apply them again.
    const generation = credentials.generation;
    const applied = await credentials.current();
    const payload = spec.body == null ? undefined : JSON.stringify(spec.body);
    const headers: http.OutgoingHttpHeaders = {
      ...applied.headers,
      accept: 'application/json',
      'user-agent': userAgent,
    };
    if (payload != null) {
      headers['content-type'] = spec.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const transport = url.protocol === 'http:' ? http : https;
    const started = performance.now();
    let answered = 0;
    const response = await new Promise<RawResponse>((resolve, reject) => {
      const req = transport.request(url, { ...applied.options, method: spec.method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          answered = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            // Not JSON (a proxy error page): keep the text for the error message.
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      });
      const timer = setTimeout(() => {
        req.destroy(new RequestTimeout(`no response within ${timeoutMs} ms`));
      }, timeoutMs);
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      if (payload != null) req.write(payload);
      req.end();
    })
      .finally(() => options.onRequest?.(spec.method, answered, (performance.now() - started) / 1000))
      .catch((err: unknown) => {
        throw createKubeApiError({
          reason: err instanceof RequestTimeout ? KubeErrorCode.Timeout : KubeErrorCode.Unknown,
          status: 0,
          verb: spec.verb,
          ...(spec.ref == null ? {} : { ref: spec.ref }),
          message: err instanceof Error ? err.message : String(err),
          cause: err,
        });
      });
    if (response.status >= 200 && response.status < 300) return response;
    if (response.status === 401) credentials.refused(generation);
    throw errorFromResponse(spec, response);
  }

  const known = (gvk: GroupVersionKind): ResourceInfo | undefined =>
    BUILTIN_RESOURCES[`${gvk.apiVersion}/${gvk.kind}`] ??
    options.resources?.[`${gvk.apiVersion}/${gvk.kind}`];

  async function discover(gvk: GroupVersionKind): Promise<ResourceInfo> {
    const builtin = known(gvk);
    if (builtin != null) return builtin;
    let entry = discovered.get(gvk.apiVersion);
    if (entry == null || now() - entry.at > discoveryTtlMs || !entry.resources.has(gvk.kind)) {
      const res = await call({
        verb: 'discovery',
        kind: gvk.apiVersion,
        method: 'GET',
        path: apiVersionPath(gvk.apiVersion),
      }).catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      });
      const resources = new Map<string, ResourceInfo>();
      const list = (res?.body ?? {}) as { resources?: { name: string; kind: string; namespaced: boolean }[] };
      for (const r of list.resources ?? []) {
        if (!r.name.includes('/')) resources.set(r.kind, { plural: r.name, namespaced: r.namespaced });
      }
      entry = { at: now(), resources };
      discovered.set(gvk.apiVersion, entry);
    }
    const info = entry.resources.get(gvk.kind);
    if (info == null) {
      throw createKubeApiError({
        reason: KubeErrorCode.NotFound,
        status: 404,
        verb: 'discovery',
        message: `kind ${gvk.kind} is not served by the cluster under ${gvk.apiVersion}`,
      });
    }
    return info;
  }

  async function objectPath(ref: ObjectRef, subresource?: string): Promise<string> {
    const info = await discover(ref);
    const ns = info.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace ?? 'default')}` : '';
    const name = ref.name === '' ? '' : `/${encodeURIComponent(ref.name)}`;
    return `${apiVersionPath(ref.apiVersion)}${ns}/${info.plural}${name}${subresource == null ? '' : `/${subresource}`}`;
  }

  return {
    requests,
    fieldManager,
    async get(ref) {
      const res = await call({
        verb: 'get',
        kind: ref.kind,
        method: 'GET',
        path: await objectPath(ref),
        ref,
      });
      return res.body as KubeObject;
    },
    async list(gvk, listOptions: ListOptions = {}) {
      const info = await discover(gvk);
      const ns =
        info.namespaced && listOptions.namespace != null
          ? `/namespaces/${encodeURIComponent(listOptions.namespace)}`
          : '';
      const path = `${apiVersionPath(gvk.apiVersion)}${ns}/${info.plural}`;
      const items: KubeObject[] = [];
      let cont: string | undefined;
      let resourceVersion = '';
      do {
        const res = await call({
          verb: 'list',
          kind: gvk.kind,
          method: 'GET',
          path,
          query: {
            labelSelector: listOptions.labelSelector,
            fieldSelector: listOptions.fieldSelector,
            limit: String(listOptions.limit ?? 500),
            continue: cont,
          },
        });
        const body = res.body as {
          items?: KubeObject[];
          metadata?: { continue?: string; resourceVersion?: string };
        };
        for (const item of body.items ?? [])
          items.push({ ...item, apiVersion: gvk.apiVersion, kind: gvk.kind });
        cont = body.metadata?.continue === '' ? undefined : body.metadata?.continue;
        resourceVersion = body.metadata?.resourceVersion ?? resourceVersion;
      } while (cont != null);
      return { items, resourceVersion } satisfies KubeList;
    },
    async create(obj) {
      const ref = refOf(obj);
      const res = await call({
        verb: 'create',
        kind: obj.kind,
        method: 'POST',
        path: await objectPath({ ...ref, name: '' }),
        query: { fieldManager },
        body: obj,
        ref,
      });
      return res.body as KubeObject;
    },
    async apply(obj, applyOptions: ApplyOptions = {}): Promise<ApplyResult> {
      const ref = refOf(obj);
      const res = await call({
        verb: 'apply',
        kind: obj.kind,
        method: 'PATCH',
        path: await objectPath(ref),
        query: { fieldManager, force: String(applyOptions.force ?? true) },
        // JSON is YAML, so the manifest is sent as JSON under the apply-patch content type.
        body: applyOptions.createOnly === true ? createOnly(obj) : obj,
        contentType: PatchStrategy.ServerSideApply,
        ref,
      });
      return { object: res.body as KubeObject, created: res.status === 201 };
    },
    async delete(ref, deleteOptions: DeleteOptions = {}) {
      await call({
        verb: 'delete',
        kind: ref.kind,
        method: 'DELETE',
        path: await objectPath(ref),
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          propagationPolicy: deleteOptions.propagationPolicy ?? 'Background',
          ...(deleteOptions.uid == null && deleteOptions.resourceVersion == null
            ? {}
            : {
                preconditions: {
                  ...(deleteOptions.uid == null ? {} : { uid: deleteOptions.uid }),
                  ...(deleteOptions.resourceVersion == null
                    ? {}
                    : { resourceVersion: deleteOptions.resourceVersion }),
                },
              }),
        },
        ref,
      });
    },
    async replace(obj) {
      const ref = refOf(obj);
      const res = await call({
        verb: 'update',
        kind: obj.kind,
        method: 'PUT',
        path: await objectPath(ref),
        query: { fieldManager },
        body: obj,
        ref,
      });
      return res.body as KubeObject;
    },
    async mergePatch(ref, patch, patchOptions: PatchOptions = {}) {
      const res = await call({
        verb: 'patch',
        kind: ref.kind,
        method: 'PATCH',
        path: await objectPath(ref),
        query: { fieldManager },
        body: withPrecondition(patch, patchOptions.resourceVersion),
        contentType: PatchStrategy.MergePatch,
        ref,
      });
      return res.body as KubeObject;
    },
    async patchStatus(ref, status, patchOptions: PatchOptions = {}) {
      const res = await call({
        verb: 'patch',
        kind: ref.kind,
        method: 'PATCH',
        path: await objectPath(ref, 'status'),
        query: { fieldManager },
        body: withPrecondition({ status }, patchOptions.resourceVersion),
        contentType: PatchStrategy.MergePatch,
        ref,
      });
      const object = res.body as KubeObject;
      return { ...object, apiVersion: object.apiVersion ?? ref.apiVersion, kind: object.kind ?? ref.kind };
    },
    discover,
  };
}

/**
 * withPrecondition adds `metadata.resourceVersion` to a merge patch: the API server rejects the
 * patch with 409 Conflict when the object's resource version differs.
 */
function withPrecondition(
  patch: Record<string, unknown>,
  resourceVersion: string | undefined,
): Record<string, unknown> {
  if (resourceVersion == null) return patch;
  const metadata = (patch['metadata'] ?? {}) as Record<string, unknown>;
  return { ...patch, metadata: { ...metadata, resourceVersion } };
}

class RequestTimeout extends Error {
  override readonly name = 'RequestTimeout';
}

function apiVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

interface StatusBody {
  readonly kind?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly details?: { readonly causes?: readonly StatusCause[]; readonly retryAfterSeconds?: number };
}

function errorFromResponse(spec: CallSpec, res: RawResponse): Error {
  const status: StatusBody =
    typeof res.body === 'object' && res.body != null && (res.body as StatusBody).kind === 'Status'
      ? (res.body as StatusBody)
      : {};
  const retryHeader = res.headers['retry-after'];
  const retryAfter =
    status.details?.retryAfterSeconds ??
    (typeof retryHeader === 'string' ? Number.parseInt(retryHeader, 10) : undefined);
  const message =
    status.message ?? (typeof res.body === 'string' && res.body !== '' ? res.body : `HTTP ${res.status}`);
  return createKubeApiError({
    reason: kubeErrorCodeOf(res.status, status.reason),
    status: res.status,
    verb: spec.verb,
    ...(spec.ref == null ? {} : { ref: spec.ref }),
    message,
    causes: status.details?.causes ?? [],
    ...(retryAfter == null || Number.isNaN(retryAfter) ? {} : { retryAfterSeconds: retryAfter }),
  });
}

/**
 * CREATE_ONLY_RESOURCE_VERSION is the largest uint64. The API server parses resourceVersion as a
 * uint64 and stores revisions as int64, so no stored object has it: an apply carrying it as a
 * precondition creates an absent object (a create ignores the precondition) and gets 409 Conflict
 * for a present one, which it leaves untouched (ADR 0097).
 */
const CREATE_ONLY_RESOURCE_VERSION = '18446744073709551615';

/** createOnly is the manifest with the create-only precondition (ApplyOptions.createOnly). */
function createOnly(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: CREATE_ONLY_RESOURCE_VERSION } };
}
