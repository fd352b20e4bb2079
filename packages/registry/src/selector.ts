import { OrkestraLabel } from '@orkestra/types';
import type { Fields } from './fields.js';
import type { ResolveHints } from './kind-module.js';
import { shortenLabelValue } from './label-value.js';
import type { Owner } from './owner.js';

/** workloadSelector is the selector of a Deployment/StatefulSet: the owner's UID plus the child's name. */
export function workloadSelector(owner: Owner, childLabel: string): Record<string, string> {
  return { [OrkestraLabel.OwnerUid]: shortenLabelValue(owner.uid), [OrkestraLabel.Child]: childLabel };
}

/**
 * podSelectorFor is the selector of a Service or PDB (docs/reference/katalog.md §7.4): the owner's UID, the
 * `child` label of `workload` (or of the CR's single workload), plus the entry's `selector`.
 */
export function podSelectorFor(fields: Fields, owner: Owner, hints: ResolveHints): Record<string, string> {
  const workload = fields.str('workload') ?? hints.defaultWorkload?.name;
  return {
    ...(fields.strMap('selector') ?? {}),
    [OrkestraLabel.OwnerUid]: shortenLabelValue(owner.uid),
    ...(workload == null || workload === '' ? {} : { [OrkestraLabel.Child]: shortenLabelValue(workload) }),
  };
}
