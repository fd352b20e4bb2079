/**
 * What `enrich` adds to a child in the status-field context (docs/reference/katalog.md §3.5): the
 * pods of a Job, Deployment, StatefulSet or ReplicaSet under `_pods` (`pods`), a Service's
 * endpoints under `_endpoints` (`endpoints`) and the pods its selector selects under `_backingPods`
 * (`backingpods`), the controller owner under `_owner` (`owner`), a Deployment's ReplicaSets under
 * `_replicaSets` (`replicasets`), a StatefulSet's claims under `_pvcs` (`pvcs`), and a CronJob's
 * Jobs under `_lastJob`, `_lastSuccessfulJob` and `_activeJobs` (`cronjob`), in the shapes
 * upstream's notes read (katalog.md §17.6.2). The objects come from the informer caches of the entry's enrich
 * watch (or, for `owner`, the child itself) — never a request per reconcile.
 */
import { kindForObject } from '@orkestra/registry';
import type { KindEnrich, KubeObject } from '@orkestra/registry';
import { evaluateConditions } from '@orkestra/types';
import type { EnrichRule, EvaluateConditionsOptions } from '@orkestra/types';

/** EnrichTarget is one `enrich` target. */
export type EnrichTarget = EnrichRule['target'];

/**
 * activeEnrichTargets is what `enrich` adds at one status write (docs/reference/katalog.md §3.5):
 * every plain target, and each conditional one (`{<target>: {when, or}}`) whose conditions hold
 * over `scope` — the CR's context with its children as the cache has them, built only when some
 * target is conditional.
 */
export function activeEnrichTargets(
  rules: readonly EnrichRule[],
  scope: () => Readonly<Record<string, unknown>>,
  options: EvaluateConditionsOptions,
): EnrichTarget[] {
  if (rules.every((rule) => rule.gate == null)) return rules.map((rule) => rule.target);
  const context = scope();
  return rules
    .filter((rule) => rule.gate == null || evaluateConditions(rule.gate, context, options).passed)
    .map((rule) => rule.target);
}

/** EnrichSources are the cached objects enrichment reads, in one namespace. */
export interface EnrichSources {
  /** The cached Pods of a namespace. */
  pods(namespace: string): readonly KubeObject[];
  /** The cached EndpointSlices of a namespace. */
  endpointSlices(namespace: string): readonly KubeObject[];
  /** The cached ReplicaSets of a namespace (`replicasets`). */
  replicaSets?(namespace: string): readonly KubeObject[];
  /** The cached PersistentVolumeClaims of a namespace (`pvcs`). */
  claims?(namespace: string): readonly KubeObject[];
  /** The cached Jobs of a namespace (`cronjob`). */
  jobs?(namespace: string): readonly KubeObject[];
  /** The cached Nodes (`node`; cluster-scoped). */
  nodes?(): readonly KubeObject[];
  /** The cached PersistentVolumes (`pvc`; cluster-scoped). */
  volumes?(): readonly KubeObject[];
  /** The cached StorageClasses (`storageclass`; cluster-scoped). */
  storageClasses?(): readonly KubeObject[];
  /** The cached Warning Events of a namespace (`events`). */
  warningEvents?(namespace: string): readonly KubeObject[];
}

/** EnrichedContainer is one container of a `_pods` item, from the pod's `containerStatuses`. */
export interface EnrichedContainer {
  readonly name: string;
  readonly image: string;
  /** `Running`, `Waiting`, `Terminated`, or `""` while the kubelet has not reported a state. */
  readonly state: string;
  /** The waiting or terminated reason (`CrashLoopBackOff`, `OOMKilled`, …); `""` otherwise. */
  readonly reason: string;
  readonly ready: boolean;
  readonly restartCount: number;
}

/** EnrichedPod is one `_pods` item. */
export interface EnrichedPod {
  readonly name: string;
  readonly phase: string;
  readonly ip: string;
  readonly node: string;
  readonly ready: boolean;
  readonly restartCount: number;
  /** The first terminated container's exit code; -1 while none has terminated. */
  readonly exitCode: number;
  /** A StatefulSet pod's ordinal (`<set>-<n>`); -1 for every other pod. */
  readonly ordinal: number;
  readonly containers: readonly EnrichedContainer[];
}

/** EnrichedEndpoint is one `_endpoints` item: one address of an EndpointSlice with the slice's first port. */
export interface EnrichedEndpoint {
  readonly ip: string;
  readonly port: number;
  readonly ready: boolean;
}

type Loose = Record<string, unknown>;
const map = (value: unknown): Loose =>
  value != null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
