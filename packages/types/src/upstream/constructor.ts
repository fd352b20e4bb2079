/**
 * `ork migrate` of upstream's Go `constructor` (docs/reference/katalog.md §15.3, ADR 0064): the
 * module reconciler it becomes needs `managedResources`, the kinds its answers may hold. They are
 * read from what the Katalog declares — the block's own `managedResources` or `resources`
 * (upstream's plurals, `{kind}` or `{kind, group, version, plural}` items), else the kinds of the
 * entry's declared children — and never guessed. A Go `hooks` block that lists kinds becomes a
 * module reconciler the same way (a module hook cannot write to the cluster).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { YAMLMap, YAMLSeq } from 'yaml';
import { RESOURCE_KINDS } from '../kinds/index.js';
import type { ResourceKindInfo } from '../kinds/index.js';
import { mapAt, pairOf, scalarText } from './nodes.js';
import type { Path } from './nodes.js';

/** ManagedKind is one `managedResources` item: a built-in kind's group and plural, or all four for another kind. */
export interface ManagedKind {
  readonly group: string;
  readonly plural: string;
  readonly version?: string;
  readonly kind?: string;
}

/** ConstructorKinds is what a constructor's managed kinds were read from, or why they cannot be. */
export type ConstructorKinds =
  | { readonly ok: true; readonly kinds: readonly ManagedKind[]; readonly from: string }
  | { readonly ok: false; readonly path: Path; readonly node: unknown; readonly message: string };

/** The keys of a Go `hooks`/`constructor` block that list the kinds it writes: G1/G2 `resources`, inrun's `managedResources`. */
export const KIND_LIST_KEYS = ['managedResources', 'resources'] as const;

/** The lifecycle groups whose lists declare children. */
const GROUPS = ['onCreate', 'onReconcile'] as const;

const lower = (text: string): string => text.toLowerCase();

/** builtinKind finds a table kind by upstream's spelling: a plural (`statefulsets`), a list key, or a kind. */
function builtinKind(name: string, apiVersion?: string, group?: string): ResourceKindInfo | undefined {
  const wanted = lower(name);
  return RESOURCE_KINDS.find(
    (info) =>
      info.plural != null &&
      (apiVersion == null || info.apiVersion === apiVersion) &&
      (group == null || (info.group ?? '') === group) &&
      [info.plural, info.listKey, info.kind ?? ''].map(lower).includes(wanted),
  );
}

/**
 * STANDARD_KINDS are Kubernetes' own kinds outside the kind table that upstream's examples name by
 * `kind` alone ("for built-ins, only kind is required"): written with all four fields, as
 * `managedResources` needs for a kind outside the table (docs/reference/katalog.md §15.3).
 */
const STANDARD_KINDS: readonly Required<ManagedKind>[] = [
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles' },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
  },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets' },
  { group: '', version: 'v1', kind: 'PersistentVolume', plural: 'persistentvolumes' },
  { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses' },
];

/**
 * spelledKind reads one item of a kind list: a plural or kind (`statefulsets`, `Job`), `{kind,
 * apiVersion?}`, or upstream's full `{kind, group, version, plural}` (the form its docs give for a
 * kind outside the built-ins). Undefined when it names no kind the operator can write.
 */
function spelledKind(item: unknown): { kind: ManagedKind | undefined; name: string } {
  if (isScalar(item)) {
    const name = scalarText(item) ?? '';
    const info = name === '' ? undefined : builtinKind(name);
    const standard = STANDARD_KINDS.find((k) => [k.kind, k.plural].map(lower).includes(lower(name)));
    return { kind: info == null ? standard : managed(info), name };
  }
  if (!isMap(item)) return { kind: undefined, name: '' };
  const text = (key: string): string | undefined => {
    const value = scalarText(pairOf(item as YAMLMap, key)?.value);
    return value == null || value === '' ? undefined : value;
  };
  const [kind, apiVersion, group, version, plural] = ['kind', 'apiVersion', 'group', 'version', 'plural'].map(
    text,
  );
  const groupOf = group ?? (apiVersion?.includes('/') === true ? apiVersion.split('/')[0] : undefined);
  const name = kind ?? plural ?? '';
  const info =
    name === ''
      ? undefined
      : (builtinKind(name, group == null ? apiVersion : undefined, groupOf) ??
        (plural == null ? undefined : builtinKind(plural, undefined, groupOf)));
  if (info != null) return { kind: managed(info), name };
  const standard = STANDARD_KINDS.find(
    (k) =>
      (groupOf == null || k.group === groupOf) &&
      [k.kind, k.plural].map(lower).includes(lower(name === '' ? (plural ?? '') : name)),
  );
  if (standard != null) return { kind: standard, name };
  // Not built in: usable when upstream's item gives all four (group may be '' only for core kinds, all built in).
  if (groupOf != null && plural != null && version != null && kind != null)
    return { kind: { group: groupOf, plural, version, kind }, name };
  return { kind: undefined, name };
}

