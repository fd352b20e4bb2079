import { didYouMean } from '../did-you-mean.js';

/** JsonSchema is an OpenAPI v3 schema node as written in a CRD (only the keys the walker reads are typed). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** SchemaStep is the outcome of walking a path through a schema. */
export type SchemaWalk =
  | {
      readonly ok: true;
      /** The schema at the end of the path, or undefined when the walk stopped at an open schema. */ readonly schema:
        JsonSchema | undefined;
    }
  | { readonly ok: false; readonly message: string };

const scalarTypes = new Set(['string', 'integer', 'number', 'boolean']);

function isSchema(value: unknown): value is JsonSchema {
  return value != null && typeof value === 'object' && !Array.isArray(value);
}

function properties(schema: JsonSchema): Readonly<Record<string, unknown>> | undefined {
  const props = schema['properties'];
  return isSchema(props) ? props : undefined;
}

/** isOpenSchema tells whether a schema accepts any keys below it, so nothing under it can be checked. */
function isOpen(schema: JsonSchema): boolean {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && properties(schema) == null) return true;
  if (schema['x-kubernetes-int-or-string'] === true) return false;
  // Combinators and schemas without a type or properties are not walked further.
  if (schema['allOf'] != null || schema['anyOf'] != null || schema['oneOf'] != null) return true;
  return schema['type'] == null && properties(schema) == null && schema['items'] == null;
}

/**
 * walkSchema follows dot-path segments (`*` is any element or value, a number indexes a list)
 * through an OpenAPI v3 schema. It fails on a key the schema does not declare (with a "did you
 * mean" hint) and on a step into a scalar; it stops, successfully, at schemas that keep unknown
 * fields or use combinators. `base` names the path walked so far, for messages.
 */
export function walkSchema(root: JsonSchema, segments: readonly string[], base: string): SchemaWalk {
  let schema: JsonSchema = root;
  let at = base;
  for (const segment of segments) {
    if (isOpen(schema)) return { ok: true, schema: undefined };
    const type = schema['type'];
    const props = properties(schema);
    if (typeof type === 'string' && scalarTypes.has(type)) {
      return {
        ok: false,
        message: `\`${at}\` is ${type === 'integer' ? 'an' : 'a'} ${type} in the schema, not a map or list`,
      };
    }
    if (type === 'array') {
      const items = schema['items'];
      if (segment !== '*' && !/^\d+$/.test(segment)) {
        return { ok: false, message: `\`${at}\` is a list in the schema; \`${segment}\` is not an index` };
      }
      if (!isSchema(items)) return { ok: true, schema: undefined };
      schema = items;
      at = `${at}.${segment}`;
      continue;
    }
    const additional = schema['additionalProperties'];
    if (segment === '*') {
      if (isSchema(additional)) {
        schema = additional;
        at = `${at}.*`;
        continue;
      }
      return { ok: true, schema: undefined };
    }
    const next = props != null && Object.hasOwn(props, segment) ? props[segment] : undefined;
    if (isSchema(next)) {
      schema = next;
      at = `${at}.${segment}`;
      continue;
    }
    if (isSchema(additional)) {
      schema = additional;
      at = `${at}.${segment}`;
      continue;
    }
    if (additional === true || schema['x-kubernetes-preserve-unknown-fields'] === true) {
      return { ok: true, schema: undefined };
    }
    return {
      ok: false,
      message: `unknown field \`${segment}\` in \`${at}\`${didYouMean(segment, Object.keys(props ?? {}))}`,
    };
  }
  return { ok: true, schema: isOpen(schema) ? undefined : schema };
}

/** schemaProperty returns `root.properties[key]` when it is a schema. */
export function schemaProperty(root: JsonSchema | undefined, key: string): JsonSchema | undefined {
  if (root == null) return undefined;
  const props = properties(root);
  const next = props != null && Object.hasOwn(props, key) ? props[key] : undefined;
  return isSchema(next) ? next : undefined;
}
