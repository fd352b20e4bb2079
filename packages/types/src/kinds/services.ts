import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { BoolLike, IntLike, IntOrName, Tpl, TplMap } from '../schema/primitives.js';
import { commonShape, exclusive } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

const ServicePort = z.strictObject({
  name: Tpl.optional(),
  port: IntLike,
  targetPort: IntOrName.optional(),
  protocol: Tpl.default('TCP'),
  nodePort: IntLike.optional(),
});

/** ServiceEntry is an item of `services`. */
const ServiceEntrySchema = gated({
  ...commonShape,
  type: Tpl.default('ClusterIP'),
  headless: BoolLike.default(false),
  port: IntLike.optional(),
  targetPort: IntOrName.optional(),
  protocol: Tpl.default('TCP'),
  nodePort: IntLike.optional(),
  ports: z.array(ServicePort).optional(),
  workload: Tpl.optional(),
  selector: TplMap.default({}),
}).superRefine((entry, ctx) => {
  exclusive(ctx, entry, 'port', 'ports');
  if (entry.port === undefined && entry.ports === undefined)
    ctx.addIssue({ code: 'custom', message: 'a service needs `port` or `ports`', input: entry });
  if (entry.ports !== undefined && entry.ports.length > 1) {
    entry.ports.forEach((port, index) => {
      if (port.name === undefined)
        ctx.addIssue({
          code: 'custom',
          message: '`name` is required when a service has more than one port',
          path: ['ports', index],
          input: port,
        });
    });
  }
});
/** ServiceEntry is a service entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ServiceEntry extends z.output<typeof ServiceEntrySchema> {}
/** ServiceEntry is an item of `services`. */
export const ServiceEntry: z.ZodType<ServiceEntry> = ServiceEntrySchema.meta({ id: 'ServiceEntry' });

/** services is the `services` list: Service children (v1). */
export const services = defineResourceKind({
  listKey: 'services',
  apiVersion: 'v1',
  kind: 'Service',
  namespaced: true,
  defaultNameSuffix: '-svc',
  wave: 3,
  entry: ServiceEntry,
});