/** flowKinds writes kinds as a YAML flow list that parses and validates as `managedResources`. */
export function flowKinds(kinds: readonly ManagedKind[]): string {
  const quote = (text: string): string => (/^[A-Za-z][A-Za-z0-9.-]*$/.test(text) ? text : `'${text}'`);
  const item = (k: ManagedKind): string =>
    `{${[
      `group: ${quote(k.group)}`,
      ...(k.version == null ? [] : [`version: ${quote(k.version)}`]),
      ...(k.kind == null ? [] : [`kind: ${quote(k.kind)}`]),
      `plural: ${quote(k.plural)}`,
    ].join(', ')}}`;
  return `[${kinds.map(item).join(', ')}]`;
}

/** yamlText quotes a plain scalar that YAML would not read back as the same string (`@scope/name`). */
export function yamlText(text: string): string {
  return /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/.test(text) ? text : `'${text.replaceAll("'", "''")}'`;
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

const fillIn = (fn: string, key: string): string =>
  `list the kinds ${fn} creates in the ${key === 'hooks' ? 'hooks block' : key}'s \`managedResources\` (plurals such as \`deployments\`, \`{kind: Job}\`, or \`{kind, group, version, plural}\`) and run ork migrate again, or write \`operatorBox.remote: {module, function, managedResources: [{group, plural}]}\` yourself (docs/reference/katalog.md §15.3)`;

/**
 * constructorKinds reads the managed kinds of a Go `hooks`/`constructor` block (at `path`, its key
 * `key`): its `managedResources` and `resources` (both forms upstream wrote), else the children
 * declared in `onCreate`/`onReconcile` of `holders` (the block the constructor sits in, and the
 * operatorBox; none for hooks). An unknown kind, or nothing declared, is a positioned refusal.
 */
export function constructorKinds(
  block: YAMLMap,
  path: Path,
  holders: readonly (YAMLMap | undefined)[],
  fn: string,
  key = 'constructor',
): ConstructorKinds {
  const lists = KIND_LIST_KEYS.map((k) => ({ key: k, pair: pairOf(block, k) })).filter((l) => l.pair != null);
  const kinds: ManagedKind[] = [];
  for (const list of lists) {
    if (!isSeq(list.pair?.value)) continue;
    for (const [i, item] of (list.pair.value as YAMLSeq).items.entries()) {
      const spelled = spelledKind(item);
      if (spelled.kind == null)
        return {
          ok: false,
          path: [...path, list.key, i],
          node: item,
          message: `ork migrate cannot tell the group and plural of \`${spelled.name}\`: it is not a built-in kind; write \`operatorBox.remote.managedResources\` with its \`{group, version, kind, plural}\` yourself, or ${fillIn(fn, key)}`,
        };
      kinds.push(spelled.kind);
    }
  }
  if (kinds.length > 0)
    return {
      ok: true,
      kinds: unique(kinds),
      from: `the ${key === 'hooks' ? 'hooks block' : key}’s \`${lists.map((l) => l.key).join('` and `')}\``,
    };
  for (const holder of holders) {
    for (const group of GROUPS) {
      const groupLists = mapAt(holder, group);
      if (groupLists == null) continue;
      const custom = pairOf(groupLists, 'custom');
      if (custom != null && isSeq(custom.value) && (custom.value as YAMLSeq).items.length > 0)
        return {
          ok: false,
          path: [...path, 'managedResources'],
          node: pairOf(block, 'function')?.key ?? pairOf(block, 'location')?.key,
          message: `ork migrate cannot tell the group and plural of the entry's \`${group}.custom\` children, which ${fn} may return; ${fillIn(fn, key)}`,
        };
      for (const info of RESOURCE_KINDS) {
        const list = pairOf(groupLists, info.listKey)?.value;
        if (info.plural != null && isSeq(list) && (list as YAMLSeq).items.length > 0)
          kinds.push(managed(info));
      }
    }
  }
  if (kinds.length > 0) return { ok: true, kinds: unique(kinds), from: 'the entry’s declared children' };
  const written = lists[0]?.pair;
  return {
    ok: false,
    path: [...path, written == null ? 'function' : (lists[0]?.key ?? 'managedResources')],
    node: written?.key ?? pairOf(block, 'function')?.key ?? pairOf(block, 'location')?.key,
    message: `ork migrate cannot tell which kinds ${fn} returns (\`managedResources\` of the module reconciler): the ${key} declares no \`managedResources\`${holders.length > 0 ? ' and the entry no children' : ''}; ${fillIn(fn, key)}`,
  };
}
