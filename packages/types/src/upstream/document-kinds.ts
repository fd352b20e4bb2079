/**
 * Upstream document kinds other than a Katalog (docs/reference/katalog.md §24, ADR 0081), and what
 * each is, for the refusal at `kind`. Inrun's `Catalog` is a Katalog: the dialect maps it with
 * `apiVersion: inrun.dev/v1` (metadata.ts, UPSTREAM_GENERATIONS); with another apiVersion it is
 * refused here too.
 */
const UPSTREAM_KINDS: Readonly<Record<string, string>> = {
  Catalog: 'Catalog is Inrun’s spelling of a Katalog and loads with `apiVersion: inrun.dev/v1`',
  Komposer:
    'a Komposer composes Katalogs and overrides them; Orkestra has no composition document: validate each Katalog it imports, with its overrides written into it',
  Stack:
    'a Stack is Inrun’s Komposer, which composes Catalogs; Orkestra has no composition document: validate each Catalog it imports, with its overrides written into it',
  Motif: 'a motif is read through an entry’s `imports` (`motif: <file>`), not loaded on its own',
  Module:
    'a Module is Inrun’s motif, read through an entry’s `imports` (`module: <file>`), not loaded on its own',
};

/** upstreamKindNote says what an upstream document kind is, or undefined for any other kind. */
export function upstreamKindNote(kind: unknown): string | undefined {
  return typeof kind === 'string' && Object.hasOwn(UPSTREAM_KINDS, kind) ? UPSTREAM_KINDS[kind] : undefined;
}

/** isNotAKatalog tells a document that is not a Katalog at all (a Komposer, a motif), so nothing else in it is checked. */
export function isNotAKatalog(kind: unknown): boolean {
  return kind !== 'Catalog' && upstreamKindNote(kind) !== undefined;
}
