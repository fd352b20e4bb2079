import { RESOURCE_KINDS } from '@orkestra/types';
import type { ResourceInfo } from './kube-client.js';

/**
 * BUILTIN_RESOURCES gives plural and scope of the built-in kinds the registry writes, keyed by
 * `apiVersion/kind`, so those kinds need no discovery request. The child kinds come from the kind
 * facts table (@orkestra/types' RESOURCE_KINDS); the rest are kinds the runtime reads or writes
 * itself (Pods, Events, cluster RBAC, CRDs).
 */
export const BUILTIN_RESOURCES: Readonly<Record<string, ResourceInfo>> = Object.freeze({
  ...Object.fromEntries(
    RESOURCE_KINDS.flatMap((info) =>
      info.apiVersion == null || info.kind == null || info.plural == null || info.namespaced == null
        ? []
        : [[`${info.apiVersion}/${info.kind}`, { plural: info.plural, namespaced: info.namespaced }]],
    ),
  ),
  'v1/Pod': { plural: 'pods', namespaced: true },
  'v1/Event': { plural: 'events', namespaced: true },
  'rbac.authorization.k8s.io/v1/ClusterRole': { plural: 'clusterroles', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { plural: 'clusterrolebindings', namespaced: false },
  'apiextensions.k8s.io/v1/CustomResourceDefinition': {
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
});
