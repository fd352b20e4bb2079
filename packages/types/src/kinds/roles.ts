import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { TplList } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** PolicyRule is one rule of a Role. */
const PolicyRuleSchema = z.strictObject({
  apiGroups: TplList.default(['']),
  resources: TplList.default([]),
  verbs: TplList.min(1, { error: 'a rule needs at least one verb' }),
  resourceNames: TplList.optional(),
});
/** PolicyRule is a Role rule. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface PolicyRule extends z.output<typeof PolicyRuleSchema> {}
/** PolicyRule is one rule of a Role. */
export const PolicyRule: z.ZodType<PolicyRule> = PolicyRuleSchema.meta({ id: 'PolicyRule' });

/** RoleEntry is an item of `roles`. */
const RoleEntrySchema = gated({ ...commonShape, rules: z.array(PolicyRule) });
/** RoleEntry is a role entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface RoleEntry extends z.output<typeof RoleEntrySchema> {}
/** RoleEntry is an item of `roles`. */
export const RoleEntry: z.ZodType<RoleEntry> = RoleEntrySchema.meta({ id: 'RoleEntry' });

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
