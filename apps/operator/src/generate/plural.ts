/**
 * guessPlural guesses the resource plural of a lowercase kind the way Kubernetes does when it has
 * no discovery (`UnsafeGuessKindToResource`): `y` → `ies`, `s`/`x`/`z`/`ch`/`sh` → `+es`, else `+s`.
 */
export function guessPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === '') return lower;
  if (/[sxz]$|[cs]h$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
