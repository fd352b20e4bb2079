import { z } from 'zod';
import { checkGate, gateShape, normalizeGate } from '../schema/condition.js';
import type { GateInput } from '../schema/condition.js';
import { AnnotationMap, LabelMap, Literal, TemplateValue, Tpl } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import type { ResourceKind } from './resource-kind.js';

const CustomMetadata = z.strictObject({
  name: Tpl,
  namespace: Tpl.optional(),
  labels: LabelMap.default({}),
  annotations: AnnotationMap.default({}),
});

const { name: _n, namespace: _ns, labels: _l, annotations: _a, ...customCommonShape } = commonShape;

/**
 * CustomEntry is an item of `custom`: any kind. `name`, `namespace`, `labels` and `annotations`
 * live under `metadata`; every other top-level key (`spec`, `data`, …) is part of the manifest and
 * kept as written, with every string leaf a template.
 */
const CustomEntrySchema = z
  .object({
    apiVersion: Literal,
    kind: Literal,
    metadata: CustomMetadata,
    namespaced: z.boolean().optional(),
    ...customCommonShape,
    ...gateShape,
  })
  .catchall(TemplateValue)
  .superRefine((entry, ctx) => {
    for (const key of ['name', 'namespace', 'labels', 'annotations']) {
      if (key in entry)
        ctx.addIssue({
          code: 'custom',
          message: `custom entries take \`metadata.${key}\`, not a top-level \`${key}\``,
          path: [key],
          input: entry[key],
        });
    }
    if ('status' in entry)
      ctx.addIssue({
        code: 'custom',
        message: '`status` is not allowed in custom entries',
        path: ['status'],
        input: entry['status'],
      });
    checkGate(entry as GateInput, ctx);
  })
  .transform((entry) => normalizeGate(entry as typeof entry & GateInput));
/** CustomEntry is a custom entry; manifest keys other than the known ones stay at the top level. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CustomEntry extends z.output<typeof CustomEntrySchema> {}
/**
 * CustomEntry is an item of `custom`: any kind. `name`, `namespace`, `labels` and `annotations`
 * live under `metadata`; every other top-level key (`spec`, `data`, …) is part of the manifest and
 * kept as written, with every string leaf a template.
 */
export const CustomEntry: z.ZodType<CustomEntry> = CustomEntrySchema.meta({ id: 'CustomEntry' });

/**
 * custom is the `custom` list: any kind, named per entry (`apiVersion`, `kind`); scope and plural
 * come from discovery, or the entry's `namespaced`. It is written last (wave 6).
 */
export const custom: ResourceKind<'custom', CustomEntry> = Object.freeze({
  listKey: 'custom',
  apiVersion: null,
  group: null,
  kind: null,
  plural: null,
  namespaced: null,
  defaultNameSuffix: null,
  wave: 6,
  childrenKeys: Object.freeze({ singular: 'custom', plural: 'customs' }),
  entry: CustomEntry,
});
