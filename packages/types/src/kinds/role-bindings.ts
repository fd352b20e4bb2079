import { RoleBindingEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** roleBindings is the `roleBindings` list: RoleBinding children (rbac.authorization.k8s.io/v1). */
export const roleBindings = defineResourceKind({
  listKey: 'roleBindings',
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  namespaced: true,
  defaultNameSuffix: '-rolebinding',
  wave: 3,
  entry: RoleBindingEntry,
});
