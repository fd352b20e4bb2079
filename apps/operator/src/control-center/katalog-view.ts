/**
 * The Katalog view of the Control Center API (docs/reference/runtime.md §23.2): entries, kinds,
 * the resource graph (kinds by group and wave), hooks and providers. Built from the loaded
 * Katalog and the runtime's in-memory state only; templates and provider configuration are not
 * sent (they may name secrets).
 */
import { hookSummary } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { RESOURCE_KINDS } from '@orkestra/types';
import type { Katalog, Lifecycle } from '@orkestra/types';

/** GraphNode is one resource list of a group: its kind, wave and how many entries it declares. */
export interface GraphNode {
  readonly id: string;
  readonly group: 'onCreate' | 'onReconcile' | 'onDelete';
  readonly list: string;
  readonly kind: string;
  readonly mode: 'create' | 'apply' | 'delete';
  readonly wave: number;
  readonly count: number;
}

/** EntryView is one CRD entry of a Katalog. */
export interface EntryView {
  readonly name: string;
  readonly apiTypes: {
    readonly group: string;
    readonly version: string;
    readonly kind: string;
    readonly plural: string;
  };
  readonly namespaced: boolean;
  readonly synced: boolean;
  readonly objects: number;
  readonly graph: { readonly nodes: readonly GraphNode[] };
  /**
   * The entry's hooks by hook key, from the hook table (`hookSummary`): declaration names
   * (`cross`, `external`) or whether it is declared (`git`, `docker`); a new hook adds its key.
   */
  readonly hooks: Readonly<Record<string, readonly string[] | boolean>>;
  readonly providers: readonly string[];
  readonly dependsOn: readonly string[];
}

/** KatalogView is `GET /api/v1/katalog`. */
export interface KatalogView {
  readonly operator: string;
  readonly name: string;
  readonly version: string;
  /** The Katalog's `lifecycle` (maturity, deprecation, compatibility; katalog.md §2.5); null when not declared. */
  readonly lifecycle: Lifecycle | null;
  readonly leader: boolean;
  readonly ready: boolean;
  readonly entries: readonly EntryView[];
  /** The Katalog's rollout as the operator last read or wrote it (runtime.md §24); null without revisions. */
  readonly rollout: RolloutView | null;
}

/** RolloutView is the part of the rollout state a viewer sees (its progress, docs/reference/runtime.md §24, on the page of §23). */
export interface RolloutView {
  readonly stable: string;
  readonly target: string;
  readonly phase: string;
  /** 0 is the canary; i ≥ 1 is the i-th wave. */
  readonly step: number;
  readonly paused: boolean;
  readonly message: string;
}

/** rolloutView keeps what a viewer needs of a rollout state (no CR UIDs, no selector internals). */
export function rolloutView(state: RolloutView | undefined): RolloutView | null {
  if (state == null) return null;
  const { stable, target, phase, step, paused, message } = state;
  return { stable, target, phase, step, paused, message };
}

type Box = Katalog['spec']['crds'][string]['operatorBox'];

function groupNodes(box: Box, group: 'onCreate' | 'onReconcile'): GraphNode[] {
  const lists = box[group] as unknown as Record<string, unknown>;
  const nodes: GraphNode[] = [];
  for (const info of RESOURCE_KINDS) {
    const items = lists[info.listKey];
    if (!Array.isArray(items) || items.length === 0) continue;
    nodes.push({
      id: `${group}.${info.listKey}`,
      group,
      list: info.listKey,
      kind: info.kind ?? 'Custom',
      mode: group === 'onCreate' || info.listKey === 'jobs' ? 'create' : 'apply',
      wave: info.wave,
      count: items.length,
    });
  }
  return nodes;
}

function deleteNodes(box: Box): GraphNode[] {
  const onDelete = box.onDelete as unknown as { groups?: readonly Record<string, unknown>[] } | undefined;
  const nodes: GraphNode[] = [];
  (onDelete?.groups ?? []).forEach((group, index) => {
    for (const [list, items] of Object.entries(group)) {
      if (!Array.isArray(items) || items.length === 0) continue;
      nodes.push({
        id: `onDelete.${index}.${list}`,
        group: 'onDelete',
        list,
        kind: RESOURCE_KINDS.find((info) => info.listKey === list)?.kind ?? list,
        mode: 'delete',
        wave: index + 1,
        count: items.length,
      });
    }
  });
  return nodes;
}

/**
 * katalogView describes the running Katalog for the Control Center.
 *
 * @example
 * katalogView({ operator: 'website-operator', katalog, engine, leader: true });
 */
export function katalogView(input: {
  readonly operator: string;
  readonly katalog: Katalog;
  readonly engine: KatalogRuntime;
  readonly leader: boolean;
  readonly rollout?: RolloutView | undefined;
}): KatalogView {
  const { katalog, engine } = input;
  const entries: EntryView[] = [];
  for (const [name, entry] of Object.entries(katalog.spec.crds)) {
    const runtimeEntry = engine.entries.get(name);
    const box = entry.operatorBox;
    const apiTypes = entry.apiTypes as { group: string; version: string; kind: string; plural?: string };
    entries.push({
      name,
      apiTypes: {
        group: apiTypes.group,
        version: apiTypes.version,
        kind: apiTypes.kind,
        plural: runtimeEntry?.controller.crd.apiTypes.plural ?? apiTypes.plural ?? '',
      },
      namespaced: entry.namespaced,
      synced: runtimeEntry?.informer.hasSynced() ?? false,
      objects: runtimeEntry?.cache.size ?? 0,
      graph: {
        nodes: [...groupNodes(box, 'onCreate'), ...groupNodes(box, 'onReconcile'), ...deleteNodes(box)],
      },
      hooks: hookSummary(entry),
      providers: Object.keys(box.providers),
      dependsOn: entry.dependsOn.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))),
    });
  }
  return {
    operator: input.operator,
    name: katalog.metadata.name,
    version: katalog.metadata.version,
    lifecycle: katalog.lifecycle ?? null,
    leader: input.leader,
    ready: engine.isReady(),
    entries,
    rollout: rolloutView(input.rollout),
  };
}
