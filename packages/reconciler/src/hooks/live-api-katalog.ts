/**
 * The Katalog documents of the Live API (docs/reference/runtime.md §18.6): `/katalog/raw` (the
 * Katalog file as written) and `/katalog/enriched` (the Katalog as loaded: includes, motifs and
 * presets expanded, every default applied), and their per-entry forms. Both come from what the
 * process already holds; Secret values written in the Katalog are replaced before anything is
 * answered.
 */

import { REDACTED } from '../log-redact.js';
import { isMap } from '../is-map.js';

/** LiveKatalogDocuments are the two documents, as plain JSON values. */
export interface LiveKatalogDocuments {
  /** The Katalog file as written (the parsed YAML); undefined when the process has no file. */
  readonly raw: unknown;
  /** The loaded Katalog (`spec.crds` in the map form). */
  readonly enriched: unknown;
}

type Json = Record<string, unknown>;

/**
 * redactSecretValues returns a copy of `value` where every value under `data` or `stringData` of a
 * Secret (an item of a `secrets` group, or any object with `kind: Secret`) is REDACTED; the keys stay.
 */
function redactSecretValues(value: unknown, inSecrets = false): unknown {
  if (Array.isArray(value)) return value.map((item) => redactSecretValues(item, inSecrets));
  if (!isMap(value)) return value;
  const secret = inSecrets || value['kind'] === 'Secret';
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (secret && (key === 'data' || key === 'stringData'))
      out[key] = isMap(child) ? Object.fromEntries(Object.keys(child).map((k) => [k, REDACTED])) : REDACTED;
    else if (key === 'secrets') out[key] = secretsGroup(child);
    else out[key] = redactSecretValues(child);
  }
  return out;
}

/** secretsGroup redacts a `secrets` group: a list of Secret entries (or a map of them, by name). */
function secretsGroup(group: unknown): unknown {
  if (Array.isArray(group)) return group.map((item) => redactSecretValues(item, true));
  if (isMap(group))
    return Object.fromEntries(Object.entries(group).map(([k, v]) => [k, redactSecretValues(v, true)]));
  return redactSecretValues(group);
}

/** entriesOf returns a document's `spec.crds` as [name, entry] pairs, in either form (map or list of `{name}`). */
function entriesOf(document: unknown): [string, Json][] {
  const crds = isMap(document) && isMap(document['spec']) ? document['spec']['crds'] : undefined;
  if (Array.isArray(crds))
    return crds.filter(isMap).map((item): [string, Json] => [String(item['name'] ?? ''), item]);
  if (isMap(crds))
    return Object.entries(crds).map(([name, item]): [string, Json] => [name, isMap(item) ? item : {}]);
  return [];
}

/**
 * katalogDocument is `document` with `spec.crds` cut down to the entries `shown` admits, each with
 * its `name` first, as a list (upstream's shape), Secret values redacted.
 */
export function katalogDocument(document: unknown, shown: (name: string) => boolean): Json {
  const base = isMap(document) ? document : {};
  const spec = isMap(base['spec']) ? base['spec'] : {};
  const crds = entriesOf(document)
    .filter(([name]) => shown(name))
    .map(([name, entry]) => ({ ...entry, name }))
    .map(({ name, ...rest }) => ({ name, ...rest }));
  return redactSecretValues({ ...base, spec: { ...spec, crds } }) as Json;
}

/** katalogEntry is one entry of `document` with its `name` first, Secret values redacted; undefined when the document does not hold it. */
export function katalogEntry(document: unknown, name: string): Json | undefined {
  const found = entriesOf(document).find(([n]) => n === name);
  if (found == null) return undefined;
  const { name: _ignored, ...rest } = found[1];
  return redactSecretValues({ name, ...rest }) as Json;
}
