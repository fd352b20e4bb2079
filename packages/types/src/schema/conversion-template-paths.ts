import type { z } from 'zod';

/**
 * The paths a conversion template reads (docs/reference/katalog.md §3.4, ADR 0088). Upstream's
 * conversion page writes Go-struct paths (`{{ .Spec.DatabaseEngine }}`): the field of a typed CR
 * whose JSON name is `spec.databaseEngine`. A segment starting with a capital letter that is not
 * a key of the object at its level names the key Go's encoding/json would fill from it: the key
 * with the first letter lowered, else the one key equal to it ignoring case. At the top, `ObjectMeta`
 * is `metadata`, `TypeMeta` is `{apiVersion, kind}`, and a field of ObjectMeta (`.Name`) reads
 * `metadata.<field>` (Go promotes the embedded struct's fields).
 */

/** goFieldKey returns the key of `keys` a Go-struct-style segment names, or undefined. */
export function goFieldKey(segment: string, keys: readonly string[]): string | undefined {
  if (keys.includes(segment)) return segment;
  if (!/^\p{Lu}/u.test(segment)) return undefined;
  const lowered = segment.charAt(0).toLowerCase() + segment.slice(1);
  if (keys.includes(lowered)) return lowered;
  const folded = keys.filter((k) => k.toLowerCase() === segment.toLowerCase());
  return folded.length === 1 ? folded[0] : undefined;
}

/** The top-level keys of a custom resource. */
const OBJECT_ROOTS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;

/** The keys of ObjectMeta a CR's metadata may hold. */
const OBJECT_META_KEYS = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
] as const;

/** A template that changes what `.` is (`range`, `with`, `#each`) is not checked path by path. */
const SCOPED = /\{\{-?\s*(?:range|with|define|template|block)\b|\{\{~?\s*#/;
const ACTION = /\{\{(.*?)\}\}/gs;
const QUOTED = /"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/g;
/** A path operand: `.a.b`, `$.a.b`, or a Handlebars path from a CR root (`spec.a`). */
const OPERAND =
  /(?:^|[\s(|,])(\$?\.[\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_-]*)*|(?:spec|status|metadata)(?:\.[\p{L}_][\p{L}\p{N}_-]*)+)/gu;

/** templatePathsOf lists the object paths a template reads from the top, as segments; undefined when it changes scope. */
export function templatePathsOf(source: string): string[][] | undefined {
  if (SCOPED.test(source)) return undefined;
  const out: string[][] = [];
  for (const action of source.matchAll(ACTION)) {
    const body = (action[1] ?? '').replace(/^-|-$/g, '').replace(QUOTED, ' ');
    if (/^\s*\/\*/.test(body)) continue;
    for (const m of body.matchAll(OPERAND)) {
      const text = (m[1] ?? '').replace(/^\$/, '').replace(/^\./, '');
      if (text !== '') out.push(text.split('.'));
    }
  }
  return out;
}

type Schema = Record<string, unknown>;

function isMap(value: unknown): value is Record<string, unknown> {
  return value != null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * schemaProblem says why a path read from the top of an object can never resolve against a
 * version's schema, or undefined when it can (or the schema does not say: preserved unknown
 * fields, free-form maps, lists).
 */
function schemaProblem(segments: readonly string[], schema: Schema, version: string): string | undefined {
  const [head, ...rest] = segments;
  if (head == null) return undefined;
  const root = goFieldKey(head, OBJECT_ROOTS) ?? (head === 'ObjectMeta' ? 'metadata' : undefined);
  if (head === 'TypeMeta') {
    const field = rest[0];
    return field == null || goFieldKey(field, ['apiVersion', 'kind']) != null
      ? undefined
      : `TypeMeta has no field ${field} (its fields: APIVersion, Kind)`;
  }
  if (root == null) {
    if (goFieldKey(head, OBJECT_META_KEYS) != null) return undefined; // a promoted ObjectMeta field
    return `the object has no field ${head} (its fields: ${OBJECT_ROOTS.join(', ')}${/^\p{Lu}/u.test(head) ? ', or ObjectMeta’s as .Name' : ''})`;
  }
  if (root === 'apiVersion' || root === 'kind') return undefined;
  if (root === 'metadata') {
    const field = rest[0];
    return field == null || goFieldKey(field, OBJECT_META_KEYS) != null
      ? undefined
      : `metadata has no field ${field}`;
  }
  const properties = schema['properties'];
  let node: unknown = isMap(properties) ? properties[root] : undefined;
  let at = root;
  for (const segment of rest) {
    if (!isMap(node)) return undefined;
    if (node['x-kubernetes-preserve-unknown-fields'] === true || node['additionalProperties'] != null)
      return undefined;
    const props = node['properties'];
    if (!isMap(props)) return undefined;
    const key = goFieldKey(segment, Object.keys(props));
    if (key == null)
      return `the template reads ${[at, segment].join('.')}, which version ${version}'s schema does not have (${at} has: ${Object.keys(props).join(', ')})`;
    node = props[key];
    at = `${at}.${key}`;
  }
  return undefined;
}

/** TemplatePathInput is what checkTemplatePaths reads of an entry. */
export interface TemplatePathInput {
  readonly apiTypes: { readonly version: string };
  readonly schema?: { readonly openAPIV3Schema?: unknown } | undefined;
  readonly versions?:
    | readonly {
        readonly name: string;
        readonly schema?: { readonly openAPIV3Schema: unknown } | undefined;
      }[]
    | undefined;
  readonly conversion?:
    { readonly paths: readonly { readonly from: string; readonly spec?: unknown }[] } | undefined;
}

/** schemaOfVersion is a version's declared schema (a version without one takes the entry's when it is apiTypes.version). */
function schemaOfVersion(entry: TemplatePathInput, version: string): Schema | undefined {
  const declared = entry.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
  const schema = declared ?? (version === entry.apiTypes.version ? entry.schema?.openAPIV3Schema : undefined);
  return isMap(schema) ? schema : undefined;
}

/**
 * checkTemplatePaths refuses, at the template's field, a conversion template that reads a path its
 * source version's schema can never hold: it would render nothing and the converted object would
 * lose the field (docs/reference/katalog.md §3.4).
 */
export function checkTemplatePaths(entry: TemplatePathInput, ctx: z.RefinementCtx): void {
  entry.conversion?.paths.forEach((path, i) => {
    if (path.spec == null) return;
    const schema = schemaOfVersion(entry, path.from);
    if (schema == null) return;
    const visit = (value: unknown, at: (string | number)[]): void => {
      if (typeof value === 'string') {
        for (const segments of templatePathsOf(value) ?? []) {
          const problem = schemaProblem(segments, schema, path.from);
          if (problem != null)
            ctx.addIssue({
              code: 'custom',
              message: `${problem}: the converted object would lose it (Go-struct paths such as .Spec.DatabaseEngine read spec.databaseEngine)`,
              path: ['conversion', 'paths', i, 'spec', ...at],
              input: value,
            });
        }
      } else if (Array.isArray(value)) value.forEach((v, j) => visit(v, [...at, j]));
      else if (isMap(value)) for (const [k, v] of Object.entries(value)) visit(v, [...at, k]);
    };
    visit(path.spec, []);
  });
}
