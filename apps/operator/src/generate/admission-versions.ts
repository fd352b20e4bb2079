/**
 * Where a field of one served version lives at another (docs/reference/katalog.md §12, ADR 0102):
 * the API server judges a CRD's `x-kubernetes-validations` of one version only on requests made at
 * that version, so a deny rule written for `apiTypes.version` is copied into each other served
 * version's schema with its fields translated through the conversion, when the conversion carries
 * each field it reads one-to-one (a rename or move, nothing that changes its value). Otherwise the
 * operator's admission webhook judges it on requests at that version, on the object converted back.
 */
import { storedVersionOf } from '@orkestra/types';
import type { ConversionRule, CrdEntry, CrdVersion } from '@orkestra/types';

/** FieldMap gives a `spec`-relative path of one version at another, or why it has no one-to-one home there. */
export type FieldMap = (segments: readonly string[]) => string[] | { readonly reason: string };

const split = (field: string): string[] => field.split('.');

/** overlaps tells whether one path is the other or under it. */
const overlaps = (a: readonly string[], b: readonly string[]): boolean =>
  a.slice(0, Math.min(a.length, b.length)).every((segment, i) => segment === b[i]);

/** moved is where a path lands after a move `from` → `to` (undefined when the move does not carry it). */
function moved(
  path: readonly string[],
  from: readonly string[],
  to: readonly string[],
): string[] | undefined {
  return from.length <= path.length && overlaps(from, path) ? [...to, ...path.slice(from.length)] : undefined;
}

/** The value rules of a rule list with the field they name (at the declared source, or target for default/constant). */
function valueRules(rules: readonly ConversionRule[]): { kind: string; field: string[]; target: boolean }[] {
  const out: { kind: string; field: string[]; target: boolean }[] = [];
  for (const rule of rules)
    for (const kind of ['drop', 'wrap', 'unwrap', 'enum', 'forEach', 'default', 'constant'] as const) {
      const body = rule[kind] as { field?: string } | undefined;
      if (body?.field != null)
        out.push({ kind, field: split(body.field), target: kind === 'default' || kind === 'constant' });
    }
  return out;
}

/**
 * directMap maps a full path (`spec.…`) across one declared rule list, its declared way
 * (`inverse` false: from the path's `from` to its `to`) or back.
 */
function directMap(
  rules: readonly ConversionRule[],
  inverse: boolean,
  path: readonly string[],
  to: string,
): string[] | { reason: string } {
  const moves = rules.flatMap((r) => {
    const m = r.rename ?? r.move;
    return m == null ? [] : [{ from: split(m.from), to: split(m.to) }];
  });
  const forward = (p: readonly string[]): string[] => {
    for (const m of moves) {
      const at = moved(p, m.from, m.to);
      if (at !== undefined) return at;
    }
    return [...p];
  };
  const backward = (p: readonly string[]): string[] => {
    for (const m of moves) {
      const at = moved(p, m.to, m.from);
      if (at !== undefined) return at;
    }
    return [...p];
  };
  // The path as the declared source and the declared target have it.
  const source = inverse ? backward(path) : [...path];
  const target = inverse ? [...path] : forward(path);
  for (const rule of valueRules(rules)) {
    // A value rule names its field as the declared source has it; default/constant as the target.
    if (!overlaps(rule.field, rule.target ? target : source)) continue;
    const what = rule.field.join('.');
    const onlyHere = inverse ? rule.target : rule.kind === 'drop';
    if (onlyHere) return { reason: `${what} has no home at ${to} (${rule.kind} in the conversion)` };
    return { reason: `${rule.kind} on ${what} changes the field between versions` };
  }
  return inverse ? source : target;
}

/**
 * fieldMap gives where a `spec` field of version `from` lives at version `to` as the conversion
 * carries it: the same path without `conversion` (the API server only rewrites `apiVersion`),
 * across a declared rule list either way, or through the storage version as the conversion
 * webhook goes; a template path or a refused direction has no field-by-field map.
 */
export function fieldMap(entry: CrdEntry, from: string, to: string): FieldMap {
  const paths = entry.conversion?.paths;
  if (paths == null || from === to) return (segments) => [...segments];
  const direct = (a: string, b: string): FieldMap | undefined => {
    const declared = paths.find((p) => p.from === a && p.to === b);
    const reverse = paths.find((p) => p.from === b && p.to === a);
    if (declared?.refuse === true) return () => ({ reason: `${a} → ${b} is refused by the conversion` });
    if (declared?.spec != null)
      return () => ({ reason: `${a} → ${b} is converted by a template, which maps no field one-to-one` });
    const rules = declared?.rules ?? (reverse?.spec == null ? reverse?.rules : undefined);
    if (rules == null) return undefined;
    const inverse = declared?.rules == null;
    return (segments) => {
      const out = directMap(rules, inverse, ['spec', ...segments], b);
      if ('reason' in out) return out;
      return out[0] === 'spec' && out.length > 1
        ? out.slice(1)
        : { reason: `spec.${segments.join('.')} leaves spec at ${b}` };
    };
  };
  const one = direct(from, to);
  if (one !== undefined) return one;
  const storage = storedVersionOf(entry);
  const first = from === storage ? undefined : direct(from, storage);
  const second = to === storage ? undefined : direct(storage, to);
  if (first === undefined || second === undefined)
    return () => ({ reason: `no conversion path ${from} → ${to} maps fields one by one` });
  return (segments) => {
    const mid = first(segments);
    return 'reason' in mid ? mid : second(mid);
  };
}

/** crdVersionsOf lists the versions an entry's CRD serves: declared, or the ones its conversion paths name, all served. */
export function crdVersionsOf(entry: CrdEntry): CrdVersion[] {
  if (entry.versions != null) return entry.versions;
  const storage = storedVersionOf(entry);
  const names = new Set([entry.apiTypes.version, storage]);
  for (const p of entry.conversion?.paths ?? []) names.add(p.from).add(p.to);
  return [...names].map((name) => ({ name, served: true, storage: name === storage }));
}
