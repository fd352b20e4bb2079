import { z } from 'zod';

/** DatabaseName is a MongoDB database name other than the server's own (`admin`, `local`, `config`). */
export const DatabaseName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[^/\\. "$*<>:|?\0]+$/, 'a database name must not contain / \\ . space " $ * < > : | ?')
  .refine(
    (name) => !['admin', 'local', 'config'].includes(name.toLowerCase()),
    'admin, local and config are the server’s own databases',
  );

/** CollectionName is a collection name outside the `system.` namespace. */
export const CollectionName = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[^$\0]+$/, 'a collection name must not contain $')
  .refine((name) => !name.startsWith('system.'), 'system.* collections are reserved');

/** DatabaseSpec is the `database` kind: a database the provider creates (with a marker collection) and drops. */
export const DatabaseSpec = z.strictObject({ name: DatabaseName });
/** DatabaseSpec is a parsed `database` declaration. */
export type DatabaseSpec = z.output<typeof DatabaseSpec>;

/** CollectionSpec is the `collection` kind: a collection with an optional validator (e.g. `{ $jsonSchema: … }`). */
export const CollectionSpec = z.strictObject({
  database: DatabaseName,
  name: CollectionName,
  validator: z.record(z.string(), z.json()).optional(),
  validationLevel: z.enum(['off', 'strict', 'moderate']).optional(),
  validationAction: z.enum(['error', 'warn']).optional(),
});
/** CollectionSpec is a parsed `collection` declaration. */
export type CollectionSpec = z.output<typeof CollectionSpec>;

/** IndexSpec is the `index` kind: keys (field → 1, -1 or "text", in order), name, unique, sparse, TTL. */
export const IndexSpec = z
  .strictObject({
    database: DatabaseName,
    collection: CollectionName,
    keys: z
      .record(z.string().min(1), z.union([z.literal(1), z.literal(-1), z.literal('text')]))
      .refine((keys) => Object.keys(keys).length > 0, 'an index needs at least one key'),
    /** Default: the server's naming, `field_1_other_-1`. */
    indexName: z.string().min(1).max(127).optional(),
    unique: z.boolean().default(false),
    sparse: z.boolean().default(false),
    /** TTL: documents expire this many seconds after the (single, date) key field's value. */
    expireAfterSeconds: z.number().int().min(0).optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.expireAfterSeconds != null && Object.keys(spec.keys).length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['expireAfterSeconds'],
        message: 'a TTL index has exactly one key',
      });
    }
  });
/** IndexSpec is a parsed `index` declaration. */
export type IndexSpec = z.output<typeof IndexSpec>;

/** UserSpec is the `user` kind: a user whose password comes from a Secret key in the owner's namespace. */
export const UserSpec = z.strictObject({
  database: DatabaseName,
  username: z.string().min(1).max(256),
  passwordSecret: z.strictObject({
    name: z.string().min(1),
    key: z.string().min(1),
    namespace: z.string().min(1).optional(),
  }),
  roles: z.array(z.strictObject({ role: z.string().min(1), db: z.string().min(1) })).default([]),
});
/** UserSpec is a parsed `user` declaration. */
export type UserSpec = z.output<typeof UserSpec>;

/** indexName is the declared name, or the server's default `field_1_other_-1`. */
export function indexName(spec: Pick<IndexSpec, 'keys' | 'indexName'>): string {
  return (
    spec.indexName ??
    Object.entries(spec.keys)
      .map(([field, direction]) => `${field}_${direction}`)
      .join('_')
  );
}
