/**
 * The desired-set stage (docs/reference/runtime.md §7 step 13, §9.1): the children this CR should
 * have, built from the entry's groups and the full template context (desired-set.ts), the children
 * held back by `waitFor` (readiness/wait-for.ts, docs/reference/runtime.md §7) and the first child that names a
 * restricted namespace, which fails the reconcile after the writes.
 */
import { NotFoundError } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import { ConditionReason, OrkestraAnnotation, TerminalError, copyKindOf } from '@orkestra/types';
import { pending } from '../../hooks/hook-unit.js';
import type { HookPending } from '../../hooks/hook-unit.js';
import { holdBack } from '../../readiness/wait-for.js';
import { formatReasonMessage } from '../../reason-message.js';
import { buildDesiredSet } from '../desired-set.js';
import type { DesiredChild, DesiredSet } from '../desired-set.js';
import type { InventoryRecord } from '../status-writer.js';
import { sameRef } from './inventory.js';
import { ownerOf } from './run-state.js';
import type { StageServices } from './run-state.js';

/** desiredSet builds the desired set of one CR (the normalized, mutated view) from the full context. */
export function desiredSet(services: StageServices, view: KubeObject, context: TemplateContext): DesiredSet {
  return buildDesiredSet({
    crd: services.crd,
    owner: ownerOf(services.crd, view),
    context,
    conditions: services.conditions,
    customScope: services.customScope,
    blockedReason: (namespace) =>
      services.guard.isBlocked(namespace) ? services.guard.reason(namespace) : undefined,
  });
}

/** How long a CR waits before the source of a `copyFrom` is read again. */
const COPY_SOURCE_WAIT_MS = 5000;

/**
 * fillCopies fills the Secrets and ConfigMaps with `copyFrom` from their sources (an object of the
 * child's own kind), read with one `GET` per source per reconcile (docs/reference/katalog.md §7.2,
 * runtime.md §14.1, ADR 0017 and 0115). A missing source is a pending outcome (`SourceSecretMissing`,
 * `SourceConfigMapMissing`), so existing copies are neither pruned nor emptied. Values never reach
 * logs or status. A source the CR chose in another namespace (`grantTo`) is copied only when granted
 * (ADR 0048): its namespace is in the Katalog's `allowedSourceNamespaces`, or its copy-to-namespaces
 * annotation lists every namespace of `grantTo`; else the CR waits with `CopyNotGranted`, which
 * names the grant to add and is the same whether or not the source exists.
 */
export async function fillCopies(
  services: Pick<StageServices, 'client'> & {
    readonly crd: Pick<StageServices['crd'], 'allowedSourceNamespaces'>;
  },
  desired: DesiredSet,
): Promise<DesiredSet | HookPending> {
  const all = [...desired.groups.onCreate, ...desired.groups.onReconcile];
  if (!all.some((c) => c.copyFrom != null)) return desired;
  const sources = new Map<string, Promise<KubeObject | undefined>>();
  const read = (kind: string, namespace: string, name: string): Promise<KubeObject | undefined> => {
    const key = `${kind}/${namespace}/${name}`;
    let source = sources.get(key);
    if (source == null) {
      source = services.client.get({ apiVersion: 'v1', kind, namespace, name }).catch((error: unknown) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      });
      sources.set(key, source);
    }
    return source;
  };
  let waiting: HookPending | undefined;
  const fill = async (child: DesiredChild): Promise<DesiredChild> => {
    const from = child.copyFrom;
    const copy = copyKindOf(child.ref.kind);
    if (from == null || copy == null) return child;
    const kind = copy.kind;
    const where = `${kind} ${child.ref.namespace ?? ''}/${child.ref.name}`;
    const source = from.name === '' ? undefined : await read(kind, from.namespace, from.name);
    const grantTo = from.grantTo;
    if (
      grantTo != null &&
      from.name !== '' &&
      !services.crd.allowedSourceNamespaces.includes(from.namespace) &&
      !grants(source, grantTo)
    ) {
      waiting ??= pending(
        ConditionReason.CopyNotGranted,
        `${where} copies ${kind} ${from.namespace}/${from.name}, which the CR chose and which does not grant it: annotate that ${kind} ${OrkestraAnnotation.CopyTo}: "${grantTo.join(',')}", or list ${from.namespace} in the Katalog's spec.allowedSourceNamespaces (${child.entry.katalogPath})`,
        COPY_SOURCE_WAIT_MS,
      );
      return child;
    }
    if (source == null) {
      waiting ??= pending(
        copy.missing,
        from.name === ''
          ? `${where}: copyFrom.name renders empty (${child.entry.katalogPath})`
          : `${where} copies ${kind} ${from.namespace}/${from.name}, which does not exist yet`,
        COPY_SOURCE_WAIT_MS,
      );
      return child;
    }
    return { ...child, manifest: from.withCopy(source) };
  };
  const onCreate = await Promise.all(desired.groups.onCreate.map(fill));
  const onReconcile = await Promise.all(desired.groups.onReconcile.map(fill));
  return waiting ?? { ...desired, groups: { onCreate, onReconcile } };
}

/** grants tells whether a copy source's copy-to-namespaces annotation lists every namespace of `to`. */
function grants(source: KubeObject | undefined, to: readonly string[]): boolean {
  const value = source?.metadata.annotations?.[OrkestraAnnotation.CopyTo];
  if (typeof value !== 'string') return false;
  const listed = new Set(
    value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  return to.every((namespace) => listed.has(namespace));
}

/** HeldBack is the desired set split by `waitFor`: the children to write now, per group, and those that wait. */
export interface HeldBack {
  readonly onCreate: readonly DesiredChild[];
  readonly onReconcile: readonly DesiredChild[];
  /** Child id → the ids it waits for. */
  readonly waiting: ReadonlyMap<string, readonly string[]>;
}

/** heldBack applies `waitFor`: a child waits until the children it names are ready (or completed Jobs of the inventory). */
export function heldBack(
  services: Pick<StageServices, 'children' | 'conditions'>,
  desired: DesiredSet,
  previous: readonly InventoryRecord[],
): HeldBack {
  const held = holdBack(
    [...desired.groups.onCreate, ...desired.groups.onReconcile],
    (child) => services.children.get(child.ref),
    {
      conditions: services.conditions,
      completed: (child) => previous.some((p) => p.completed === true && sameRef(p, child.ref)),
    },
  );
  const now = (group: readonly DesiredChild[]): DesiredChild[] =>
    group.filter((child) => !held.waiting.has(child.id));
  return {
    onCreate: now(desired.groups.onCreate),
    onReconcile: now(desired.groups.onReconcile),
    waiting: held.waiting,
  };
}

/** blockedError is the terminal NamespaceRestricted error of the first child in a restricted namespace, else undefined. */
export function blockedError(desired: DesiredSet): TerminalError | undefined {
  const first = desired.blocked[0];
  if (first == null) return undefined;
  return new TerminalError(
    formatReasonMessage(first.entry.katalogPath, first.reason, {
      kind: first.ref.kind,
      namespace: first.ref.namespace,
      name: first.ref.name,
    }),
    { code: ConditionReason.NamespaceRestricted, katalogPath: first.entry.katalogPath },
  );
}
