import { z } from 'zod';
import { isNamespaceName, isTemplate, Tpl } from '../schema/primitives.js';

/**
 * CopyFrom names the object whose data an entry copies: a Secret for a secrets entry, a ConfigMap
 * for a configMaps entry (docs/reference/katalog.md §7.2, ADR 0115). A literal namespace must be a
 * namespace name. Whether a template may pick the namespace, or the source of another namespace,
 * depends on the entry's scope and is checked there (checkChildNamespaces).
 */
const CopyFromSchema = z.strictObject({ name: Tpl, namespace: Tpl.optional() }).superRefine((from, ctx) => {
  const namespace = from.namespace;
  if (namespace !== undefined && !isTemplate(namespace) && !isNamespaceName(namespace))
    ctx.addIssue({
      code: 'custom',
      message: 'must be a namespace name (DNS-1123 label)',
      path: ['namespace'],
      input: namespace,
    });
});
/** CopyFrom is a copy source. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CopyFrom extends z.output<typeof CopyFromSchema> {}
/** CopyFrom names the object (of the entry's own kind) an entry copies its data from. */
export const CopyFrom: z.ZodType<CopyFrom> = CopyFromSchema.meta({ id: 'CopyFrom' });
