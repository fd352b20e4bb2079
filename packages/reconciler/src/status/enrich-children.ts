/**
 * What `enrich` adds to a child in the status-field context (docs/reference/katalog.md §3.5): a Job's
 * pods under `_pods` (`pods`) and a Service's endpoints under `_endpoints` (`endpoints`), in the
 * shapes upstream's notes read (§17.6.2). The objects come from the informer caches of the entry's
 * enrich watch — never a request per reconcile.
 */
import type { KubeObject } from '@orkestra/registry';

/** EnrichTarget is one `enrich` target. */
export type EnrichTarget = 'pods' | 'endpoints';

/** EnrichSources are the cached objects enrichment reads, in one namespace. */
export interface EnrichSources {
  /** The cached Pods of a namespace. */
  pods(namespace: string): readonly KubeObject[];
  /** The cached EndpointSlices of a namespace. */
  endpointSlices(namespace: string): readonly KubeObject[];
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

/** podOf summarises a Pod for `_pods`. */
function podOf(pod: KubeObject): EnrichedPod {
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
  };
}

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
 * enrichChild returns the child with what the targets add: `_pods` on a Job (the pods it owns,
 * by ownerReference uid, ordered by name) and `_endpoints` on a Service. Other kinds, and a child
 * of a kind no target covers, come back unchanged.
 */
export function enrichChild(
  child: KubeObject,
  targets: readonly EnrichTarget[],
  sources: EnrichSources,
): KubeObject {
  const namespace = child.metadata.namespace ?? '';
  if (child.kind === 'Job' && targets.includes('pods')) {
    const uid = child.metadata.uid;
    const pods = sources
      .pods(namespace)
      .filter((p) => uid != null && (p.metadata.ownerReferences ?? []).some((o) => o.uid === uid))
      .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
      .map(podOf);
    return { ...child, _pods: pods };
  }
  if (child.kind === 'Service' && targets.includes('endpoints'))
    return { ...child, _endpoints: endpointsOf(child, sources.endpointSlices(namespace)) };
  return child;
}
