/**
 * The one table of Kubernetes' own API groups and kinds (ADR 0037). The upstream dialect reads it
 * to refuse an entry that names a built-in kind (docs/reference/katalog.md §24); the runtime reads
 * it to know which child kinds need no discovery request.
 */

/** BuiltinKind is one of Kubernetes' own kinds: its API group (`''` is the core group), version, plural and scope. */
export interface BuiltinKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const table = (
  group: string,
  version: string,
  kinds: readonly (readonly [kind: string, plural: string, namespaced: boolean])[],
): BuiltinKind[] => kinds.map(([kind, plural, namespaced]) => ({ group, version, kind, plural, namespaced }));

/**
 * BUILTIN_KINDS are the built-in kinds an upstream entry is recognised by when it gives no group
 * (docs/reference/katalog.md §24), at the version the API server serves today. Their groups are the
 * groups of the fixed resource lists (katalog.md §5.4), which is what hasBuiltinKinds answers.
 */
export const BUILTIN_KINDS: readonly BuiltinKind[] = [
  ...table('', 'v1', [
    ['Pod', 'pods', true],
    ['ConfigMap', 'configmaps', true],
    ['Secret', 'secrets', true],
    ['Service', 'services', true],
    ['ServiceAccount', 'serviceaccounts', true],
    ['Namespace', 'namespaces', false],
    ['Node', 'nodes', false],
    ['Event', 'events', true],
    ['PersistentVolume', 'persistentvolumes', false],
    ['PersistentVolumeClaim', 'persistentvolumeclaims', true],
  ]),
  ...table('apps', 'v1', [
    ['Deployment', 'deployments', true],
    ['StatefulSet', 'statefulsets', true],
    ['DaemonSet', 'daemonsets', true],
    ['ReplicaSet', 'replicasets', true],
  ]),
  ...table('batch', 'v1', [
    ['Job', 'jobs', true],
    ['CronJob', 'cronjobs', true],
  ]),
  ...table('networking.k8s.io', 'v1', [
    ['Ingress', 'ingresses', true],
    ['NetworkPolicy', 'networkpolicies', true],
  ]),
  ...table('autoscaling', 'v2', [['HorizontalPodAutoscaler', 'horizontalpodautoscalers', true]]),
  ...table('policy', 'v1', [['PodDisruptionBudget', 'poddisruptionbudgets', true]]),
  ...table('rbac.authorization.k8s.io', 'v1', [
    ['Role', 'roles', true],
    ['RoleBinding', 'rolebindings', true],
    ['ClusterRole', 'clusterroles', false],
    ['ClusterRoleBinding', 'clusterrolebindings', false],
  ]),
];

/**
 * BUILTIN_GROUPS are the API groups of Kubernetes itself (`''` and `core` both name the core
 * group); an entry cannot define a CRD in them. Every group of BUILTIN_KINDS is among them.
 */
export const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'core',
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'scheduling.k8s.io',
  'node.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'certificates.k8s.io',
  'events.k8s.io',
]);

const KIND_GROUPS: ReadonlySet<string> = new Set(BUILTIN_KINDS.map((row) => row.group));

/**
 * hasBuiltinKinds tells whether an apiVersion (`group/version`, or `v1` for the core group) is of a
 * group some row of BUILTIN_KINDS is in. The runtime asks the API server for the scope of child
 * kinds of other groups only; in these groups a `custom` child's scope is the entry's `namespaced`.
 */
export function hasBuiltinKinds(apiVersion: string): boolean {
  const slash = apiVersion.indexOf('/');
  return KIND_GROUPS.has(slash < 0 ? '' : apiVersion.slice(0, slash));
}

/** isBuiltinKindName tells whether a kind name is one of BUILTIN_KINDS (an upstream entry that gives no group). */
export function isBuiltinKindName(kind: string): boolean {
  return BUILTIN_KINDS.some((row) => row.kind === kind);
}
