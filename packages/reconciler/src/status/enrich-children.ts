/**
 * What `enrich` adds to a child in the status-field context (docs/reference/katalog.md §3.5): the
 * pods of a Job, Deployment, StatefulSet or ReplicaSet under `_pods` (`pods`) and a Service's
 * endpoints under `_endpoints` (`endpoints`), in the shapes upstream's notes read (§17.6.2). The
 * objects come from the informer caches of the entry's enrich watch — never a request per reconcile.
 */
import { kindForObject } from '@orkestra/registry';
import type { KindEnrich, KubeObject } from '@orkestra/registry';

/** EnrichTarget is one `enrich` target. */
export type EnrichTarget = 'pods' | 'endpoints';

/** EnrichSources are the cached objects enrichment reads, in one namespace. */
export interface EnrichSources {
  /** The cached Pods of a namespace. */
  pods(namespace: string): readonly KubeObject[];
  /** The cached EndpointSlices of a namespace. */
  endpointSlices(namespace: string): readonly KubeObject[];
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
  const refs = pod.metadata.ownerReferences ?? [];
  if (how !== 'replicaSets')
    return child.metadata.uid != null && refs.some((o) => o.uid === child.metadata.uid);
  const hash = pod.metadata.labels?.['pod-template-hash'];
  return (
    hash != null &&
    refs.some((o) => o.kind === 'ReplicaSet' && o.name === `${child.metadata.name ?? ''}-${hash}`)
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

/**
 * enrichChild returns the child with what the targets add, as its kind declares (KindModule.enrich):
 * `_pods` (the pods its controller runs, see `ownedBy`, and for `selector`/`replicaSets` also
 * selected by its `spec.selector`), ordered by name, each with its StatefulSet ordinal where the
 * kind has them; and `_endpoints` from its EndpointSlices. A child of a kind that declares nothing
 * for the targets comes back unchanged.
 */
export function enrichChild(
  child: KubeObject,
  targets: readonly EnrichTarget[],
  sources: EnrichSources,
): KubeObject {
  const enrich = kindForObject(child)?.enrich;
  const namespace = child.metadata.namespace ?? '';
  const how = enrich?.pods;
  if (how != null && targets.includes('pods')) {
    const selector = map(map(child['spec'])['selector']);
    const set = enrich?.podOrdinals === true ? (child.metadata.name ?? '') : undefined;
    const pods = sources
      .pods(namespace)
      .filter(
        (p) => ownedBy(p, child, how) && (how === 'owner' || selects(selector, p.metadata.labels ?? {})),
      )
      .sort(byName)
      .map((p) => podOf(p, set == null ? -1 : statefulOrdinal(p, set)));
    return { ...child, _pods: pods };
  }
  if (enrich?.endpoints === true && targets.includes('endpoints'))
    return { ...child, _endpoints: endpointsOf(child, sources.endpointSlices(namespace)) };
  return child;
}
