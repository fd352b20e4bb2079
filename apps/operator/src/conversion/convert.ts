import { compileValue } from '@orkestra/template';
import type { CompiledValue } from '@orkestra/template';
import { storedVersionOf } from '@orkestra/types';
import type { ConversionPath, ConversionRule, CrdEntry } from '@orkestra/types';
import { isMap } from '../is-map.js';

/**
 * Conversion of one entry's objects between its versions (docs/reference/katalog.md §3.4,
 * ADR 0056). A step is a declared path: a template `spec` (upstream's form) or declarative
 * `rules`, whose inverse is the opposite step when that one is not declared. Two versions without
 * a step between them convert through the storage version.
 *
 * Rules are lossless by design: what a step cannot carry (a dropped field, a target-only field
 * whose value the other direction would not reproduce) is kept in the annotation
 * `conversion.orkestra.konductor.io/<version>` of the object and restored when the object converts
 * back to that version, so A → B → A is the identity for every object.
 */

type Json = Record<string, unknown>;

/** STASH_PREFIX prefixes the annotation holding the fields of one version with no home in another. */
export const STASH_PREFIX = 'conversion.orkestra.konductor.io/';

/** ConversionError is a conversion the entry's paths cannot make. */
export class ConversionError extends Error {
  readonly code = 'ConversionFailed';
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** Stash is what one step kept aside: values to set back, and fields to remove again. */
interface Stash {
  set: Record<string, unknown>;
  absent: string[];
}

interface Step {
  apply(object: Json, from: string, to: string): Json;
}

function splitPath(path: string): string[] {
  return path.split('.');
}

function has(root: Json, path: string): boolean {
  let node: unknown = root;
  for (const key of splitPath(path)) {
    if (!isMap(node) || !Object.hasOwn(node, key)) return false;
    node = node[key];
  }
  return true;
}

function get(root: Json, path: string): unknown {
  let node: unknown = root;
  for (const key of splitPath(path)) node = isMap(node) ? node[key] : undefined;
  return node;
}

function set(root: Json, path: string, value: unknown): void {
  const keys = splitPath(path);
  let node = root;
  for (const key of keys.slice(0, -1)) {
    if (!isMap(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[keys[keys.length - 1] as string] = value;
}

/** remove deletes a field and the objects below spec/status it leaves empty. */
function remove(root: Json, path: string): void {
  const keys = splitPath(path);
  const chain: Json[] = [root];
  for (const key of keys.slice(0, -1)) {
    const next = chain[chain.length - 1]?.[key];
    if (!isMap(next)) return;
    chain.push(next);
  }
  delete chain[chain.length - 1]?.[keys[keys.length - 1] as string];
  for (let i = chain.length - 1; i >= 2; i--) {
    if (Object.keys(chain[i] as Json).length > 0) break;
    delete chain[i - 1]?.[keys[i - 1] as string];
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isMap(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1))) : v,
  );
}

function annotationsOf(object: Json): Json | undefined {
  const metadata = object['metadata'];
  return isMap(metadata) && isMap(metadata['annotations']) ? metadata['annotations'] : undefined;
}

/** takeStash removes and returns the stash an object holds for `version`. */
function takeStash(object: Json, version: string): Stash | undefined {
  const annotations = annotationsOf(object);
  const raw = annotations?.[STASH_PREFIX + version];
  if (annotations == null || typeof raw !== 'string') return undefined;
  delete annotations[STASH_PREFIX + version];
  if (Object.keys(annotations).length === 0) delete (object['metadata'] as Json)['annotations'];
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!isMap(parsed)) return undefined;
    return {
      set: isMap(parsed['set']) ? parsed['set'] : {},
      absent: Array.isArray(parsed['absent'])
        ? parsed['absent'].filter((p): p is string => typeof p === 'string')
        : [],
    };
  } catch {
    return undefined; // an edited annotation that is not JSON restores nothing
  }
}

function putStash(object: Json, version: string, stash: Stash): void {
  if (Object.keys(stash.set).length === 0 && stash.absent.length === 0) return;
  if (!isMap(object['metadata'])) object['metadata'] = {};
  const metadata = object['metadata'] as Json;
  if (!isMap(metadata['annotations'])) metadata['annotations'] = {};
  const body: Json = {};
  if (Object.keys(stash.set).length > 0) body['set'] = stash.set;
  if (stash.absent.length > 0) body['absent'] = [...stash.absent].sort();
  (metadata['annotations'] as Json)[STASH_PREFIX + version] = canonical(body);
}

/**
 * rulesStep applies declarative rules from `from` to `to` (`inverse` runs them from `to` to
 * `from`). Moves first, then the target's stash is restored, then target-only fields are filled.
 */
