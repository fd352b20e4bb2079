import { z } from 'zod';
import { checkTemplatePaths } from './conversion-template-paths.js';
import { JsonMap, Literal } from './primitives.js';

/** VERSION_NAME is the shape of a Kubernetes API version (`v1`, `v1beta1`, `v2alpha3`). */
const VERSION_NAME = /^v\d+((alpha|beta)\d+)?$/;

const VersionName = Literal.regex(VERSION_NAME, {
  error: 'version must look like v1, v1beta1 or v1alpha1',
});

/** A field path of a conversion rule: dot-separated keys under `spec.` or `status.` (no indices). */
const RuleField = Literal.regex(/^(spec|status)(\.[A-Za-z0-9_-]+)+$/, {
  error: 'a conversion field is a dot path under spec. or status. such as spec.size (no list indices)',
});

/** A field path inside one item of a `forEach` list: dot-separated keys relative to the item. */
const ItemField = Literal.regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, {
  error: 'a forEach rule field is a dot path inside the item such as name or image.tag (no list indices)',
});

/** The rule kinds, in the order the loader names them. */
const RULE_KINDS = [
  'rename',
  'move',
  'default',
  'constant',
  'drop',
  'wrap',
  'unwrap',
  'enum',
  'forEach',
] as const;

/** The kinds naming one `field` (at most one such rule per field in a path). */
const FIELD_KINDS = ['default', 'constant', 'drop', 'wrap', 'unwrap', 'enum', 'forEach'] as const;

/** ruleShape is the rule object over a field syntax (top level: under spec/status; forEach: in the item). */
function ruleShape(field: typeof RuleField) {
  const Move = z.strictObject({ from: field, to: field });
  const Wrap = z.strictObject({ field, key: Literal.regex(/^[A-Za-z0-9_-]+$/) });
  const Enum = z.strictObject({
    field,
    map: z.record(z.string(), z.string()),
    back: z.record(z.string(), z.string()).optional(),
  });
  return {
    rename: Move.optional(),
    move: Move.optional(),
    default: z.strictObject({ field, value: z.unknown() }).optional(),
    constant: z.strictObject({ field, value: z.unknown() }).optional(),
    drop: z.strictObject({ field }).optional(),
    wrap: Wrap.optional(),
    unwrap: Wrap.optional(),
    enum: Enum.optional(),
  };
}

interface RuleLike {
  rename?: { from: string; to: string } | undefined;
  move?: { from: string; to: string } | undefined;
  enum?: { map: Record<string, string>; back?: Record<string, string> | undefined } | undefined;
}

/** checkRule refuses a rule with no single kind, a rename across parents, and an enum map with no way back. */
function checkRule(rule: RuleLike, ctx: z.RefinementCtx, kinds: readonly string[]): void {
  const keys = Object.entries(rule).filter(([, v]) => v !== undefined);
  if (keys.length !== 1)
    ctx.addIssue({
      code: 'custom',
      message: `a conversion rule has exactly one of ${kinds.join(', ')} (got ${keys.length === 0 ? 'none' : keys.map(([k]) => k).join(', ')})`,
      input: rule,
    });
  const rename = rule.rename;
  if (rename != null) {
    const parent = (p: string): string => p.slice(0, Math.max(0, p.lastIndexOf('.')));
    if (parent(rename.from) !== parent(rename.to))
      ctx.addIssue({
        code: 'custom',
        message: `rename keeps the field under the same parent (${rename.from} → ${rename.to} changes it): write move`,
        path: ['rename', 'to'],
        input: rename.to,
      });
  }
  if (rule.enum != null) checkEnum(rule.enum, ctx);
}

/**
 * checkEnum refuses an enum map the opposite direction cannot invert: two values mapped to one
 * need `back` to say which one that value converts back to (the other is kept in the annotation
 * and restored, so round trips stay lossless), and `back` names only values the map produces.
 */
