/**
 * ResourceKindInfo describes one resource list of a lifecycle group (katalog.md §5.1, §7.8,
 * §13.3; runtime.md §9.4).
 */
export interface ResourceKindInfo {
  /** The list key in a group, e.g. `deployments`. */
  readonly listKey: ResourceListKey;
  /** `apiVersion` of the child; null for `custom` (declared per entry). */
  readonly apiVersion: string | null;
  /** `kind` of the child; null for `custom`. */
  readonly kind: string | null;
  /** Whether the kind is namespaced; null for `custom` (discovered, or the entry's `namespaced`). */
  readonly namespaced: boolean | null;
  /** Suffix appended to the CR name for the default child name (`""` means the CR name itself); null when `name` is required. */
  readonly defaultNameSuffix: string | null;
  /** Apply wave within a group (runtime.md §9.4): all writes of a wave run concurrently. */
  readonly wave: 1 | 2 | 3 | 4 | 5 | 6;
  /** Singular and plural keys under `children` in status-field templates (katalog.md §13.3). */
  readonly childrenKeys: { readonly singular: string; readonly plural: string };
}

/** ResourceListKey is a resource list key of a lifecycle group, in the fixed kind order. */
export type ResourceListKey =
  | 'namespaces'
  | 'serviceAccounts'
  | 'roles'
  | 'roleBindings'
  | 'secrets'
  | 'configMaps'
  | 'persistentVolumeClaims'
  | 'services'
  | 'deployments'
  | 'statefulSets'
  | 'jobs'
  | 'cronJobs'
  | 'ingresses'
  | 'hpa'
  | 'pdb'
  | 'networkPolicies'
  | 'custom';

/**
 * RESOURCE_KINDS lists every resource list of a group in the fixed kind order of katalog.md §5.4,
 * which is also the order errors are reported in. Secrets with `tls` default to
 * `<cr>-orkestra-tls` instead (see {@link SECRET_TLS_DEFAULT_NAME_SUFFIX}).
 */
export const RESOURCE_KINDS: readonly ResourceKindInfo[] = deepFreeze([
  kind('namespaces', 'v1', 'Namespace', false, '-ns', 1, 'namespace', 'namespaces'),
  kind('serviceAccounts', 'v1', 'ServiceAccount', true, '-sa', 2, 'serviceaccount', 'serviceaccounts'),
  kind('roles', 'rbac.authorization.k8s.io/v1', 'Role', true, '-role', 2, 'role', 'roles'),
  kind(
    'roleBindings',
    'rbac.authorization.k8s.io/v1',
    'RoleBinding',
    true,
    '-rolebinding',
    3,
    'rolebinding',
    'rolebindings',
  ),
  kind('secrets', 'v1', 'Secret', true, '-secret', 3, 'secret', 'secrets'),
  kind('configMaps', 'v1', 'ConfigMap', true, '-config', 3, 'configmap', 'configmaps'),
  kind(
    'persistentVolumeClaims',
    'v1',
    'PersistentVolumeClaim',
    true,
    null,
    3,
    'pvc',
    'persistentvolumeclaims',
  ),
  kind('services', 'v1', 'Service', true, '-svc', 3, 'service', 'services'),
  kind('deployments', 'apps/v1', 'Deployment', true, '-deployment', 4, 'deployment', 'deployments'),
  kind('statefulSets', 'apps/v1', 'StatefulSet', true, '', 4, 'statefulset', 'statefulsets'),
  kind('jobs', 'batch/v1', 'Job', true, '-job', 4, 'job', 'jobs'),
  kind('cronJobs', 'batch/v1', 'CronJob', true, '-cronjob', 4, 'cronjob', 'cronjobs'),
  kind('ingresses', 'networking.k8s.io/v1', 'Ingress', true, '-ingress', 5, 'ingress', 'ingresses'),
  kind('hpa', 'autoscaling/v2', 'HorizontalPodAutoscaler', true, '-hpa', 5, 'hpa', 'hpas'),
  kind('pdb', 'policy/v1', 'PodDisruptionBudget', true, '-pdb', 5, 'pdb', 'pdbs'),
  kind(
    'networkPolicies',
    'networking.k8s.io/v1',
    'NetworkPolicy',
    true,
    null,
    5,
    'networkpolicy',
    'networkpolicies',
  ),
  {
    listKey: 'custom',
    apiVersion: null,
    kind: null,
    namespaced: null,
    defaultNameSuffix: null,
    wave: 6,
    childrenKeys: { singular: 'custom', plural: 'customs' },
  },
]);

/** RESOURCE_LIST_KEYS is the list keys of RESOURCE_KINDS, in order. */
export const RESOURCE_LIST_KEYS: readonly ResourceListKey[] = Object.freeze(
  RESOURCE_KINDS.map((info) => info.listKey),
);

/** SECRET_TLS_DEFAULT_NAME_SUFFIX is the default-name suffix of a Secret entry with `tls` (katalog.md §7.8). */
export const SECRET_TLS_DEFAULT_NAME_SUFFIX = '-orkestra-tls';

/** resourceKindInfo returns the RESOURCE_KINDS row of a list key. */
export function resourceKindInfo(listKey: ResourceListKey): ResourceKindInfo {
  const found = RESOURCE_KINDS.find((info) => info.listKey === listKey);
  if (found == null) throw new TypeError(`unknown resource list key ${listKey}`);
  return found;
}

function kind(
  listKey: ResourceListKey,
  apiVersion: string,
  kindName: string,
  namespaced: boolean,
  defaultNameSuffix: string | null,
  wave: ResourceKindInfo['wave'],
  singular: string,
  plural: string,
): ResourceKindInfo {
  return {
    listKey,
    apiVersion,
    kind: kindName,
    namespaced,
    defaultNameSuffix,
    wave,
    childrenKeys: { singular, plural },
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
