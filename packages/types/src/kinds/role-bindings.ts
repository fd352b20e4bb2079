import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { Tpl } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** RoleBindingEntry is an item of `roleBindings`. */
const RoleBindingEntrySchema = gated({
  ...commonShape,
  roleRef: z.strictObject({ kind: z.enum(['Role', 'ClusterRole']).default('Role'), name: Tpl }),
  subjects: z.array(
    z.strictObject({
      kind: z.enum(['ServiceAccount', 'User', 'Group']).default('ServiceAccount'),
      name: Tpl,
      namespace: Tpl.optional(),
    }),
  ),
});
/** RoleBindingEntry is a role binding entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface RoleBindingEntry extends z.output<typeof RoleBindingEntrySchema> {}
/** RoleBindingEntry is an item of `roleBindings`. */
export const RoleBindingEntry: z.ZodType<RoleBindingEntry> = RoleBindingEntrySchema.meta({
  id: 'RoleBindingEntry',
});

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
