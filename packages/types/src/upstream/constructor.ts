/**
 * `ork migrate` of upstream's Go `constructor` (docs/reference/katalog.md §15.3, ADR 0064): the
 * module reconciler it becomes needs `managedResources`, the kinds its answers may hold. They are
 * read from what the Katalog declares — the constructor's own `resources` (upstream's plurals, or
 * `{kind}` items), else the kinds of the entry's declared children — and never guessed.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { YAMLMap, YAMLSeq } from 'yaml';
import { RESOURCE_KINDS } from '../kinds/index.js';
import type { ResourceKindInfo } from '../kinds/index.js';
import { mapAt, pairOf, scalarText } from './nodes.js';
import type { Path } from './nodes.js';

/** ManagedKind is one `managedResources` item of a built-in kind. */
export interface ManagedKind {
  readonly group: string;
  readonly plural: string;
}

/** ConstructorKinds is what a constructor's managed kinds were read from, or why they cannot be. */
export type ConstructorKinds =
  | { readonly ok: true; readonly kinds: readonly ManagedKind[]; readonly from: string }
  | { readonly ok: false; readonly path: Path; readonly node: unknown; readonly message: string };

/** The lifecycle groups whose lists declare children. */
const GROUPS = ['onCreate', 'onReconcile'] as const;

const lower = (text: string): string => text.toLowerCase();

/** builtinKind finds a table kind by upstream's spelling: a plural (`statefulsets`), a list key, or a kind. */
function builtinKind(name: string, apiVersion?: string): ResourceKindInfo | undefined {
  const wanted = lower(name);
  return RESOURCE_KINDS.find(
    (info) =>
      info.plural != null &&
      (apiVersion == null || info.apiVersion === apiVersion) &&
      [info.plural, info.listKey, info.kind ?? ''].map(lower).includes(wanted),
  );
}

function managed(info: ResourceKindInfo): ManagedKind {
  return { group: info.group ?? '', plural: info.plural ?? '' };
}

function unique(kinds: readonly ManagedKind[]): ManagedKind[] {
  const seen = new Set<string>();
  return kinds.filter((k) => {
    const key = `${k.group}/${k.plural}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const fillIn = (fn: string): string =>
  `list the kinds ${fn} creates in the constructor's \`resources\` (plurals such as \`deployments\`, or \`{kind: Job}\`) and run ork migrate again, or write \`operatorBox.remote: {module, function, managedResources: [{group, plural}]}\` yourself (docs/reference/katalog.md §15.3)`;

/**
 * constructorKinds reads the managed kinds of a constructor `block` (at `path`): its `resources`,
 * else the children declared in `onCreate`/`onReconcile` of `holders` (the block the constructor
 * sits in, and the operatorBox). An unknown kind, or nothing declared, is a positioned refusal.
 */
export function constructorKinds(
  block: YAMLMap,
  path: Path,
  holders: readonly (YAMLMap | undefined)[],
  fn: string,
): ConstructorKinds {
  const resources = pairOf(block, 'resources');
  if (resources != null && isSeq(resources.value)) {
    const kinds: ManagedKind[] = [];
    const items = (resources.value as YAMLSeq).items;
    for (const [i, item] of items.entries()) {
      const spelled = isScalar(item)
        ? { name: scalarText(item) ?? '', apiVersion: undefined }
        : isMap(item)
          ? {
              name: scalarText(pairOf(item as YAMLMap, 'kind')?.value) ?? '',
              apiVersion: scalarText(pairOf(item as YAMLMap, 'apiVersion')?.value),
            }
          : { name: '', apiVersion: undefined };
      const info = spelled.name === '' ? undefined : builtinKind(spelled.name, spelled.apiVersion);
      if (info == null)
        return {
          ok: false,
          path: [...path, 'resources', i],
          node: item,
          message: `ork migrate cannot tell the group and plural of \`${spelled.name === '' ? String(scalarText(item) ?? '') : spelled.name}\`: it is not a built-in kind; write \`operatorBox.remote.managedResources\` with its \`{group, version, kind, plural}\` yourself, or ${fillIn(fn)}`,
        };
      kinds.push(managed(info));
    }
    if (kinds.length > 0) return { ok: true, kinds: unique(kinds), from: 'the constructor’s `resources`' };
  }
  const kinds: ManagedKind[] = [];
  for (const holder of holders) {
    for (const group of GROUPS) {
      const lists = mapAt(holder, group);
      if (lists == null) continue;
      const custom = pairOf(lists, 'custom');
      if (custom != null && isSeq(custom.value) && (custom.value as YAMLSeq).items.length > 0)
        return {
          ok: false,
          path: [...path, 'resources'],
          node: pairOf(block, 'function')?.key ?? pairOf(block, 'location')?.key,
          message: `ork migrate cannot tell the group and plural of the entry's \`${group}.custom\` children, which ${fn} may return; ${fillIn(fn)}`,
        };
      for (const info of RESOURCE_KINDS) {
        const list = pairOf(lists, info.listKey)?.value;
        if (info.plural != null && isSeq(list) && (list as YAMLSeq).items.length > 0)
          kinds.push(managed(info));
      }
    }
  }
  if (kinds.length > 0) return { ok: true, kinds: unique(kinds), from: 'the entry’s declared children' };
  return {
    ok: false,
    path: [...path, resources == null ? 'function' : 'resources'],
    node: resources?.key ?? pairOf(block, 'function')?.key ?? pairOf(block, 'location')?.key,
    message: `ork migrate cannot tell which kinds ${fn} returns (\`managedResources\` of the module reconciler): the constructor declares no \`resources\` and the entry no children; ${fillIn(fn)}`,
  };
}
