/**
 * Where `ork diff` gets the cluster's current objects (docs/reference/runtime.md §21.1): read-only
 * from a live cluster (list and get only), or from a directory of exported objects. Either way the
 * result is the CRs of the Katalog's kinds and their children: objects labelled with a CR's UID
 * (`orkestra.konductor.io/owner-uid`) or named in its `status.inventory`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import { ForbiddenError, NotFoundError, refOf } from '@orkestra/registry';
import type { GroupVersionKind, KubeClient, KubeObject, ObjectRef } from '@orkestra/registry';
import { OrkestraLabel, RESOURCE_KINDS } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { isMap } from '../../is-map.js';
import { readCrds } from '../../conversion/version-view.js';
import type { LiveCrds } from '../../conversion/version-view.js';

/** Snapshot is the objects a diff starts from, and what could not be read. */
export interface Snapshot {
  readonly objects: readonly KubeObject[];
  readonly notes: readonly string[];
  /** The live CRDs of the Katalog's entries (their versions, runtime.md §21.1). */
  readonly crds?: LiveCrds;
}

/** CrKind is one enabled CRD entry's kind. */
export interface CrKind {
  readonly entry: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** SnapshotError is a snapshot that cannot be taken: an unreadable export, or CRs the user may not list. */
class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
  readonly code = 'SnapshotError';
}

type Json = Record<string, unknown>;
/** crKindsOf lists the kinds of the Katalog's enabled CRD entries. */
export function crKindsOf(katalog: Katalog): CrKind[] {
  return Object.entries(katalog.spec.crds)
    .filter(([, entry]) => entry.enabled)
    .map(([name, entry]) => ({
      entry: name,
      apiVersion: `${entry.apiTypes.group}/${entry.apiTypes.version}`,
      kind: entry.apiTypes.kind,
      namespaced: entry.namespaced,
    }));
}

/** childKindsOf lists the kinds the Katalog's entries declare children of (custom entries with a literal kind). */
function childKindsOf(katalog: Katalog): GroupVersionKind[] {
  const out = new Map<string, GroupVersionKind>();
  const add = (apiVersion: unknown, kind: unknown): void => {
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') return;
    if (apiVersion.includes('{{') || kind.includes('{{')) return;
    out.set(`${apiVersion}/${kind}`, { apiVersion, kind });
  };
  for (const entry of Object.values(katalog.spec.crds)) {
    const box = entry.operatorBox as unknown as Json;
    for (const group of ['onCreate', 'onReconcile', 'onDelete']) {
      const lists = box[group];
      if (!isMap(lists)) continue;
      for (const info of RESOURCE_KINDS) {
        const items = lists[info.listKey];
        if (!Array.isArray(items) || items.length === 0) continue;
        if (info.listKey === 'custom') {
          for (const item of items) if (isMap(item)) add(item['apiVersion'], item['kind']);
        } else add(info.apiVersion, info.kind);
      }
    }
  }
  return [...out.values()];
}

function inventoryOf(cr: KubeObject): ObjectRef[] {
  const inventory = isMap(cr['status']) ? cr['status']['inventory'] : undefined;
  if (!Array.isArray(inventory)) return [];
  return inventory.flatMap((item: unknown) =>
    isMap(item) &&
    typeof item['apiVersion'] === 'string' &&
    typeof item['kind'] === 'string' &&
    typeof item['name'] === 'string'
      ? [
          {
            apiVersion: item['apiVersion'],
            kind: item['kind'],
            name: item['name'],
            ...(typeof item['namespace'] === 'string' ? { namespace: item['namespace'] } : {}),
          },
        ]
      : [],
  );
}

