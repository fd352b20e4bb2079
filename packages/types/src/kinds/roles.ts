import { RoleEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** roles is the `roles` list: Role children (rbac.authorization.k8s.io/v1). */
export const roles = defineResourceKind({
  listKey: 'roles',
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  namespaced: true,
  defaultNameSuffix: '-role',
  wave: 2,
  entry: RoleEntry,
});
