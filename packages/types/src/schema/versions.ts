import { z } from 'zod';
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

const Move = z.strictObject({ from: RuleField, to: RuleField });

/**
 * ConversionRule is one declarative rule of a conversion path (docs/reference/katalog.md §3.4):
 * exactly one of `rename`/`move` (a field at another path), `default` (a field only the target
 * version has, set when absent), `constant` (a field only the target version has, always that
 * value) and `drop` (a field only the source version has, kept in an annotation and restored).
 */
const ConversionRuleSchema = z
  .strictObject({
    rename: Move.optional(),
    move: Move.optional(),
    default: z.strictObject({ field: RuleField, value: z.unknown() }).optional(),
    constant: z.strictObject({ field: RuleField, value: z.unknown() }).optional(),
    drop: z.strictObject({ field: RuleField }).optional(),
  })
  .superRefine((rule, ctx) => {
    const keys = Object.entries(rule).filter(([, v]) => v !== undefined);
    if (keys.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `a conversion rule has exactly one of rename, move, default, constant, drop (got ${keys.length === 0 ? 'none' : keys.map(([k]) => k).join(', ')})`,
        input: rule,
      });
    const rename = rule.rename;
    if (rename != null) {
      const parent = (p: string): string => p.slice(0, p.lastIndexOf('.'));
      if (parent(rename.from) !== parent(rename.to))
        ctx.addIssue({
          code: 'custom',
          message: `rename keeps the field under the same parent (${rename.from} → ${rename.to} changes it): write move`,
          path: ['rename', 'to'],
          input: rename.to,
        });
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
 * rules that also give the opposite direction when it is not declared.
 */
const ConversionPathSchema = z
  .strictObject({
    from: VersionName,
    to: VersionName,
    spec: JsonMap.optional(),
    rules: z.array(ConversionRule).optional(),
  })
  .superRefine((path, ctx) => {
    if ((path.spec == null) === (path.rules == null))
      ctx.addIssue({
        code: 'custom',
        message: 'a conversion path has exactly one of spec (a template) and rules',
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
  readonly versions?: readonly CrdVersion[] | undefined;
  readonly conversion?: Conversion | undefined;
}

/**
 * checkVersions refuses a set of versions the API server or the conversion webhook could not
 * serve (docs/reference/katalog.md §3.4): names are unique, exactly one is stored, the version the
 * runtime reads (`apiTypes.version`) is served, and every served version converts to and from the
 * storage version (directly or through a rules path's inverse).
 */
export function checkVersions(entry: VersionsInput, ctx: z.RefinementCtx): void {
  const { versions, conversion } = entry;
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
          message: `no conversion path ${from} → ${to}: every served version converts to and from the storage version ${storage} (a rules path also gives its opposite)`,
          path: ['conversion', 'paths'],
          input: conversion.paths,
        });
  }
}
