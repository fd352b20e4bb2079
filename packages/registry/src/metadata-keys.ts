// NOTE(registry): these mirror katalog.md §22; switch to @orkestra/types' metadata.ts once it exports them.
const PREFIX = 'orkestra.konductor.io/';

/** Labels lists the label keys the registry stamps on every child (katalog.md §22.1). */
export const Labels = {
  ManagedBy: 'app.kubernetes.io/managed-by',
  OwnerUid: `${PREFIX}owner-uid`,
  OwnerName: `${PREFIX}owner-name`,
  Crd: `${PREFIX}crd`,
  Child: `${PREFIX}child`,
} as const;
export type Labels = (typeof Labels)[keyof typeof Labels];

/** Annotations lists the annotation keys the registry stamps (katalog.md §22.1). */
export const Annotations = {
  Source: `${PREFIX}source`,
  AppliedHash: `${PREFIX}applied-hash`,
} as const;
export type Annotations = (typeof Annotations)[keyof typeof Annotations];

/** MANAGED_BY_VALUE is the value of `app.kubernetes.io/managed-by` on every child. */
export const MANAGED_BY_VALUE = 'orkestra';

/** RESERVED_PREFIX is the label and annotation prefix users may not set themselves. */
export const RESERVED_PREFIX = PREFIX;
