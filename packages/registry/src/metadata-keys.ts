/**
 * The registry's first names for the metadata keys of docs/reference/katalog.md §22, kept as aliases of
 * @orkestra/types' metadata.ts (the one place every key is defined).
 */
import { MANAGED_BY, OrkestraAnnotation, OrkestraLabel } from '@orkestra/types';

/** Labels is `OrkestraLabel` from @orkestra/types: the label keys stamped on every child (docs/reference/katalog.md §22.1). */
export const Labels = OrkestraLabel;
/** Labels is one of the runtime's label keys. */
export type Labels = OrkestraLabel;

/** Annotations is `OrkestraAnnotation` from @orkestra/types: the annotation keys the runtime stamps (docs/reference/katalog.md §22). */
export const Annotations = OrkestraAnnotation;
/** Annotations is one of the runtime's annotation keys. */
export type Annotations = OrkestraAnnotation;

/** MANAGED_BY_VALUE is `MANAGED_BY` from @orkestra/types: the value of `app.kubernetes.io/managed-by` on every child. */
export const MANAGED_BY_VALUE = MANAGED_BY;
