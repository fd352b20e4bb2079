import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { commonShape } from '../schema/resources.js';
import { Quantity, TemplateValue, TplList } from '../schema/primitives.js';
import { defineResourceKind } from './resource-kind.js';

/**
 * ResourceQuotaEntry is an item of `resourceQuotas`: `hard` limits (quantities by resource name,
 * e.g. `requests.cpu: "4"`, `pods: 20`), optional `scopes` and a `scopeSelector` passed through.
 */
const ResourceQuotaEntrySchema = gated({
  ...commonShape,
  hard: z.record(z.string(), Quantity),
  scopes: TplList.optional(),
  scopeSelector: TemplateValue.optional(),
});
/** ResourceQuotaEntry is a resource quota entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ResourceQuotaEntry extends z.output<typeof ResourceQuotaEntrySchema> {}
/** ResourceQuotaEntry is an item of `resourceQuotas`. */
const ResourceQuotaEntry: z.ZodType<ResourceQuotaEntry> = ResourceQuotaEntrySchema.meta({
  id: 'ResourceQuotaEntry',
});

/**
 * resourceQuotas is the `resourceQuotas` list: ResourceQuota children (default name `<cr>-quota`),
 * written in wave 2, before any workload of the group exists.
 */
export const resourceQuotas = defineResourceKind({
  listKey: 'resourceQuotas',
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  namespaced: true,
  defaultNameSuffix: '-quota',
  wave: 2,
  entry: ResourceQuotaEntry,
});
