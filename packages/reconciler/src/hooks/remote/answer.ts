/**
 * A remote reconciler's answer (upstream's `RemoteReconcileResult`, docs/reference/katalog.md
 * §15.3) checked and turned into Katalog entries: each resource in the intent form (`type` +
 * `fields`) becomes an entry of its kind's list, validated by that kind's entry schema; a full
 * object (`apiVersion`, `kind`, `metadata.name`) becomes a `custom` entry. A resource whose kind is
 * not in `managedResources` refuses the whole answer before anything is written.
 */
import {
  RESOURCE_KINDS,
  apiGroupOf,
  guessPlural,
  parseDuration,
  resourceKindInfo,
  resourceKindOf,
} from '@orkestra/types';
import type { RemoteReconciler, ResourceListKey } from '@orkestra/types';
import { isMap } from '../../is-map.js';

/** RemoteChild is one resource of an answer as a Katalog entry of list `listKey`. */
export interface RemoteChild {
  readonly listKey: ResourceListKey;
  readonly entry: Readonly<Record<string, unknown>>;
}

/** RemoteAnswer is a checked answer: the `remote` value templates see (`remote.status.phase`). */
export interface RemoteAnswer {
  /** `ok`, `requeue` or `error`. */
  readonly result: 'ok' | 'requeue' | 'error';
  /** Upstream's Go duration text, `''` when none. */
  readonly requeueAfter: string;
  readonly error: string;
  /** The fields to write under `.status`; `{}` when the answer leaves status unchanged. */
  readonly status: Readonly<Record<string, unknown>>;
  /** Whether the answer carried a `status` map (null or absent leaves status as it is). */
  readonly writesStatus: boolean;
  readonly resources: readonly RemoteChild[];
}

/** Upstream's intent types and the list each names. */
const INTENT_TYPES: Readonly<Record<string, ResourceListKey>> = {
  configmap: 'configMaps',
  cronjob: 'cronJobs',
  custom: 'custom',
  deployment: 'deployments',
  ingress: 'ingresses',
  job: 'jobs',
  secret: 'secrets',
  serviceaccount: 'serviceAccounts',
  service: 'services',
  statefulset: 'statefulSets',
};

/** ManagedKinds answers whether a kind is in `managedResources` (by API group and plural). */
export interface ManagedKinds {
  allows(group: string, kind: string, plural: string | null): boolean;
  /** `group/plural` of every managed resource, for messages. */
  readonly listed: readonly string[];
}

/** managedKinds reads `managedResources`. */
export function managedKinds(resources: RemoteReconciler['managedResources']): ManagedKinds {
  const byPlural = new Set(resources.map((r) => `${r.group}/${r.plural}`));
  const byKind = new Set(resources.flatMap((r) => (r.kind == null ? [] : [`${r.group}/${r.kind}`])));
  return {
    allows: (group, kind, plural) =>
      byKind.has(`${group}/${kind}`) || byPlural.has(`${group}/${plural ?? guessPlural(kind)}`),
    listed: resources.map((r) => (r.group === '' ? r.plural : `${r.group}/${r.plural}`)),
  };
}