function checkEnum(
  rule: { map: Record<string, string>; back?: Record<string, string> | undefined },
  ctx: z.RefinementCtx,
): void {
  const sources = new Map<string, string[]>();
  for (const [from, to] of Object.entries(rule.map)) sources.set(to, [...(sources.get(to) ?? []), from]);
  const back = rule.back ?? {};
  for (const [to, froms] of sources)
    if (froms.length > 1 && !Object.hasOwn(back, to))
      ctx.addIssue({
        code: 'custom',
        message: `enum map is not one-to-one: ${froms.join(', ')} all become ${to}, so the way back is ambiguous; write back: { ${to}: ${froms[0] ?? ''} }`,
        path: ['enum', 'map', froms[1] ?? ''],
        input: to,
      });
  for (const [to, from] of Object.entries(back))
    if (rule.map[from] !== to)
      ctx.addIssue({
        code: 'custom',
        message: `enum back ${to} → ${from} is not the opposite of a map entry (map has ${from} → ${rule.map[from] ?? 'nothing'})`,
        path: ['enum', 'back', to],
        input: from,
      });
}

interface FieldRule {
  [kind: string]: unknown;
}

/** checkFields refuses two field rules (default, drop, wrap, enum, …) on one field of a rule list. */
function checkFields(rules: readonly FieldRule[], ctx: z.RefinementCtx, at: (string | number)[]): void {
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    for (const kind of FIELD_KINDS) {
      const body = rule[kind] as { field?: string } | undefined;
      if (body?.field == null) continue;
      const first = seen.get(body.field);
      if (first != null)
        ctx.addIssue({
          code: 'custom',
          message: `${body.field} is already the field of rule ${first}: one field rule per field (its way back would be ambiguous)`,
          path: [...at, i, kind, 'field'],
          input: body.field,
        });
      else seen.set(body.field, i);
    }
  });
}

/**
 * checkKey refuses a `forEach` key field that only one version has (`drop`, `default`,
 * `constant`): the key names an item at both versions.
 */
function checkKey(
  forEach: { key?: string | string[] | undefined; rules: readonly FieldRule[] },
  ctx: z.RefinementCtx,
): void {
  if (forEach.key == null) return;
  const keys = typeof forEach.key === 'string' ? [forEach.key] : forEach.key;
  forEach.rules.forEach((rule, i) => {
    for (const kind of ['drop', 'default', 'constant']) {
      const field = (rule[kind] as { field?: string } | undefined)?.field;
      if (field != null && keys.includes(field))
        ctx.addIssue({
          code: 'custom',
          message: `${field} is the forEach key, so both versions have it: it cannot be the field of ${kind}`,
          path: ['forEach', 'rules', i, kind, 'field'],
          input: field,
        });
    }
  });
}

const ItemRuleSchema = z
  .strictObject(ruleShape(ItemField))
  .superRefine((rule, ctx) => checkRule(rule, ctx, RULE_KINDS.slice(0, -1)));

/**
 * ConversionRule is one declarative rule of a conversion path (docs/reference/katalog.md §3.4):
 * exactly one of `rename`/`move` (a field at another path), `default` (a field only the target
 * version has, set when absent), `constant` (a field only the target version has, always that
 * value), `drop` (a field only the source version has, kept in an annotation and restored),
 * `wrap`/`unwrap` (a value becomes `{key: value}` and back), `enum` (string values renamed by a
 * map) and `forEach` (rules applied to each item of a list; `key` names the item fields that
 * identify an item, as `x-kubernetes-list-map-keys` does). What a rule cannot carry back is kept
 * in the annotation and restored, so a round trip is the identity.
 */
const ConversionRuleSchema = z
  .strictObject({
    ...ruleShape(RuleField),
    forEach: z
      .strictObject({
        field: RuleField,
        key: z.union([ItemField, z.array(ItemField).min(1)]).optional(),
        rules: z.array(ItemRuleSchema),
      })
      .optional(),
  })
  .superRefine((rule, ctx) => {
    checkRule(rule, ctx, RULE_KINDS);
    if (rule.forEach != null) {
      checkFields(rule.forEach.rules, ctx, ['forEach', 'rules']);
      checkKey(rule.forEach, ctx);
    }
  });
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ConversionRule extends z.output<typeof ConversionRuleSchema> {}
/** ConversionRule is one declarative conversion rule (docs/reference/katalog.md §3.4). */
export const ConversionRule: z.ZodType<ConversionRule> = ConversionRuleSchema.meta({
  id: 'ConversionRule',
});

/**
 * ConversionPath converts objects from one version to another (upstream's `paths[]`): either
 * `spec`, a template of the target's spec rendered over the source object, or `rules`, declarative
 * rules that also give the opposite direction when it is not declared; or `refuse: true`, a
 * direction declared as not converting: a request to convert that way fails, as upstream's webhook
 * fails one it has no path for.
 */
