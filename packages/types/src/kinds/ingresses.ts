import { z } from 'zod';
import { Duration } from '../duration.js';
import { gated } from '../schema/condition.js';
import { IntOrName, Tpl, TplList } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** IngressEntry is an item of `ingresses` (one rule, one path). */
const IngressEntrySchema = gated({
  ...commonShape,
  host: Tpl.optional(),
  path: Tpl.default('/'),
  pathType: Tpl.default('Prefix'),
  className: Tpl.optional(),
  serviceName: Tpl.optional(),
  servicePort: IntOrName.optional(),
  tls: z
    .strictObject({
      create: z.boolean().default(false),
      secretName: Tpl.optional(),
      hosts: TplList.optional(),
      validFor: Duration.default('1y'),
    })
    .optional(),
});
/** IngressEntry is an ingress entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface IngressEntry extends z.output<typeof IngressEntrySchema> {}
/** IngressEntry is an item of `ingresses` (one rule, one path). */
export const IngressEntry: z.ZodType<IngressEntry> = IngressEntrySchema.meta({ id: 'IngressEntry' });

/** ingresses is the `ingresses` list: Ingress children (networking.k8s.io/v1). */
export const ingresses = defineResourceKind({
  listKey: 'ingresses',
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
  defaultNameSuffix: '-ingress',
  wave: 5,
  entry: IngressEntry,
});
