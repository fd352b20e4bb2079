/**
 * Load-time checks of child ordering on readiness (ADR 0009): entry `id`s are unique within a CRD
 * entry, every `waitFor` names a known id (not its own), and `waitFor` has no cycle.
 */
import type { PathSegment } from './paths.js';
import { closestMatch } from './suggest.js';

/** WaitForEntry is one resource entry as the check sees it: where it is, its id and what it waits for. */
export interface WaitForEntry {
  /** Path of the entry, e.g. `['spec','crds','shop','operatorBox','onReconcile','jobs',0]`. */
  readonly path: readonly PathSegment[];
  readonly id?: string | undefined;
  readonly waitFor?: readonly string[] | undefined;
}

/** WaitForIssue is a problem at a path (the loader turns it into a `file:line:col` issue). */
export interface WaitForIssue {
  readonly path: readonly PathSegment[];
  readonly message: string;
}

/**
 * checkWaitFor returns the ordering problems of one CRD entry's resource entries: duplicate ids,
 * unknown or self references (with a did-you-mean), and each cycle once (`waitFor cycle: a → b → a`).
 */
export function checkWaitFor(entries: readonly WaitForEntry[]): WaitForIssue[] {
  const issues: WaitForIssue[] = [];
  const byId = new Map<string, WaitForEntry>();
  for (const entry of entries) {
    if (entry.id == null) continue;
    if (byId.has(entry.id))
      issues.push({ path: [...entry.path, 'id'], message: `duplicate entry id ${entry.id}` });
    else byId.set(entry.id, entry);
  }
  for (const entry of entries) {
    (entry.waitFor ?? []).forEach((ref, i) => {
      const path = [...entry.path, 'waitFor', i];
      if (ref === entry.id) issues.push({ path, message: `waitFor names the entry itself (${ref})` });
      else if (!byId.has(ref)) {
        const suggestion = closestMatch(ref, [...byId.keys()]);
        issues.push({
          path,
          message: `waitFor names unknown entry id ${ref}${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`,
        });
      }
    });
  }
  const reported = new Set<string>();
  const visit = (id: string, stack: readonly string[]): void => {
    const at = stack.indexOf(id);
    if (at >= 0) {
      const cycle = [...stack.slice(at), id];
      const key = [...cycle.slice(0, -1)].sort().join(',');
      if (reported.has(key)) return;
      reported.add(key);
      const start = byId.get(cycle[0] ?? id);
      const index = start?.waitFor?.indexOf(cycle[1] ?? id) ?? 0;
      issues.push({
        path: [...(start?.path ?? []), 'waitFor', index],
        message: `waitFor cycle: ${cycle.join(' → ')}`,
      });
      return;
    }
    if (stack.length > byId.size) return;
    for (const next of byId.get(id)?.waitFor ?? [])
      if (next !== id && byId.has(next)) visit(next, [...stack, id]);
  };
  for (const id of byId.keys()) visit(id, []);
  return issues;
}
