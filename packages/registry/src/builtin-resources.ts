import type { ResourceInfo } from './kube-client.js';

/**
 * BUILTIN_RESOURCES gives plural and scope of the built-in kinds the registry writes, keyed by
 * `apiVersion/kind`, so those kinds need no discovery request.
 */
export const BUILTIN_RESOURCES: Readonly<Record<string, ResourceInfo>> = {
  'v1/Namespace': { plural: 'namespaces', namespaced: false },
  'v1/ServiceAccount': { plural: 'serviceaccounts', namespaced: true },
  'v1/Secret': { plural: 'secrets', namespaced: true },
  'v1/ConfigMap': { plural: 'configmaps', namespaced: true },
  'v1/PersistentVolumeClaim': { plural: 'persistentvolumeclaims', namespaced: true },
  'v1/Service': { plural: 'services', namespaced: true },
  'v1/Pod': { plural: 'pods', namespaced: true },
  'rbac.authorization.k8s.io/v1/Role': { plural: 'roles', namespaced: true },
  'rbac.authorization.k8s.io/v1/RoleBinding': { plural: 'rolebindings', namespaced: true },
  'rbac.authorization.k8s.io/v1/ClusterRole': { plural: 'clusterroles', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { plural: 'clusterrolebindings', namespaced: false },
  'apps/v1/Deployment': { plural: 'deployments', namespaced: true },
  'apps/v1/StatefulSet': { plural: 'statefulsets', namespaced: true },
  'apps/v1/ReplicaSet': { plural: 'replicasets', namespaced: true },
  'batch/v1/Job': { plural: 'jobs', namespaced: true },
  'batch/v1/CronJob': { plural: 'cronjobs', namespaced: true },
  'networking.k8s.io/v1/Ingress': { plural: 'ingresses', namespaced: true },
  'networking.k8s.io/v1/NetworkPolicy': { plural: 'networkpolicies', namespaced: true },
  'autoscaling/v2/HorizontalPodAutoscaler': { plural: 'horizontalpodautoscalers', namespaced: true },
  'policy/v1/PodDisruptionBudget': { plural: 'poddisruptionbudgets', namespaced: true },
  'apiextensions.k8s.io/v1/CustomResourceDefinition': {
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
};
