import type { HelperDefinition } from './helpers.js';
import { isPlainMap, parseDecimal, stringForm } from './string-form.js';

/**
 * Upstream's built-in notes over a Kubernetes object — a child under `.children.<kind>`, a cross
 * read, or the CR itself (docs/reference/katalog.md §17.6.1): metadata and condition access,
 * generation tracking, replica counts, containers and Services. Each is nil-safe as upstream's is:
 * an absent object or field gives the empty value of the result's type ("", 0, false, {}), never an
 * error.
 */

/**
 * GO_WORD_NOTES are the notes whose names are ordinary words (`name`, `spec`, `status`, …). A
 * Handlebars template reads those words as context keys, so the notes are registered under
 * internal names and only a Go template's call (`{{ name .children.deployment }}`) reaches them.
 */
export const GO_WORD_NOTES: Readonly<Record<string, string>> = {
  meta: '__noteMeta',
  labels: '__noteLabels',
  annotations: '__noteAnnotations',
  spec: '__noteSpec',
  status: '__noteStatus',
  phase: '__notePhase',
  name: '__noteName',
  namespace: '__noteNamespace',
  generation: '__noteGeneration',
  observedGeneration: '__noteObservedGeneration',
};

const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((current, key) => (isPlainMap(current) ? current[key] : undefined), value);

const mapAt = (value: unknown, ...keys: string[]): Record<string, unknown> => {
  const found = at(value, ...keys);
  return isPlainMap(found) ? found : {};
};

const textAt = (value: unknown, ...keys: string[]): string => {
  const found = at(value, ...keys);
  return found == null || isPlainMap(found) || Array.isArray(found) ? '' : stringForm(found);
};

const intAt = (value: unknown, ...keys: string[]): number => {
  const n = parseDecimal(at(value, ...keys));
  return n === undefined ? 0 : Math.trunc(n);
};

const index = (value: unknown): number => {
  const n = parseDecimal(value ?? 0);
  return n === undefined || !Number.isInteger(n) ? -1 : n;
};

const one = (fn: (obj: unknown) => unknown): HelperDefinition => ({
  minArgs: 1,
  maxArgs: 1,
  fn: ([obj]) => fn(obj),
});

/** condition is the first entry of `status.conditions` whose `type` is the one asked for. */
function condition(obj: unknown, type: unknown): Record<string, unknown> {
  const list = at(obj, 'status', 'conditions');
  const want = stringForm(type);
  const found = Array.isArray(list) ? list.find((c) => isPlainMap(c) && c['type'] === want) : undefined;
  return isPlainMap(found) ? found : {};
}

/** containers are the pod template's containers (a workload) or the pod's own (a Pod). */
function containers(obj: unknown): readonly unknown[] {
  const list = at(obj, 'spec', 'template', 'spec', 'containers') ?? at(obj, 'spec', 'containers');
  return Array.isArray(list) ? list : [];
}

function ports(obj: unknown, containerIndex: unknown): readonly unknown[] {
  const list = at(containers(obj)[index(containerIndex)], 'ports');
  return Array.isArray(list) ? list : [];
}

const desiredReplicas = (obj: unknown): number => {
  const replicas = at(obj, 'spec', 'replicas');
  return replicas == null ? 1 : intAt(obj, 'spec', 'replicas');
};

const firstOwner = (obj: unknown): unknown => {
  const owners = at(obj, 'metadata', 'ownerReferences');
  return Array.isArray(owners) ? owners[0] : undefined;
};

const loadBalancer = (obj: unknown): unknown => {
  const ingress = at(obj, 'status', 'loadBalancer', 'ingress');
  return Array.isArray(ingress) ? ingress[0] : undefined;
};

/** listText joins the non-empty, distinct texts each list item gives, comma-separated as upstream does. */
function listText(list: unknown, texts: (item: unknown) => readonly string[]): string {
  if (!Array.isArray(list)) return '';
  const seen = new Set<string>();
  for (const item of list) for (const text of texts(item)) if (text !== '') seen.add(text);
  return [...seen].join(', ');
}

/**
 * endpointsReady is true when an Endpoints object has a ready address in a subset, or an
 * EndpointSlice an endpoint whose `conditions.ready` is not false.
 */