const ConversionPathSchema = z
  .strictObject({
    from: VersionName,
    to: VersionName,
    spec: JsonMap.optional(),
    rules: z.array(ConversionRule).optional(),
    refuse: z.literal(true).optional(),
  })
  .superRefine((path, ctx) => {
    if (path.rules != null) checkFields(path.rules as unknown as FieldRule[], ctx, ['rules']);
    if ([path.spec, path.rules, path.refuse].filter((v) => v != null).length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: 'a conversion path has exactly one of spec (a template), rules and refuse: true',
        input: path,
      });
    if (path.from === path.to)
      ctx.addIssue({
        code: 'custom',
        message: `a conversion path converts between two versions (from and to are both ${path.from})`,
        path: ['to'],
        input: path.to,
      });
  });
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface ConversionPath extends z.output<typeof ConversionPathSchema> {}
export const ConversionPath: z.ZodType<ConversionPath> = ConversionPathSchema.meta({
  id: 'ConversionPath',
});

/**
 * Conversion is an entry's `conversion` block (upstream's key names): the storage version, the
 * paths between versions; `updateCRD` and `participant` are read and have no effect (the operator
 * always patches the caBundle of the CRDs it converts).
 */
const ConversionSchema = z.strictObject({
  storageVersion: VersionName.optional(),
  updateCRD: z.boolean().optional(),
  participant: z.boolean().optional(),
  paths: z.array(ConversionPath).default([]),
});
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Conversion extends z.output<typeof ConversionSchema> {}
export const Conversion: z.ZodType<Conversion> = ConversionSchema.meta({ id: 'Conversion' });

/** CrdVersion is one item of an entry's `versions` (docs/reference/katalog.md §3.4). */
const CrdVersionSchema = z.strictObject({
  name: VersionName,
  served: z.boolean().default(true),
  storage: z.boolean().default(false),
  deprecated: z.boolean().optional(),
  deprecationWarning: Literal.optional(),
  schema: z.strictObject({ openAPIV3Schema: JsonMap }).optional(),
});
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface CrdVersion extends z.output<typeof CrdVersionSchema> {}
export const CrdVersion: z.ZodType<CrdVersion> = CrdVersionSchema.meta({ id: 'CrdVersion' });

/** VersionsInput is the part of a parsed entry checkVersions reads. */
interface VersionsInput {
  readonly apiTypes: { readonly version: string };
  readonly schema?: { readonly openAPIV3Schema?: unknown } | undefined;
  readonly versions?: readonly CrdVersion[] | undefined;
  readonly conversion?: Conversion | undefined;
  readonly validation?: { readonly rules: readonly { readonly version?: string | undefined }[] } | undefined;
}

/** checkRuleVersions refuses a validation rule scoped to a version the entry does not serve. */
function checkRuleVersions(entry: VersionsInput, ctx: z.RefinementCtx): void {
  const served =
    entry.versions == null
      ? versionNamesOf(entry)
      : entry.versions.filter((v) => v.served).map((v) => v.name);
  (entry.validation?.rules ?? []).forEach((rule, i) => {
    if (rule.version != null && !served.includes(rule.version))
      ctx.addIssue({
        code: 'custom',
        message: `version ${rule.version} is not a served version (${served.join(', ')}): a rule judges the requests made at one`,
        path: ['validation', 'rules', i, 'version'],
        input: rule.version,
      });
  });
}

/**
 * checkVersions refuses a set of versions the API server or the conversion webhook could not
 * serve (docs/reference/katalog.md §3.4): names are unique, exactly one is stored, the version the
 * runtime reads (`apiTypes.version`) is served, and every served version converts to and from the
 * storage version (directly or through a rules path's inverse).
 */