/** managedKindRefs are the managed resources as `apiVersion` + `kind` (the children the entry watches and may write). */
export function managedKindRefs(
  resources: RemoteReconciler['managedResources'],
): readonly { readonly apiVersion: string; readonly kind: string }[] {
  return resources.flatMap((r) => {
    const known = RESOURCE_KINDS.find((k) => k.group === r.group && k.plural === r.plural);
    if (known?.apiVersion != null && known.kind != null)
      return [{ apiVersion: known.apiVersion, kind: known.kind }];
    if (r.version == null || r.kind == null) return [];
    return [{ apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`, kind: r.kind }];
  });
}

/** RemoteAnswerError is why an answer was refused. */
export class RemoteAnswerError extends Error {
  override readonly name: string = 'RemoteAnswerError';
}

const RESULTS = new Set(['ok', 'requeue', 'error']);

/**
 * parseRemoteAnswer checks an answer against upstream's shape and `managedResources`; throws a
 * RemoteAnswerError naming the first problem (`resources[2]: kind apps/StatefulSet is not in managedResources`).
 */
export function parseRemoteAnswer(answer: unknown, managed: ManagedKinds): RemoteAnswer {
  if (!isMap(answer)) throw new RemoteAnswerError('the answer is not a JSON object');
  const result = answer['result'] ?? 'ok';
  if (typeof result !== 'string' || !RESULTS.has(result))
    throw new RemoteAnswerError(`result must be ok, requeue or error, not ${JSON.stringify(result)}`);
  const requeueAfter = answer['requeueAfter'] ?? '';
  if (typeof requeueAfter !== 'string')
    throw new RemoteAnswerError('requeueAfter must be a duration text such as "60s"');
  if (requeueAfter !== '') {
    try {
      parseDuration(requeueAfter);
    } catch {
      throw new RemoteAnswerError(`requeueAfter ${JSON.stringify(requeueAfter)} is not a duration`);
    }
  }
  const error = answer['error'] ?? '';
  if (typeof error !== 'string') throw new RemoteAnswerError('error must be a string');
  const status = answer['status'];
  if (status != null && !isMap(status)) throw new RemoteAnswerError('status must be a map or null');
  const list = answer['resources'] ?? [];
  if (!Array.isArray(list)) throw new RemoteAnswerError('resources must be a list');
  const resources = list.map((item, i) => remoteChild(item, i, managed));
  return {
    result: result as RemoteAnswer['result'],
    requeueAfter,
    error,
    status: status ?? {},
    writesStatus: status != null,
    resources,
  };
}

function remoteChild(item: unknown, i: number, managed: ManagedKinds): RemoteChild {
  const at = `resources[${i}]`;
  if (!isMap(item)) throw new RemoteAnswerError(`${at} is not a map`);
  const refuse = (group: string, kind: string): never => {
    throw new RemoteAnswerError(
      `${at}: ${group === '' ? '' : `${group}/`}${kind} is not in managedResources (${managed.listed.join(', ') || 'none listed'})`,
    );
  };
  if (typeof item['type'] === 'string') {
    const listKey = INTENT_TYPES[item['type']];
    if (listKey == null)
      throw new RemoteAnswerError(
        `${at}: type ${JSON.stringify(item['type'])} is not one of ${Object.keys(INTENT_TYPES).join(', ')}`,
      );
    const fields = item['fields'] ?? {};
    if (!isMap(fields)) throw new RemoteAnswerError(`${at}.fields is not a map`);
    if (listKey === 'custom') return fullObject(customIntent(fields, at), at, managed, refuse);
    // A copy reads a Secret or ConfigMap the operator can see: only the Katalog's author may declare one.
    if (Object.hasOwn(fields, 'copyFrom'))
      throw new RemoteAnswerError(
        `${at}.fields.copyFrom: a remote reconciler cannot copy Secrets or ConfigMaps`,
      );
    const info = resourceKindInfo(listKey);
    if (!managed.allows(info.group ?? '', info.kind ?? '', info.plural))
      refuse(info.group ?? '', info.kind ?? '');
    const parsed = info.entry.safeParse(fields);
    if (!parsed.success)
      throw new RemoteAnswerError(`${at}.fields: ${parsed.error.issues.map(issueText).join('; ')}`);
    return { listKey, entry: parsed.data as Record<string, unknown> };
  }
  return fullObject(item, at, managed, refuse);
}

function fullObject(
  item: Readonly<Record<string, unknown>>,
  at: string,
  managed: ManagedKinds,
  refuse: (group: string, kind: string) => never,
): RemoteChild {
  const apiVersion = item['apiVersion'];
  const kind = item['kind'];
  const metadata = item['metadata'];
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !isMap(metadata))
    throw new RemoteAnswerError(
      `${at} is neither an intent (type, fields) nor an object (apiVersion, kind, metadata.name)`,
    );
  if (typeof metadata['name'] !== 'string' || metadata['name'] === '')
    throw new RemoteAnswerError(`${at}.metadata.name is missing`);
  const group = apiGroupOf(apiVersion);
  if (!managed.allows(group, kind, resourceKindOf(apiVersion, kind)?.plural ?? null)) refuse(group, kind);
  const { status: _status, ...rest } = item;
  const parsed = resourceKindInfo('custom').entry.safeParse(rest);
  if (!parsed.success) throw new RemoteAnswerError(`${at}: ${parsed.error.issues.map(issueText).join('; ')}`);
  return { listKey: 'custom', entry: parsed.data as Record<string, unknown> };
}

/** customIntent is upstream's `custom` intent: `kind` (and `apiVersion`) and `name` in `fields`, the rest its `spec`. */
function customIntent(fields: Readonly<Record<string, unknown>>, at: string): Record<string, unknown> {
  const { apiVersion, kind, name, namespace, ...spec } = fields;
  if (typeof kind !== 'string' || typeof apiVersion !== 'string')
    throw new RemoteAnswerError(`${at}.fields: a custom intent needs kind and apiVersion`);
  return {
    apiVersion,
    kind,
    metadata: { name, ...(namespace == null ? {} : { namespace }) },
    ...(Object.keys(spec).length === 0 ? {} : { spec }),
  };
}

function issueText(issue: { readonly path: readonly PropertyKey[]; readonly message: string }): string {
  return issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`;
}