function endpointsReady(obj: unknown): boolean {
  const subsets = at(obj, 'subsets');
  if (Array.isArray(subsets)) {
    return subsets.some(
      (s) => Array.isArray(at(s, 'addresses')) && (at(s, 'addresses') as unknown[]).length > 0,
    );
  }
  const endpoints = at(obj, 'endpoints');
  return Array.isArray(endpoints) && endpoints.some((e) => at(e, 'conditions', 'ready') !== false);
}

/** upstreamKubeNotes returns the notes, keyed by name (the ordinary words under GO_WORD_NOTES' names). */
export function upstreamKubeNotes(): Record<string, HelperDefinition> {
  const word = (name: string): string => GO_WORD_NOTES[name] ?? name;
  return {
    // Metadata, spec and status.
    [word('meta')]: one((obj) => mapAt(obj, 'metadata')),
    [word('labels')]: one((obj) => mapAt(obj, 'metadata', 'labels')),
    [word('annotations')]: one((obj) => mapAt(obj, 'metadata', 'annotations')),
    [word('spec')]: one((obj) => mapAt(obj, 'spec')),
    [word('status')]: one((obj) => mapAt(obj, 'status')),
    [word('phase')]: one((obj) => textAt(obj, 'status', 'phase')),
    [word('name')]: one((obj) => textAt(obj, 'metadata', 'name')),
    [word('namespace')]: one((obj) => textAt(obj, 'metadata', 'namespace')),
    ownerKind: one((obj) => textAt(firstOwner(obj), 'kind')),
    ownerName: one((obj) => textAt(firstOwner(obj), 'name')),
    // Conditions (hasCondition is the library's, katalog.md §17.6).
    conditionReason: { minArgs: 2, maxArgs: 2, fn: ([obj, type]) => textAt(condition(obj, type), 'reason') },
    conditionMessage: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([obj, type]) => textAt(condition(obj, type), 'message'),
    },
    // Lifecycle and generation tracking.
    isTerminating: one((obj) => at(obj, 'metadata', 'deletionTimestamp') != null),
    [word('generation')]: one((obj) => intAt(obj, 'metadata', 'generation')),
    [word('observedGeneration')]: one((obj) => intAt(obj, 'status', 'observedGeneration')),
    isSynced: one(
      (obj) => intAt(obj, 'metadata', 'generation') === intAt(obj, 'status', 'observedGeneration'),
    ),
    resourceCPU: one((obj) => textAt(obj, 'spec', 'resources', 'requests', 'cpu')),
    resourceMemory: one((obj) => textAt(obj, 'spec', 'resources', 'requests', 'memory')),
    // Replicas (readyReplicas and allReplicasReady are the library's, katalog.md §17.6).
    desiredReplicas: one(desiredReplicas),
    availableReplicas: one((obj) => intAt(obj, 'status', 'availableReplicas')),
    updatedReplicas: one((obj) => intAt(obj, 'status', 'updatedReplicas')),
    rolloutComplete: one((obj) => intAt(obj, 'status', 'updatedReplicas') === desiredReplicas(obj)),
    // Containers (containerImage, containerEnv and containerPort are in upstream-helpers.ts).
    containerCount: one((obj) => containers(obj).length),
    hasContainerPort: {
      minArgs: 3,
      maxArgs: 3,
      fn: ([obj, containerIndex, port]) =>
        ports(obj, containerIndex).some((p) => parseDecimal(at(p, 'containerPort')) === parseDecimal(port)),
    },
    containerPortByName: {
      minArgs: 3,
      maxArgs: 3,
      fn: ([obj, containerIndex, portName]) => {
        const want = stringForm(portName);
        if (want === '') return 0;
        const found = ports(obj, containerIndex).find((p) => at(p, 'name') === want);
        return intAt(found, 'containerPort');
      },
    },
    containerPorts: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([obj, containerIndex]) =>
        ports(obj, containerIndex)
          .map((p) => String(intAt(p, 'containerPort')))
          .join(','),
    },
    // Services and endpoints.
    serviceClusterIP: one((obj) => textAt(obj, 'spec', 'clusterIP')),
    serviceNodePort: one((obj) => {
      const list = at(obj, 'spec', 'ports');
      return intAt(Array.isArray(list) ? list[0] : undefined, 'nodePort');
    }),
    serviceLoadBalancerIP: one((obj) => textAt(loadBalancer(obj), 'ip')),
    serviceLoadBalancerHost: one((obj) => textAt(loadBalancer(obj), 'hostname')),
    endpointsReady: one(endpointsReady),
    // Ingresses.
    ingressReady: one(
      (obj) => textAt(loadBalancer(obj), 'ip') !== '' || textAt(loadBalancer(obj), 'hostname') !== '',
    ),
    ingressHost: one((obj) => textAt(loadBalancer(obj), 'hostname')),
    ingressIP: one((obj) => textAt(loadBalancer(obj), 'ip')),
    ingressClassName: one((obj) => textAt(obj, 'spec', 'ingressClassName')),
    ingressRules: one((obj) => listText(at(obj, 'spec', 'rules'), (rule) => [textAt(rule, 'host')])),
    ingressTLSHosts: one((obj) =>
      listText(at(obj, 'spec', 'tls'), (entry) => {
        const hosts = at(entry, 'hosts');
        return Array.isArray(hosts) ? hosts.map((h) => (typeof h === 'string' ? h : '')) : [];
      }),
    ),
    // PersistentVolumeClaims.
    pvcPhase: one((obj) => textAt(obj, 'status', 'phase')),
    pvcBound: one((obj) => textAt(obj, 'status', 'phase') === 'Bound'),
    pvcCapacity: one((obj) => textAt(obj, 'spec', 'resources', 'requests', 'storage')),
    pvcStorageClass: one((obj) => textAt(obj, 'spec', 'storageClassName')),
    pvcAccessModes: one((obj) =>
      listText(at(obj, 'spec', 'accessModes'), (mode) => [typeof mode === 'string' ? mode : '']),
    ),
    // CronJobs.
    cronJobActiveCount: one((obj) => {
      const active = at(obj, 'status', 'active');
      return Array.isArray(active) ? active.length : 0;
    }),
    cronJobLastScheduleTime: one((obj) => textAt(obj, 'status', 'lastScheduleTime')),
    cronJobLastSuccessTime: one((obj) => textAt(obj, 'status', 'lastSuccessfulTime')),
    cronJobNextScheduleTime: one((obj) => textAt(obj, 'status', 'nextScheduleTime')),
    // Jobs (jobSucceeded and jobFailed are the library's, katalog.md §17.6).
    jobActive: one((obj) => intAt(obj, 'status', 'active') > 0),
    // HorizontalPodAutoscalers.
    hpaCurrentReplicas: one((obj) => intAt(obj, 'status', 'currentReplicas')),
    hpaDesiredReplicas: one((obj) => intAt(obj, 'status', 'desiredReplicas')),
    hpaMinReplicas: one((obj) =>
      at(obj, 'spec', 'minReplicas') == null ? 1 : intAt(obj, 'spec', 'minReplicas'),
    ),
    hpaMaxReplicas: one((obj) => intAt(obj, 'spec', 'maxReplicas')),
    hpaScalingActive: one((obj) => condition(obj, 'ScalingActive')['status'] === 'True'),
    hpaAbleToScale: one((obj) => condition(obj, 'AbleToScale')['status'] === 'True'),
    hpaScalingLimited: one((obj) => condition(obj, 'ScalingLimited')['status'] === 'True'),
    hpaScaling: one(
      (obj) =>
        condition(obj, 'ScalingActive')['status'] === 'True' &&
        intAt(obj, 'status', 'currentReplicas') !== intAt(obj, 'status', 'desiredReplicas'),
    ),
    hpaAtMax: one((obj) => intAt(obj, 'status', 'currentReplicas') >= intAt(obj, 'spec', 'maxReplicas')),
    // Upstream reads these from what `enrich: [hpa]` adds; the HPA itself carries the same.
    hpaScaleTargetName: one((obj) => textAt(obj, 'spec', 'scaleTargetRef', 'name')),
    hpaScaleTargetKind: one((obj) => textAt(obj, 'spec', 'scaleTargetRef', 'kind')),
    hpaMetricTypes: one((obj) => {
      const metrics = at(obj, 'status', 'currentMetrics');
      return Array.isArray(metrics)
        ? metrics
            .map((m) => textAt(m, 'type'))
            .filter((t) => t !== '')
            .join(', ')
        : '';
    }),
  };
}
