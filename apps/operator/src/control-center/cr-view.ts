/**
 * The CR views of the Control Center API (docs/reference/runtime.md §23.2): the CRs of one entry
 * and one CR with its children, read from the informer caches only. Secret values are never
 * included: children are described by kind, name and readiness, never by their data, and
 * provider outputs and status fields are passed through {@link redact}.
 */
import { childReadiness } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import type { KubeObject } from '@orkestra/registry';
import { OrkestraAnnotation, OrkestraLabel } from '@orkestra/types';
import type { RecentEvent } from './recent-events.js';

/** ConditionView is one status condition, reduced to what the page shows. */
export interface ConditionView {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** CrSummary is one CR in `GET /api/v1/entries/<entry>/crs`. */
export interface CrSummary {
  readonly namespace?: string;
  readonly name: string;
  readonly uid: string;
  /** RFC 3339 creation time; the page shows the age. */
  readonly created: string;
  readonly synced?: ConditionView;
  readonly ready?: ConditionView;
  /** `status.katalogRevision` when the runtime writes one (rollouts). */
  readonly revision?: string;
  readonly deleting: boolean;
  /** Sharded operators: the shard (replica) that owns the CR (docs/reference/runtime.md §25.5). */
  readonly shard?: string;
}

/** ChildView is one child of a CR, with its parent in the tree. */
export interface ChildView {
  readonly id: string;
  /** The id of the parent node: the CR's UID, or another child's UID when it owns this one. */
  readonly parent: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly mode: 'create' | 'apply';
  /** Where the entry is declared, e.g. `onReconcile.deployments[0]`. */
  readonly source?: string;
  /** Live readiness from the child cache (kstatus). */
  readonly state: string;
  readonly ready: boolean;
  readonly reason: string;
}

/** CrDetail is `GET /api/v1/entries/<entry>/crs/<namespace>/<name>`. */
export interface CrDetail extends CrSummary {
  readonly entry: string;
  readonly kind: string;
  readonly apiVersion: string;
  readonly generation?: number;
  readonly observedGeneration?: number;
  readonly conditions: readonly (ConditionView & { readonly type: string })[];
  readonly children: readonly ChildView[];
  readonly providers: Readonly<Record<string, unknown>>;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly hooks: readonly string[];
  readonly events: readonly RecentEvent[];
  /** Each external call's last outcome for this CR (runtime.md §23.2); never a credential, error text or body. */
  readonly calls: readonly CrCallView[];
}

/** CrCallView is one external call's last outcome for one CR. */
export interface CrCallView {
  readonly call: string;
  readonly protocol: string;
  /** `scheme://host:port`: no user, password, path or query. */
  readonly target: string;
  readonly outcome: 'ok' | 'error' | 'timeout';
  readonly errorClass?: string;
  readonly status?: number;
  readonly at: string;
  readonly durationMs: number;
}

/** crCalls is the last outcome of each external call made for the CR, from the runtime's caller. */
function crCalls(
  engine: KatalogRuntime,
  entry: string,
  namespace: string | undefined,
  name: string,
): CrCallView[] {
  const caller = (engine.hookServices as KatalogRuntime['hookServices'] | undefined)?.external;
  return (caller?.crOutcomes(entry, namespace ?? '', name) ?? []).map((o) => ({
    call: o.call,
    protocol: o.protocol,
    target: o.target,
    outcome: o.outcome,
    ...(o.errorClass == null ? {} : { errorClass: o.errorClass }),
    ...(o.status == null ? {} : { status: o.status }),
    at: new Date(o.atMs).toISOString(),
    durationMs: o.durationMs,
  }));
}

const SECRET_KEY = /secret|password|passwd|token|credential|private|apikey|api_key|cert|tls|key$/i;
/** REDACTED replaces every value whose key looks like a secret. */
export const REDACTED = '[redacted]';

/**
 * redact copies a JSON value, replacing the value of every key that looks like a secret
 * (password, token, secret, key, credential, cert…) with `[redacted]`.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value != null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) ? REDACTED : redact(item, depth + 1);
    }
    return out;
  }
  return value;
}

function record(value: unknown): Record<string, unknown> {
  return value != null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function conditions(object: KubeObject): (ConditionView & { type: string })[] {
  const list = record(object['status'])['conditions'];
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    const c = record(item);
    return {
      type: String(c['type'] ?? ''),
      status: String(c['status'] ?? 'Unknown'),
      reason: String(c['reason'] ?? ''),
      message: String(c['message'] ?? ''),
    };
  });
}

function pick(list: readonly (ConditionView & { type: string })[], type: string): ConditionView | undefined {
  const found = list.find((c) => c.type === type);
  return found == null ? undefined : { status: found.status, reason: found.reason, message: found.message };
}

/** crSummary reduces a cached CR to its list row. */
export function crSummary(object: KubeObject): CrSummary {
  const list = conditions(object);
  const synced = pick(list, 'Synced');
  const ready = pick(list, 'Ready');
  const revision = record(object['status'])['katalogRevision'];
  const shard = object.metadata.labels?.[OrkestraLabel.Shard];
  return {
    ...(object.metadata.namespace == null ? {} : { namespace: object.metadata.namespace }),
    name: object.metadata.name ?? '',
    uid: object.metadata.uid ?? '',
    created: String(object.metadata['creationTimestamp'] ?? ''),
    ...(synced == null ? {} : { synced }),
    ...(ready == null ? {} : { ready }),
    ...(revision == null ? {} : { revision: String(revision) }),
    deleting: object.metadata['deletionTimestamp'] != null,
    ...(shard == null || shard === '' ? {} : { shard }),
  };
}

/**
 * crOwner names the shard that owns a CR this replica does not reconcile (sharded operators, ADR
 * 0058); undefined when the CR is unknown or this replica is not sharded.
 */
export function crOwner(
  engine: KatalogRuntime,
  entry: string,
  namespace: string | undefined,
  name: string,
): string | undefined {
  const object = engine.crossShard?.cache(entry)?.getByName(namespace, name);
  const shard = object?.metadata.labels?.[OrkestraLabel.Shard];
  return shard == null || shard === '' ? undefined : shard;
}

/** NamespaceFilter tells whether a viewer may see a namespace (`''` for cluster-scoped CRs). */
export type NamespaceFilter = (namespace: string) => boolean;

/**
 * crList returns the CRs of one entry from its informer cache, sorted by namespace and name,
 * keeping only the namespaces `visible` allows; undefined when the entry does not exist.
 */
export function crList(
  engine: KatalogRuntime,
  entry: string,
  visible: NamespaceFilter,
): CrSummary[] | undefined {
  const runtimeEntry = engine.entries.get(entry);
  if (runtimeEntry == null) return undefined;
  // A sharded replica lists every shard's CRs when it watches the entry across shards (ADR 0058).
  return (engine.crossShard?.cache(entry) ?? runtimeEntry.cache)
    .list()
    .filter((object) => visible(object.metadata.namespace ?? ''))
    .map(crSummary)
    .sort((a, b) => `${a.namespace ?? ''}/${a.name}`.localeCompare(`${b.namespace ?? ''}/${b.name}`));
}

interface InventoryItem {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly mode?: string;
  readonly source?: string;
}

function inventory(object: KubeObject): InventoryItem[] {
  const list = record(object['status'])['inventory'];
  if (!Array.isArray(list)) return [];
  return list
    .map(record)
    .filter((item) => typeof item['kind'] === 'string' && typeof item['name'] === 'string')
    .map((item) => item as unknown as InventoryItem);
}

function refKey(ref: {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name?: string | undefined;
}): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name ?? ''}`;
}

/** children lists a CR's children: its inventory joined with the child caches (live readiness), plus cached children not yet in the inventory. */
function children(engine: KatalogRuntime, cr: KubeObject): ChildView[] {
  const uid = cr.metadata.uid ?? '';
  const seen = new Map<string, ChildView>();
  const uidOf = new Map<string, string>();
  const cachedOwned = engine.children.listAllOwned(uid);
  for (const object of cachedOwned)
    if (object.metadata.uid != null)
      uidOf.set(object.metadata.uid, refKey({ ...object, ...object.metadata }));
  const describe = (ref: InventoryItem, object: KubeObject | undefined): ChildView => {
    const readiness = childReadiness(object);
    const owner = object?.metadata.ownerReferences?.find((o) => o.uid !== uid && uidOf.has(o.uid));
    const annotations = object?.metadata.annotations ?? {};
    const mode =
      ref.mode === 'create' || ref.mode === 'apply'
        ? ref.mode
        : annotations[OrkestraAnnotation.AppliedHash] == null
          ? 'create'
          : 'apply';
    return {
      id: object?.metadata.uid ?? refKey(ref),
      parent: owner?.uid ?? uid,
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      ...(ref.namespace == null ? {} : { namespace: ref.namespace }),
      name: ref.name,
      mode,
      ...(ref.source == null ? {} : { source: ref.source }),
      state: readiness.state,
      ready: readiness.state === 'Current',
      reason: readiness.message,
    };
  };
  for (const item of inventory(cr)) {
    const ref = item.namespace == null || item.namespace === '' ? { ...item, namespace: undefined } : item;
    const object = engine.children.get({
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      name: ref.name,
      ...(ref.namespace == null ? {} : { namespace: ref.namespace }),
    });
    seen.set(refKey(ref), describe(ref as InventoryItem, object));
  }
  for (const object of cachedOwned) {
    const key = refKey({ ...object, ...object.metadata });
    if (seen.has(key)) continue;
    seen.set(
      key,
      describe(
        {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name ?? '',
          ...(object.metadata.namespace == null ? {} : { namespace: object.metadata.namespace }),
        },
        object,
      ),
    );
  }
  return [...seen.values()];
}

/**
 * crDetail returns one CR with its children tree, conditions, provider outputs and status fields
 * (redacted), declared hooks and recent Events; undefined when the entry or the CR is not cached.
 */
export function crDetail(input: {
  readonly engine: KatalogRuntime;
  readonly entry: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly hooks: readonly string[];
  readonly events: (kind: string, namespace: string | undefined, name: string) => RecentEvent[];
}): CrDetail | undefined {
  const runtimeEntry = input.engine.entries.get(input.entry);
  const object = runtimeEntry?.cache.getByName(input.namespace, input.name);
  if (runtimeEntry == null || object == null) return undefined;
  const status = record(object['status']);
  const {
    conditions: _c,
    inventory: _i,
    providers,
    observedGeneration,
    katalogRevision: _r,
    ...fields
  } = status;
  const generation = object.metadata['generation'];
  return {
    ...crSummary(object),
    entry: input.entry,
    kind: object.kind,
    apiVersion: object.apiVersion,
    ...(typeof generation === 'number' ? { generation } : {}),
    ...(typeof observedGeneration === 'number' ? { observedGeneration } : {}),
    conditions: conditions(object),
    children: children(input.engine, object),
    providers: record(redact(providers ?? {})),
    fields: record(redact(fields)),
    hooks: input.hooks,
    events: input.events(object.kind, object.metadata.namespace, object.metadata.name ?? ''),
    calls: crCalls(input.engine, input.entry, object.metadata.namespace, object.metadata.name ?? ''),
  };
}