export function checkVersions(entry: VersionsInput, ctx: z.RefinementCtx): void {
  const { versions, conversion } = entry;
  checkRuleVersions(entry, ctx);
  checkTemplatePaths(entry, ctx);
  if (versions == null) {
    if (conversion != null && conversion.paths.length > 0) checkPaths(entry, ctx);
    return;
  }
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v.name))
      ctx.addIssue({
        code: 'custom',
        message: `version ${v.name} is declared twice`,
        path: ['versions', i, 'name'],
        input: v.name,
      });
    seen.add(v.name);
  });
  const stored = versions.filter((v) => v.storage).map((v) => v.name);
  const storage = conversion?.storageVersion;
  if (storage != null && !seen.has(storage))
    ctx.addIssue({
      code: 'custom',
      message: `storageVersion ${storage} is not one of versions (${[...seen].join(', ')})`,
      path: ['conversion', 'storageVersion'],
      input: storage,
    });
  else if (storage != null && stored.length > 0 && !stored.includes(storage))
    ctx.addIssue({
      code: 'custom',
      message: `conversion.storageVersion ${storage} disagrees with versions (storage: true on ${stored.join(', ')})`,
      path: ['conversion', 'storageVersion'],
      input: storage,
    });
  else if (storage == null && stored.length !== 1)
    ctx.addIssue({
      code: 'custom',
      message: `exactly one version is stored: mark one with storage: true or write conversion.storageVersion (got ${stored.length})`,
      path: ['versions'],
      input: versions,
    });
  const read = versions.find((v) => v.name === entry.apiTypes.version);
  if (read == null || !read.served)
    ctx.addIssue({
      code: 'custom',
      message: `apiTypes.version ${entry.apiTypes.version} (the version the runtime reads) must be a served version`,
      path: ['apiTypes', 'version'],
      input: entry.apiTypes.version,
    });
  if (versions.length > 1 && conversion == null)
    ctx.addIssue({
      code: 'custom',
      message: 'several versions need conversion (paths between each served version and the storage version)',
      path: ['versions'],
      input: versions,
    });
  if (conversion != null) checkPaths(entry, ctx);
}

/** storedVersionOf returns the version an entry's objects are stored at. */
export function storedVersionOf(entry: VersionsInput): string {
  return (
    entry.conversion?.storageVersion ?? entry.versions?.find((v) => v.storage)?.name ?? entry.apiTypes.version
  );
}

/** versionNamesOf lists an entry's versions: declared, or the ones its conversion paths name. */
export function versionNamesOf(entry: VersionsInput): string[] {
  if (entry.versions != null) return entry.versions.map((v) => v.name);
  const names = new Set([entry.apiTypes.version]);
  if (entry.conversion?.storageVersion != null) names.add(entry.conversion.storageVersion);
  for (const p of entry.conversion?.paths ?? []) names.add(p.from).add(p.to);
  return [...names];
}

function checkPaths(entry: VersionsInput, ctx: z.RefinementCtx): void {
  const conversion = entry.conversion;
  if (conversion == null) return;
  const names = new Set(versionNamesOf(entry));
  const direct = new Set<string>();
  conversion.paths.forEach((p, i) => {
    for (const side of ['from', 'to'] as const)
      if (!names.has(p[side]))
        ctx.addIssue({
          code: 'custom',
          message: `version ${p[side]} is not one of versions (${[...names].join(', ')})`,
          path: ['conversion', 'paths', i, side],
          input: p[side],
        });
    const key = `${p.from}>${p.to}`;
    if (direct.has(key))
      ctx.addIssue({
        code: 'custom',
        message: `the path ${p.from} → ${p.to} is declared twice`,
        path: ['conversion', 'paths', i],
        input: p,
      });
    direct.add(key);
  });
  const reachable = new Set(direct);
  for (const p of conversion.paths) if (p.rules != null) reachable.add(`${p.to}>${p.from}`);
  const storage = storedVersionOf(entry);
  // The runtime reads and writes its CRs at apiTypes.version: it converts to and from storage.
  const read = entry.apiTypes.version;
  conversion.paths.forEach((p, i) => {
    const pair = new Set([p.from, p.to]);
    if (p.refuse === true && read !== storage && pair.has(read) && pair.has(storage))
      ctx.addIssue({
        code: 'custom',
        message: `the path ${p.from} → ${p.to} may not refuse: the runtime reads and writes its CRs at apiTypes.version ${read}, stored at ${storage}`,
        path: ['conversion', 'paths', i, 'refuse'],
        input: p.refuse,
      });
  });
  const served =
    entry.versions == null ? [...names] : entry.versions.filter((v) => v.served).map((v) => v.name);
  for (const v of served) {
    if (v === storage) continue;
    for (const [from, to] of [
      [v, storage],
      [storage, v],
    ] as const)
      if (!reachable.has(`${from}>${to}`))
        ctx.addIssue({
          code: 'custom',
          message: `no conversion path ${from} → ${to}: every served version converts to and from the storage version ${storage} (a rules path also gives its opposite; \`refuse: true\` declares a direction that does not convert)`,
          path: ['conversion', 'paths'],
          input: conversion.paths,
        });
  }
}