function rulesStep(rules: readonly ConversionRule[], inverse: boolean): Step {
  return {
    apply(source, from, to) {
      const object = structuredClone(source);
      const restore = takeStash(object, to);
      const kept: Stash = { set: {}, absent: [] };
      const moves = rules.flatMap((r) => {
        const m = r.rename ?? r.move;
        return m == null ? [] : [inverse ? { from: m.to, to: m.from } : m];
      });
      const values = moves.map((m) => (has(object, m.from) ? { value: get(object, m.from) } : undefined));
      moves.forEach((m) => remove(object, m.from));
      moves.forEach((m, i) => {
        const v = values[i];
        if (v != null) set(object, m.to, v.value);
      });
      for (const rule of rules) {
        // Forward: `drop` leaves the source; backward: `default`/`constant` leave the target.
        const leaving = inverse ? (rule.default ?? rule.constant) : rule.drop;
        if (leaving != null && has(object, leaving.field)) {
          const value = get(object, leaving.field);
          const reproduced =
            inverse && rule.default != null
              ? sameJson(value, rule.default.value)
              : inverse && rule.constant != null && sameJson(value, rule.constant.value);
          if (!reproduced) kept.set[leaving.field] = value;
          remove(object, leaving.field);
        } else if (leaving != null && inverse) {
          kept.absent.push(leaving.field); // the forward step would add it
        }
      }
      const restored = new Set([...Object.keys(restore?.set ?? {}), ...(restore?.absent ?? [])]);
      for (const [path, value] of Object.entries(restore?.set ?? {})) set(object, path, value);
      for (const path of restore?.absent ?? []) remove(object, path);
      if (!inverse)
        for (const rule of rules) {
          const filled = rule.default ?? rule.constant;
          if (filled == null || restored.has(filled.field)) continue;
          if (rule.constant != null || !has(object, filled.field))
            set(object, filled.field, structuredClone(filled.value));
        }
      putStash(object, from, kept);
      return object;
    },
  };
}

/** templateStep renders upstream's `spec` template over the source object; metadata and status are kept. */
function templateStep(compiled: CompiledValue): Step {
  return {
    apply(source) {
      const object = structuredClone(source);
      const rendered = compiled.render(object as never);
      object['spec'] = isMap(rendered) ? dropEmpty(rendered) : {};
      return object;
    },
  };
}

/** dropEmpty leaves out keys whose template rendered nothing (upstream writes no value for them). */
function dropEmpty(value: Json): Json {
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === '' || v == null) continue;
    out[key] = isMap(v) ? dropEmpty(v) : v;
  }
  return out;
}

/** Converter converts the objects of one entry between its versions. */
export interface Converter {
  readonly group: string;
  readonly storageVersion: string;
  /** convert returns the object at `apiVersion` (`<group>/<version>`); throws ConversionError. */
  convert(object: Json, apiVersion: string): Json;
}

function versionOf(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') throw new ConversionError('the object has no apiVersion');
  return apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
}

/** createConverter builds the converter of an entry with `conversion` (its templates compiled once). */
export function createConverter(entryName: string, entry: CrdEntry): Converter {
  const group = entry.apiTypes.group;
  const storageVersion = storedVersionOf(entry);
  const steps = new Map<string, Step>();
  const paths: readonly ConversionPath[] = entry.conversion?.paths ?? [];
  paths.forEach((path, i) => {
    if (path.rules != null) {
      steps.set(`${path.from}>${path.to}`, rulesStep(path.rules, false));
    } else if (path.spec != null) {
      const compiled = compileValue(path.spec, {
        path: `${entryName}.conversion.paths[${i}].spec`,
      });
      steps.set(`${path.from}>${path.to}`, templateStep(compiled));
    }
  });
  for (const path of paths)
    if (path.rules != null && !steps.has(`${path.to}>${path.from}`))
      steps.set(`${path.to}>${path.from}`, rulesStep(path.rules, true));

  const step = (object: Json, from: string, to: string): Json => {
    const direct = steps.get(`${from}>${to}`);
    if (direct == null)
      throw new ConversionError(`no conversion path ${from} → ${to} for ${entry.apiTypes.kind}`);
    const out = direct.apply(object, from, to);
    out['apiVersion'] = `${group}/${to}`;
    return out;
  };

  return {
    group,
    storageVersion,
    convert(object, apiVersion) {
      const from = versionOf(object['apiVersion']);
      const to = versionOf(apiVersion);
      if (from === to) return { ...object, apiVersion };
      if (steps.has(`${from}>${to}`) || from === storageVersion || to === storageVersion)
        return step(object, from, to);
      return step(step(object, from, storageVersion), storageVersion, to);
    },
  };
}