const list = (value: unknown): Loose[] => (Array.isArray(value) ? value.map(map) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

/** containerOf summarises one container status: its state's name and reason. */
function containerOf(status: Loose): EnrichedContainer {
  const state = map(status['state']);
  const [name, detail] =
    'running' in state
      ? ['Running', {}]
      : 'waiting' in state
        ? ['Waiting', map(state['waiting'])]
        : 'terminated' in state
          ? ['Terminated', map(state['terminated'])]
          : ['', {}];
  return {
    name: text(status['name']),
    image: text(status['image']),
    state: name,
    reason: text((detail as Loose)['reason']),
    ready: status['ready'] === true,
    restartCount: num(status['restartCount'], 0),
  };
}

/** podOf summarises a Pod for `_pods`; `ordinal` is the StatefulSet ordinal, or -1. */
function podOf(pod: KubeObject, ordinal: number): EnrichedPod {
  const status = map(pod['status']);
  const containers = list(status['containerStatuses']);
  const terminated = containers
    .map((c) => map(map(c['state'])['terminated']))
    .find((t) => typeof t['exitCode'] === 'number');
  return {
    name: pod.metadata.name ?? '',
    phase: text(status['phase']),
    ip: text(status['podIP']),
    node: text(map(pod['spec'])['nodeName']),
    ready: list(status['conditions']).some((c) => c['type'] === 'Ready' && c['status'] === 'True'),
    restartCount: containers.reduce((sum, c) => sum + num(c['restartCount'], 0), 0),
    exitCode: terminated == null ? -1 : num(terminated['exitCode'], -1),
    ordinal,
    containers: containers.map(containerOf),
  };
}

/**
 * selects reports whether a workload's `spec.selector` (matchLabels and matchExpressions, with the
 * API's semantics) selects the labels. An absent or empty selector selects nothing: the API
 * requires one on every workload kind enriched here, so an empty one is a child not yet read.
 */
function selects(selector: Loose, labels: Readonly<Record<string, string>>): boolean {
  const matchLabels = Object.entries(map(selector['matchLabels']));
  const expressions = list(selector['matchExpressions']);
  if (matchLabels.length === 0 && expressions.length === 0) return false;
  if (!matchLabels.every(([key, value]) => labels[key] === value)) return false;
  return expressions.every((e) => {
    const key = text(e['key']);
    const values = Array.isArray(e['values']) ? (e['values'] as unknown[]) : [];
    const has = Object.hasOwn(labels, key);
    switch (e['operator']) {
      case 'In':
        return has && values.includes(labels[key]);
      case 'NotIn':
        return !has || !values.includes(labels[key]);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return false;
    }
  });
}

/**
 * statefulOrdinal is a StatefulSet pod's ordinal: the `apps.kubernetes.io/pod-index` label, else the
 * decimal suffix after `<set>-`; -1 when neither is there.
 */
function statefulOrdinal(pod: KubeObject, set: string): number {
  const label = pod.metadata.labels?.['apps.kubernetes.io/pod-index'];
  const name = pod.metadata.name ?? '';
  const suffix = label ?? (name.startsWith(`${set}-`) ? name.slice(set.length + 1) : '');
  return /^(0|[1-9][0-9]*)$/.test(suffix) ? Number(suffix) : -1;
}

/**
 * ownedBy reports whether the pod's controller is what the workload runs its pods through (its
 * kind's `enrich.pods`): the child itself (by uid), or one of its ReplicaSets (named
 * `<name>-<pod-template-hash>`, the hash being the pod's own label) — so a Job's pods never count
 * for a Deployment whose selector they happen to match.
 */
function ownedBy(pod: KubeObject, child: KubeObject, how: NonNullable<KindEnrich['pods']>): boolean {
  if (how !== 'replicaSets') return ownsByUid(pod, child.metadata.uid);
  const hash = pod.metadata.labels?.['pod-template-hash'];
  return (
    hash != null &&
    (pod.metadata.ownerReferences ?? []).some(
      (o) => o.kind === 'ReplicaSet' && o.name === `${child.metadata.name ?? ''}-${hash}`,
    )
  );
}

const byName = (a: KubeObject, b: KubeObject): number =>
  (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

/** endpointsOf lists a Service's endpoints from its EndpointSlices (label `kubernetes.io/service-name`), ordered by slice name. */
function endpointsOf(service: KubeObject, slices: readonly KubeObject[]): EnrichedEndpoint[] {
  const name = service.metadata.name;
  return slices
    .filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === name)
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .flatMap((slice) => {
      const port = num(list(slice['ports'])[0]?.['port'], 0);
      return list(slice['endpoints']).flatMap((endpoint) => {
        // EndpointSlice semantics: an absent `ready` means ready.
        const ready = map(endpoint['conditions'])['ready'] !== false;
        const addresses = Array.isArray(endpoint['addresses']) ? (endpoint['addresses'] as unknown[]) : [];
        return addresses.filter((a): a is string => typeof a === 'string').map((ip) => ({ ip, port, ready }));
      });
    });
}

/** toInt64 reads a count as upstream's enrichment does: a number truncated, a decimal string, else 0. */
function toInt64(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : 0;
  if (typeof value === 'string' && /^[+-]?[0-9]+$/.test(value.trim())) return Number(value.trim());
  return 0;
}

/** ownsByUid reports whether an owner reference of the object names the uid. */
const ownsByUid = (object: KubeObject, uid: string | undefined): boolean =>
  uid != null && uid !== '' && (object.metadata.ownerReferences ?? []).some((o) => o.uid === uid);

/** controllerOf is `_owner`: the name, kind and uid of the child's controller owner reference. */
function controllerOf(child: KubeObject): Record<string, unknown> | undefined {
  const ref = (child.metadata.ownerReferences ?? []).find((o) => o.controller === true);
  return ref == null ? undefined : { name: ref.name, kind: ref.kind, uid: ref.uid };
}

/** backingPodsOf are the pods a Service's flat `spec.selector` selects; an empty selector selects none. */
function backingPodsOf(service: KubeObject, pods: readonly KubeObject[]): EnrichedPod[] {
  const selector = Object.entries(map(map(service['spec'])['selector']));
  if (selector.length === 0) return [];
  return pods
    .filter((p) => selector.every(([key, value]) => p.metadata.labels?.[key] === String(value)))
    .sort(byName)
    .map((p) => podOf(p, -1));
}

/**
 * claimsOf are a StatefulSet's claims, `<template>-<set>-<ordinal>` for each volumeClaimTemplate and
 * ordinal below `spec.replicas` (an absent or 0 count is 1, as upstream's enrichment reads it), in
 * that order, those that exist.
 */
function claimsOf(set: KubeObject, claims: readonly KubeObject[]): KubeObject[] {
  const spec = map(set['spec']);
  const replicas = toInt64(spec['replicas']) || 1;
  const byClaimName = new Map(claims.map((c) => [c.metadata.name ?? '', c]));
  return list(spec['volumeClaimTemplates']).flatMap((template) => {
    const name = text(map(template['metadata'])['name']);
    if (name === '') return [];
    return Array.from({ length: Math.max(0, replicas) }, (_, i) =>
      byClaimName.get(`${name}-${set.metadata.name ?? ''}-${i}`),
    ).filter((c): c is KubeObject => c != null);
  });
}

/** cronJobRunsOf are `_activeJobs` (status.active), `_lastJob` and `_lastSuccessfulJob` of a CronJob's owned Jobs, newest first. */
function cronJobRunsOf(cronJob: KubeObject, jobs: readonly KubeObject[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const active = map(cronJob['status'])['active'];
  if (Array.isArray(active) && active.length > 0) out['_activeJobs'] = active;
  const created = (j: KubeObject): string => text(j.metadata['creationTimestamp']);
  const owned = jobs
    .filter((j) => ownsByUid(j, cronJob.metadata.uid))
    .sort((a, b) => created(b).localeCompare(created(a)) || byName(b, a));
  if (owned[0] != null) out['_lastJob'] = owned[0];
  const succeeded = owned.find((j) => toInt64(map(j['status'])['succeeded']) > 0);
  if (succeeded != null) out['_lastSuccessfulJob'] = succeeded;
  return out;
}

const named = (objects: readonly KubeObject[] | undefined, name: string): KubeObject | undefined =>
  name === '' ? undefined : objects?.find((o) => o.metadata.name === name);

/** nodeSummaryOf is `_node`: the Node's name and its well-known topology and instance-type labels. */
function nodeSummaryOf(node: KubeObject): Record<string, string> {
  const labels = node.metadata.labels ?? {};
  return {
    name: node.metadata.name ?? '',
    zone: labels['topology.kubernetes.io/zone'] ?? '',
    region: labels['topology.kubernetes.io/region'] ?? '',
    instanceType: labels['node.kubernetes.io/instance-type'] ?? '',
  };
}

/** warningOf is one `_warnings` item: the event's reason, message, count and last timestamp. */
function warningOf(event: KubeObject): Record<string, unknown> {
  return {
    reason: text(event['reason']),
    message: text(event['message']),
    count: toInt64(event['count']),
    lastTimestamp: text(event['lastTimestamp']),
  };
}

/** warningsAbout are the Warning events whose involved object is `kind`/`name`, by event name. */
const warningsAbout = (events: readonly KubeObject[], kind: string, name: string): KubeObject[] =>
  events
    .filter((e) => {
      const involved = map(e['involvedObject']);
      return e['type'] === 'Warning' && involved['kind'] === kind && involved['name'] === name;
    })
    .sort(byName);

/**
 * warningsOf is `_warnings`: the child's own Warning events and, for a workload kind
 * (`podEvents`), those of the pods its selector selects, pod by pod in name order.
 */
function warningsOf(child: KubeObject, enrich: KindEnrich | undefined, sources: EnrichSources): unknown[] {
  const namespace = child.metadata.namespace ?? '';
  const events = sources.warningEvents?.(namespace) ?? [];
  if (events.length === 0) return [];
  const own = warningsAbout(events, child.kind, child.metadata.name ?? '');
  const selector = map(map(child['spec'])['selector']);
  const pods =
    enrich?.podEvents === true
      ? sources
          .pods(namespace)
          .filter((p) => selects(selector, p.metadata.labels ?? {}))
          .sort(byName)
      : [];
  return [...own, ...pods.flatMap((p) => warningsAbout(events, 'Pod', p.metadata.name ?? ''))].map(warningOf);
}

/**
 * enrichChild returns the child with what the targets add, as its kind declares (KindModule.enrich):
 * `_pods` (the pods its controller runs, see `ownedBy`, and for `selector`/`replicaSets` also
 * selected by its `spec.selector`), ordered by name, each with its StatefulSet ordinal where the
 * kind has them; `_endpoints` from its EndpointSlices; `_backingPods`, `_replicaSets`, `_pvcs` and
 * the CronJob runs, `_node` (a Pod's), `_pv` and `_storageClass` (a claim's) — each left out when
 * there is none, as upstream does; and, for any kind, `_warnings` (its Warning events, with its
 * pods' for a workload kind) and
 * `_owner` from its controller owner reference. A child to which no target applies comes back
 * unchanged.
 */
export function enrichChild(
  child: KubeObject,
  targets: readonly EnrichTarget[],
  sources: EnrichSources,
): KubeObject {
  const enrich = kindForObject(child)?.enrich;
  const namespace = child.metadata.namespace ?? '';
  const added: Record<string, unknown> = {};
  const how = enrich?.pods;
  if (how != null && targets.includes('pods')) {
    const selector = map(map(child['spec'])['selector']);
    const set = enrich?.podOrdinals === true ? (child.metadata.name ?? '') : undefined;
    added['_pods'] = sources
      .pods(namespace)
      .filter(
        (p) => ownedBy(p, child, how) && (how === 'owner' || selects(selector, p.metadata.labels ?? {})),
      )
      .sort(byName)
      .map((p) => podOf(p, set == null ? -1 : statefulOrdinal(p, set)));
  }
  if (enrich?.endpoints === true && targets.includes('endpoints'))
    added['_endpoints'] = endpointsOf(child, sources.endpointSlices(namespace));
  if (enrich?.backingPods === true && targets.includes('backingpods')) {
    const pods = backingPodsOf(child, sources.pods(namespace));
    if (pods.length > 0) added['_backingPods'] = pods;
  }
  if (enrich?.ownedReplicaSets === true && targets.includes('replicasets')) {
    const owned = (sources.replicaSets?.(namespace) ?? [])
      .filter((rs) => ownsByUid(rs, child.metadata.uid))
      .sort(byName);
    if (owned.length > 0) added['_replicaSets'] = owned;
  }
  if (enrich?.claims === true && targets.includes('pvcs')) {
    const claims = claimsOf(child, sources.claims?.(namespace) ?? []);
    if (claims.length > 0) added['_pvcs'] = claims;
  }
  if (enrich?.jobs === true && targets.includes('cronjob'))
    Object.assign(added, cronJobRunsOf(child, sources.jobs?.(namespace) ?? []));
  if (enrich?.node === true && targets.includes('node')) {
    const node = named(sources.nodes?.(), text(map(child['spec'])['nodeName']));
    if (node != null) added['_node'] = nodeSummaryOf(node);
  }
  if (enrich?.volume === true && targets.includes('pvc')) {
    const volume = named(sources.volumes?.(), text(map(child['spec'])['volumeName']));
    // Upstream gives the volume an empty status when it has none.
    if (volume != null) added['_pv'] = volume['status'] == null ? { ...volume, status: {} } : volume;
  }
  if (enrich?.storageClass === true && targets.includes('storageclass')) {
    const storageClass = named(sources.storageClasses?.(), text(map(child['spec'])['storageClassName']));
    if (storageClass != null) added['_storageClass'] = storageClass;
  }
  if (targets.includes('events')) {
    const warnings = warningsOf(child, enrich, sources);
    if (warnings.length > 0) added['_warnings'] = warnings;
  }
  if (targets.includes('owner')) {
    const owner = controllerOf(child);
    if (owner != null) added['_owner'] = owner;
  }
  return Object.keys(added).length === 0 ? child : { ...child, ...added };
}