function key(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

/**
 * selectRelevant keeps the CRs of the Katalog's kinds (in `namespace` when given) and the objects
 * that are children of one of them: labelled with its UID or named in its inventory.
 */
function selectRelevant(
  objects: readonly KubeObject[],
  katalog: Katalog,
  namespace: string | undefined,
): KubeObject[] {
  const kinds = crKindsOf(katalog);
  const isCr = (o: KubeObject): boolean =>
    kinds.some((k) => k.apiVersion === o.apiVersion && k.kind === o.kind);
  const crs = objects.filter(
    (o) =>
      isCr(o) && (namespace == null || o.metadata.namespace == null || o.metadata.namespace === namespace),
  );
  const uids = new Set(crs.map((cr) => cr.metadata.uid).filter((uid): uid is string => uid != null));
  const inventory = new Set(crs.flatMap(inventoryOf).map(key));
  const children = objects.filter(
    (o) =>
      !isCr(o) &&
      (uids.has(o.metadata.labels?.[OrkestraLabel.OwnerUid] ?? '') || inventory.has(key(refOf(o)))),
  );
  return [...crs, ...children];
}

/** ReadClusterOptions configures readCluster. */
export interface ReadClusterOptions {
  readonly client: KubeClient;
  readonly katalog: Katalog;
  /** Only CRs (and namespaced children) in this namespace; all namespaces when undefined. */
  readonly namespace: string | undefined;
}

/** readCluster takes a snapshot from a live cluster with list and get requests only. */
export async function readCluster(options: ReadClusterOptions): Promise<Snapshot> {
  const { client, katalog, namespace } = options;
  const notes: string[] = [];
  const crs: KubeObject[] = [];
  for (const kind of crKindsOf(katalog)) {
    try {
      const list = await client.list(
        { apiVersion: kind.apiVersion, kind: kind.kind },
        kind.namespaced && namespace != null ? { namespace } : {},
      );
      crs.push(...list.items);
    } catch (error) {
      if (error instanceof NotFoundError) {
        notes.push(
          `the cluster serves no ${kind.apiVersion} ${kind.kind} (CRD not installed): nothing to compare`,
        );
        continue;
      }
      if (error instanceof ForbiddenError)
        throw new SnapshotError(`cannot list ${kind.apiVersion} ${kind.kind}: ${error.message}`);
      throw error;
    }
  }
  const children = new Map<string, KubeObject>();
  if (crs.length > 0) {
    const kinds = new Map(childKindsOf(katalog).map((k) => [`${k.apiVersion}/${k.kind}`, k]));
    for (const ref of crs.flatMap(inventoryOf)) kinds.set(`${ref.apiVersion}/${ref.kind}`, ref);
    for (const kind of [...kinds.values()].sort((a, b) =>
      `${a.apiVersion}/${a.kind}`.localeCompare(`${b.apiVersion}/${b.kind}`),
    )) {
      try {
        const scope = await client.discover(kind);
        const list = await client.list(
          { apiVersion: kind.apiVersion, kind: kind.kind },
          {
            labelSelector: OrkestraLabel.OwnerUid,
            ...(scope.namespaced && namespace != null ? { namespace } : {}),
          },
        );
        for (const object of list.items) children.set(key(refOf(object)), object);
      } catch (error) {
        if (error instanceof ForbiddenError || error instanceof NotFoundError)
          notes.push(
            `cannot list ${kind.apiVersion} ${kind.kind} (${error instanceof ForbiddenError ? 'forbidden' : 'not served'}): children of that kind read as absent`,
          );
        else throw error;
      }
    }
    for (const ref of crs.flatMap(inventoryOf)) {
      if (children.has(key(ref))) continue;
      try {
        children.set(key(ref), await client.get(ref));
      } catch (error) {
        if (error instanceof NotFoundError) continue;
        if (error instanceof ForbiddenError)
          notes.push(
            `cannot get ${ref.kind} ${ref.namespace == null ? '' : `${ref.namespace}/`}${ref.name} (forbidden): read as absent`,
          );
        else throw error;
      }
    }
  }
  return {
    objects: selectRelevant([...crs, ...children.values()], katalog, namespace),
    notes: [...new Set(notes)],
    crds: await readCrds(client, katalog),
  };
}

/** ReadExportDirOptions configures readExportDir. */
export interface ReadExportDirOptions {
  readonly dir: string;
  /** Relative paths (`dir`, and file names in messages) are against this directory. */
  readonly cwd: string;
  readonly katalog: Katalog;
  readonly namespace: string | undefined;
}

/**
 * readExportDir reads every `.yaml`, `.yml` and `.json` file under `dir` (sorted, recursively):
 * documents of objects as `kubectl get -o yaml` prints them, one or many per file, `List`s
 * expanded. A document that is not an object is an error naming the file, line and column.
 */
export function readExportDir(options: ReadExportDirOptions): Snapshot {
  const { dir, cwd, katalog, namespace } = options;
  const root = resolve(cwd, dir);
  let files: string[];
  try {
    files = listFiles(root);
  } catch (error) {
    throw new SnapshotError(`--from-dir ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const objects = new Map<string, KubeObject>();
  for (const file of files) {
    const name = relative(cwd, file) || file;
    const lines = new LineCounter();
    const text = readFileSync(file, 'utf8');
    for (const doc of parseAllDocuments(text, { lineCounter: lines })) {
      const at = (offset: number | undefined): string => {
        const pos = lines.linePos(offset ?? 0);
        return `${name}:${pos.line}:${pos.col}`;
      };
      if ('errors' in doc && doc.errors.length > 0) {
        const first = doc.errors[0];
        throw new SnapshotError(`${at(first?.pos[0])}: ${first?.message.split('\n')[0] ?? 'invalid YAML'}`);
      }
      const value: unknown = doc.toJS();
      if (value == null) continue;
      const where = at(doc.contents?.range[0]);
      const items =
        isMap(value) &&
        typeof value['kind'] === 'string' &&
        value['kind'].endsWith('List') &&
        Array.isArray(value['items'])
          ? (value['items'] as unknown[])
          : [value];
      items.forEach((item, index) => {
        const label = items.length === 1 && item === value ? where : `${where}: items[${index}]`;
        const object = checkObject(item, label);
        objects.set(key(refOf(object)), object);
      });
    }
  }
  const crds = [...objects.values()].filter(
    (o) => o.apiVersion === 'apiextensions.k8s.io/v1' && o.kind === 'CustomResourceDefinition',
  );
  return {
    objects: selectRelevant([...objects.values()], katalog, namespace),
    notes: [],
    crds: { crds, missing: 'not in the export' },
  };
}

function checkObject(value: unknown, where: string): KubeObject {
  if (!isMap(value))
    throw new SnapshotError(
      `${where}: expected an object (a map), found ${Array.isArray(value) ? 'a list' : typeof value}`,
    );
  const metadata = value['metadata'];
  if (typeof value['apiVersion'] !== 'string')
    throw new SnapshotError(`${where}: apiVersion must be a string`);
  if (typeof value['kind'] !== 'string') throw new SnapshotError(`${where}: kind must be a string`);
  if (!isMap(metadata) || typeof metadata['name'] !== 'string' || metadata['name'] === '')
    throw new SnapshotError(`${where}: metadata.name must be a non-empty string`);
  if (metadata['namespace'] != null && typeof metadata['namespace'] !== 'string')
    throw new SnapshotError(`${where}: metadata.namespace must be a string`);
  return value as unknown as KubeObject;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path));
    else if (/\.(ya?ml|json)$/.test(name)) out.push(path);
  }
  return out;
}
