import { z } from 'zod';
import { Duration } from '../duration.js';
import { gated } from '../schema/condition.js';
import { isNamespaceName, isTemplate, Tpl, TplList, TplMap } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** SecretTls generates a CA and a server certificate (docs/reference/katalog.md §7.2). */
const SecretTlsSchema = z.strictObject({
  commonName: Tpl.optional(),
  dnsNames: TplList.optional(),
  validFor: Duration.optional(),
  organization: Tpl.default('orkestra'),
});
/** SecretTls is a TLS generation block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface SecretTls extends z.output<typeof SecretTlsSchema> {}
/** SecretTls generates a CA and a server certificate (docs/reference/katalog.md §7.2). */
export const SecretTls: z.ZodType<SecretTls> = SecretTlsSchema.meta({ id: 'SecretTls' });

/**
 * SecretCopyFrom names the Secret whose data a secrets entry copies (docs/reference/katalog.md §7.2).
 * A literal namespace must be a namespace name. Whether a template may pick the namespace, or the
 * Secret of another namespace, depends on the entry's scope and is checked there (checkCopySources).
 */
const SecretCopyFromSchema = z
  .strictObject({ name: Tpl, namespace: Tpl.optional() })
  .superRefine((from, ctx) => {
    const namespace = from.namespace;
    if (namespace !== undefined && !isTemplate(namespace) && !isNamespaceName(namespace))
      ctx.addIssue({
        code: 'custom',
        message: 'must be a namespace name (DNS-1123 label)',
        path: ['namespace'],
        input: namespace,
      });
  });
/** SecretCopyFrom is a copy source. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface SecretCopyFrom extends z.output<typeof SecretCopyFromSchema> {}
/** SecretCopyFrom names the Secret a secrets entry copies its data from. */
const SecretCopyFrom: z.ZodType<SecretCopyFrom> = SecretCopyFromSchema.meta({ id: 'SecretCopyFrom' });

/** SecretEntry is an item of `secrets`; `rotateAfter` and `tls` imply `once`, `tls` implies type `kubernetes.io/tls`. */
const SecretEntrySchema = gated({
  ...commonShape,
  type: Tpl.optional(),
  data: TplMap.default({}),
  once: z.boolean().default(false),
  rotateAfter: Duration.optional(),
  tls: SecretTls.optional(),
  copyFrom: SecretCopyFrom.optional(),
})
  .superRefine((entry, ctx) => {
    if (entry.copyFrom !== undefined && entry.tls !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: '`copyFrom` and `tls` are exclusive: a Secret is either copied or generated',
        path: ['copyFrom'],
        input: entry.copyFrom,
      });
    if (entry.copyFrom !== undefined && (entry.once || entry.rotateAfter !== undefined))
      ctx.addIssue({
        code: 'custom',
        message:
          '`copyFrom` cannot be combined with `once` or `rotateAfter`: a copy follows its source (declare it under onCreate to create it once)',
        path: ['copyFrom'],
        input: entry.copyFrom,
      });
  })
  .transform((entry) => ({
    ...entry,
    // A copy without `type` takes the source's type (docs/reference/katalog.md §7.2).
    type:
      entry.type ??
      (entry.tls !== undefined ? 'kubernetes.io/tls' : entry.copyFrom !== undefined ? undefined : 'Opaque'),
    once: entry.once || entry.rotateAfter !== undefined || entry.tls !== undefined,
  }));
/** SecretEntry is a secret entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface SecretEntry extends z.output<typeof SecretEntrySchema> {}
/** SecretEntry is an item of `secrets`; `rotateAfter` and `tls` imply `once`, `tls` implies type `kubernetes.io/tls`. */
export const SecretEntry: z.ZodType<SecretEntry> = SecretEntrySchema.meta({ id: 'SecretEntry' });

/** secrets is the `secrets` list: Secret children (v1). */
export const secrets = defineResourceKind({
  listKey: 'secrets',
  apiVersion: 'v1',
  kind: 'Secret',
  namespaced: true,
  defaultNameSuffix: '-secret',
  wave: 3,
  entry: SecretEntry,
});
