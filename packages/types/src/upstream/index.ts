/**
 * The upstream dialect (docs/reference/katalog.md §24, ADR 0036): the loader accepts Katalogs written
 * for upstream Orkestra and maps them onto the canonical model before the schema sees them. The
 * mapping works on the YAML document's nodes, moving them rather than copying values, so every node
 * keeps its source range: an error in a moved block still points at the user's file:line:col, and
 * `ork migrate` prints the same document (comments and key order kept) in the canonical form.
 *
 * One file per upstream concern (e.g. cross-source.ts: `cross[].source`, ADR 0043); this index is the
 * folder's only entry for the rest of the package.
 */
export { upgradeDialect } from './upgrade-dialect.js';
export type { DialectChange, DialectProblem } from './upgrader.js';
export { migrateKatalog } from './migrate.js';
export type { MigrateKatalogOptions, MigrateKatalogResult } from './migrate.js';
export { katalogInConfigMap } from './configmap-katalog.js';
export { EXTERNAL_RESULT_KEYS } from './external.js';
