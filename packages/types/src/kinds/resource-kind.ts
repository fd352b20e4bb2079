import type { z } from 'zod';
import type { Condition } from '../schema/condition.js';

/**
 * ResourceKind is everything @orkestra/types knows about one resource list of a lifecycle group
 * (docs/reference/katalog.md §5.1, §7, §13.3; docs/reference/runtime.md §9.4): the facts (kind, apiVersion, group, plural, scope,
 * wave, default name, status `children` keys) and the zod schema of one entry. Each kind is one file
 * in `kinds/`, registered by one line in `kinds/index.ts`; the Katalog schema, the loader, the
 * registry, the reconciler and the RBAC generator derive everything else from it.
 */
export interface ResourceKind<K extends string = string, E = unknown> {
  /** The list key in a group, e.g. `deployments`. */
  readonly listKey: K;
  /** `apiVersion` of the child; null for `custom` (declared per entry). */
  readonly apiVersion: string | null;
  /** API group of the child (`''` for core, `apps`, …); null for `custom`. */
  readonly group: string | null;
  /** `kind` of the child; null for `custom`. */
  readonly kind: string | null;
  /** Resource name in API paths and RBAC rules (`deployments`); null for `custom` (discovered). */
  readonly plural: string | null;
  /** Whether the kind is namespaced; null for `custom` (discovered, or the entry's `namespaced`). */
  readonly namespaced: boolean | null;
  /** Suffix appended to the CR name for the default child name (`""` means the CR name itself); null when `name` is required. */
  readonly defaultNameSuffix: string | null;
  /** Apply wave within a group (docs/reference/runtime.md §9.4): all writes of a wave run concurrently. */
  readonly wave: 1 | 2 | 3 | 4 | 5 | 6;
  /** Singular and plural keys under `children` in status-field templates (docs/reference/katalog.md §13.3). */
  readonly childrenKeys: { readonly singular: string; readonly plural: string };
  /** The zod schema of one entry of the list. */
  readonly entry: z.ZodType<E>;
  /**
   * The kind's readiness rule as conditions over the child's own object (ADR 0051), used instead
   * of the kstatus rule of its group and kind; an entry's own `readyWhen` still replaces it.
   */
  readonly readyWhen?: readonly Condition[];
}

/** ResourceKindDefinition is the input of defineResourceKind: the facts of a fixed kind and its entry schema. */
export interface ResourceKindDefinition<K extends string, E> {
  readonly listKey: K;
  readonly apiVersion: string;
  readonly kind: string;
  /** Defaults to guessPlural(kind) (`networkpolicies`, `ingresses`); give it when that guess is wrong. */
  readonly plural?: string;
  readonly namespaced: boolean;
  readonly defaultNameSuffix: string | null;
  readonly wave: ResourceKind['wave'];
  /** Defaults to the lower-cased kind and the plural. */
  readonly childrenKeys?: ResourceKind['childrenKeys'];
  readonly entry: z.ZodType<E>;
  readonly readyWhen?: readonly Condition[];
}

/** apiGroupOf returns the API group of an `apiVersion`: `''` for core `v1`, `apps` for `apps/v1`. */
export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * guessPlural guesses the resource plural of a kind the way Kubernetes does without discovery
 * (`UnsafeGuessKindToResource`): lower-cased, `y` after a consonant → `ies`, `s`/`x`/`z`/`ch`/`sh`
 * → `+es`, else `+s`. The kind facts table states every fixed kind's plural; this is only for
 * kinds without facts (`custom` entries) and the table's default.
 */
export function guessPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === '') return lower;
  if (/[sxz]$|[cs]h$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/**
 * defineResourceKind builds the frozen ResourceKind of a fixed (non-`custom`) kind, deriving the
 * API group from `apiVersion` and defaulting the plural and the `children` keys from the kind.
 */
export function defineResourceKind<const K extends string, E>(
  def: ResourceKindDefinition<K, E>,
): ResourceKind<K, E> {
  const plural = def.plural ?? guessPlural(def.kind);
  return Object.freeze({
    listKey: def.listKey,
    apiVersion: def.apiVersion,
    group: apiGroupOf(def.apiVersion),
    kind: def.kind,
    plural,
    namespaced: def.namespaced,
    defaultNameSuffix: def.defaultNameSuffix,
    wave: def.wave,
    childrenKeys: Object.freeze(def.childrenKeys ?? { singular: def.kind.toLowerCase(), plural }),
    entry: def.entry,
    ...(def.readyWhen == null ? {} : { readyWhen: Object.freeze([...def.readyWhen]) }),
  });
}
