/**
 * `status.inventory` (docs/reference/katalog.md §13.1): every child managed for a CR, used for pruning and
 * deletion. Helpers here keep it in one deterministic order, so an unchanged inventory never
 * causes a status write.
 */

/** InventoryMode is how a child is written: `create` (onCreate, create-if-absent) or `apply` (onReconcile). */
export type InventoryMode = 'create' | 'apply';

/** InventoryItem is one child in `status.inventory`. */
export interface InventoryItem {
  readonly apiVersion: string;
  readonly kind: string;
  /** Absent for cluster-scoped children. */
  readonly namespace?: string;
  readonly name: string;
  readonly mode: InventoryMode;
  /** Where the entry is declared, e.g. `onReconcile.deployments[0]`. */
  readonly source: string;
  /** Present (and false) only when the entry says `prune: false`. */
  readonly prune?: false;
  /** Present (and true) only for finished Jobs. */
  readonly completed?: true;
  /** The child's readiness at the last status write (docs/adr/0009-synced-ready.md); absent when not computed. */
  readonly readiness?: InventoryReadiness;
}

/** InventoryReadiness is a child's readiness as the inventory records it (docs/reference/runtime.md §7). */
export interface InventoryReadiness {
  /** kstatus state: `Current`, `InProgress`, `Failed`, `NotFound`, `Terminating`, or `Waiting` (held back by `waitFor`). */
  readonly state: string;
  /** Why, e.g. `1/2 replicas available`; absent when empty. */
  readonly message?: string;
  /** RFC 3339: when the child entered this state. */
  readonly since: string;
}

function normalizeReadiness(value: InventoryReadiness): InventoryReadiness {
  return {
    state: value.state,
    ...(value.message == null || value.message === '' ? {} : { message: value.message }),
    since: value.since,
  };
}

function parseReadiness(value: unknown): InventoryReadiness | undefined {
  if (value == null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r['state'] !== 'string' || r['state'] === '' || typeof r['since'] !== 'string') return undefined;
  return normalizeReadiness({
    state: r['state'],
    since: r['since'],
    ...(typeof r['message'] === 'string' ? { message: r['message'] } : {}),
  });
}

/** inventoryGroup is the API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
function inventoryGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * inventoryKey identifies the object an item stands for: API group, kind, namespace and name. The
 * version is left out, so `apps/v1` and `apps/v1beta2` name the same object.
 */
export function inventoryKey(
  item: Pick<InventoryItem, 'apiVersion' | 'kind' | 'namespace' | 'name'>,
): string {
  return JSON.stringify([inventoryGroup(item.apiVersion), item.kind, item.namespace ?? '', item.name]);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** compareInventoryItems orders items by apiVersion, kind, namespace (cluster-scoped first), then name, by code point. */
export function compareInventoryItems(a: InventoryItem, b: InventoryItem): number {
  return (
    compareStrings(a.apiVersion, b.apiVersion) ||
    compareStrings(a.kind, b.kind) ||
    compareStrings(a.namespace ?? '', b.namespace ?? '') ||
    compareStrings(a.name, b.name)
  );
}

/**
 * normalizeInventoryItem returns an item in canonical form: keys in a fixed order, `namespace`
 * left out when empty, `prune` only when false, `completed` only when true.
 */
export function normalizeInventoryItem(item: InventoryItem): InventoryItem {
  return {
    apiVersion: item.apiVersion,
    kind: item.kind,
    ...(item.namespace == null || item.namespace === '' ? {} : { namespace: item.namespace }),
    name: item.name,
    mode: item.mode,
    source: item.source,
    ...(item.prune === false ? { prune: false as const } : {}),
    ...(item.completed === true ? { completed: true as const } : {}),
    ...(item.readiness == null ? {} : { readiness: normalizeReadiness(item.readiness) }),
  };
}

/**
 * sortInventory returns the items normalized, without duplicates (for the same object the later
 * item wins) and in {@link compareInventoryItems} order.
 */
export function sortInventory(items: readonly InventoryItem[]): InventoryItem[] {
  const byKey = new Map<string, InventoryItem>();
  for (const item of items) byKey.set(inventoryKey(item), normalizeInventoryItem(item));
  return [...byKey.values()].sort(compareInventoryItems);
}

/**
 * mergeInventory is the sorted union of two inventories; for an object in both, the item from
 * `updates` wins. Use it to keep recorded children that this reconcile could not prune.
 *
 * @example
 * mergeInventory(desired, notYetPruned);
 */
export function mergeInventory(
  base: readonly InventoryItem[],
  updates: readonly InventoryItem[],
): InventoryItem[] {
  return sortInventory([...base, ...updates]);
}

/** removeFromInventory returns the sorted items whose objects are not among `removed`. */
export function removeFromInventory(
  items: readonly InventoryItem[],
  removed: readonly Pick<InventoryItem, 'apiVersion' | 'kind' | 'namespace' | 'name'>[],
): InventoryItem[] {
  const gone = new Set(removed.map(inventoryKey));
  return sortInventory(items.filter((item) => !gone.has(inventoryKey(item))));
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * parseInventory reads `status.inventory` from a cached CR, which anyone with status access could
 * have edited: items without a non-empty apiVersion, kind, name and source or with an unknown mode
 * are skipped. The result is sorted.
 */
export function parseInventory(value: unknown): InventoryItem[] {
  if (!Array.isArray(value)) return [];
  const items: InventoryItem[] = [];
  for (const raw of value as unknown[]) {
    if (raw == null || typeof raw !== 'object' || Array.isArray(raw)) continue;
    const r = raw as Record<string, unknown>;
    const { apiVersion, kind, name, source, mode, namespace } = r;
    if (!isNonEmptyString(apiVersion) || !isNonEmptyString(kind) || !isNonEmptyString(name)) continue;
    if (!isNonEmptyString(source) || (mode !== 'create' && mode !== 'apply')) continue;
    if (namespace != null && typeof namespace !== 'string') continue;
    const readiness = parseReadiness(r['readiness']);
    items.push({
      apiVersion,
      kind,
      ...(isNonEmptyString(namespace) ? { namespace } : {}),
      name,
      mode,
      source,
      ...(r['prune'] === false ? { prune: false as const } : {}),
      ...(r['completed'] === true ? { completed: true as const } : {}),
      ...(readiness == null ? {} : { readiness }),
    });
  }
  return sortInventory(items);
}
