/**
 * The desired-set stage (docs/reference/runtime.md §7 step 13, §9.1): the children this CR should
 * have, built from the entry's groups and the full template context (desired-set.ts), the children
 * held back by `waitFor` (readiness/wait-for.ts, issue 18) and the first child that names a
 * restricted namespace, which fails the reconcile after the writes.
 */
import type { KubeObject } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import { ConditionReason, TerminalError } from '@orkestra/types';
import { holdBack } from '../../readiness/wait-for.js'; // issue-18
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
