import { z } from 'zod';
import { Duration } from '../duration.js';
import { gated } from '../schema/condition.js';
import { Tpl, TplList, TplMap } from '../schema/primitives.js';
import { commonShape } from '../schema/resources.js';
import { CopyFrom } from './copy-from.js';
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

/** SecretEntry is an item of `secrets`; `rotateAfter` and `tls` imply `once`, `tls` implies type `kubernetes.io/tls`. */
const SecretEntrySchema = gated({
  ...commonShape,
  type: Tpl.optional(),
  data: TplMap.default({}),
  once: z.boolean().default(false),
  rotateAfter: Duration.optional(),
  tls: SecretTls.optional(),
  copyFrom: CopyFrom.optional(),
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
