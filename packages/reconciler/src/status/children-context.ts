/**
 * The `children` key of the status-field template context (docs/reference/katalog.md §13.3): the current state of
 * a CR's children, read from the cache.
 */
import { kindForObject } from '@orkestra/registry';
import { RESOURCE_KINDS, resourceKindInfo } from '@orkestra/types';
import type { ResourceListKey } from '@orkestra/types';
import type { KubeObject } from '../kube-object.js';

/** ChildState is one child of a CR in declaration order: its resource list and its cached object. */
export interface ChildState {
  /** The resource list the entry belongs to, e.g. `deployments` or `custom`. */
  readonly listKey: ResourceListKey;
  /** The cached object; undefined when the child does not exist yet (it is then absent). */
  readonly object: KubeObject | undefined;
  /**
   * Custom entries only: the kind's resource plural from API discovery (e.g. `certificates`), the
   * second key the child appears under. Without it only the lowercase kind is added.
   */
  readonly resourcePlural?: string | undefined;
}

/** ChildrenContext is the `children` template context: singular keys hold objects, plural keys maps from name to object. */
export type ChildrenContext = Record<string, unknown>;

/** BUILT_IN_CHILDREN_KEYS are the singular and plural keys of every resource list, including `custom`/`customs`. */
export const BUILT_IN_CHILDREN_KEYS: ReadonlySet<string> = new Set(
  RESOURCE_KINDS.flatMap((info) => [info.childrenKeys.singular, info.childrenKeys.plural]),
);

/** childForTemplates returns the object as templates see it: without `managedFields`, and Secrets without `data`/`stringData`. */
export function childForTemplates(object: KubeObject): KubeObject {
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  const copy: Record<string, unknown> = { ...object, metadata };
  // The kind's hidden fields (a Secret's data), also for a Secret written through `custom`.
  for (const field of kindForObject(object)?.hiddenFields ?? []) delete copy[field];
  return copy as KubeObject;
}

/**
 * buildChildrenContext builds `children` for status fields (docs/reference/katalog.md §13.3) from a CR's children
 * in declaration order. For each resource list there is a singular key holding the first existing
 * child (`children.deployment`) and a plural key mapping names to objects
 * (`children.deployments.shop-web`). Custom children also appear under their lowercase kind and
 * resource plural (`children.certificate`, `children.certificates`) unless that clashes with a
 * built-in key. For a name seen twice under one plural key the first child wins. Objects lose
 * `managedFields`, Secrets their data; children that do not exist are absent.
 *
 * @example
 * buildChildrenContext([{ listKey: 'deployments', object: cachedDeployment }]);
 * // { deployment: {...}, deployments: { 'shop-web': {...} } }
 */
export function buildChildrenContext(children: readonly ChildState[]): ChildrenContext {
  const context: ChildrenContext = {};
  const add = (
    singular: string | undefined,
    plural: string | undefined,
    name: string,
    object: KubeObject,
  ): void => {
    if (singular != null && !Object.hasOwn(context, singular)) context[singular] = object;
    if (plural == null) return;
    let byName = context[plural] as Record<string, unknown> | undefined;
    if (byName == null) {
      byName = {};
      context[plural] = byName;
    }
    if (!Object.hasOwn(byName, name)) byName[name] = object;
  };

  for (const child of children) {
    if (child.object == null) continue;
    const object = childForTemplates(child.object);
    const name = object.metadata.name ?? '';
    const keys = resourceKindInfo(child.listKey).childrenKeys;
    add(keys.singular, keys.plural, name, object);
    if (child.listKey !== 'custom') continue;
    const kindKey = object.kind.toLowerCase();
    const pluralKey = child.resourcePlural?.toLowerCase();
    add(
      kindKey === '' || BUILT_IN_CHILDREN_KEYS.has(kindKey) ? undefined : kindKey,
      pluralKey == null || pluralKey === '' || BUILT_IN_CHILDREN_KEYS.has(pluralKey) ? undefined : pluralKey,
      name,
      object,
    );
  }
  return context;
}
