/**
 * The output of `ork diff` (docs/reference/runtime.md §21.1): a kubectl-diff-like text, one block
 * per CR with one line per child and `-`/`+` lines per field, or the same as JSON. Secret data
 * values never appear: field-diff.ts has already dropped them (`hidden`).
 */
import { stringify } from 'yaml';
import type { ObjectRef } from '@orkestra/registry';
import type { FieldChange } from './field-diff.js';
import type { CrDiff, KatalogDiff } from './katalog-diff.js';
import { formatVersionView } from '../../conversion/version-view.js';

function describe(ref: ObjectRef): string {
  return `${ref.apiVersion} ${ref.kind} ${ref.namespace == null ? '' : `${ref.namespace}/`}${ref.name}`;
}

function value(v: unknown): string {
  return v === undefined ? '' : JSON.stringify(v);
}

const INDENT = '    ';

function fieldLines(fields: readonly FieldChange[]): string[] {
  const out: string[] = [];
  for (const f of fields) {
    if (f.hidden === true) {
      const mark = f.op === 'add' ? '+' : f.op === 'remove' ? '-' : '~';
      out.push(
        `${mark}${INDENT}${f.path}: (${f.op === 'add' ? 'added' : f.op === 'remove' ? 'removed' : 'changed'})`,
      );
      continue;
    }
    if (f.op !== 'add') out.push(`-${INDENT}${f.path}: ${value(f.before)}`);
    if (f.op !== 'remove') out.push(`+${INDENT}${f.path}: ${value(f.after)}`);
  }
  return out;
}

function summary(diff: CrDiff): string {
  const count = (change: string): number => diff.children.filter((c) => c.change === change).length;
  const parts = [`${count('added')} added`, `${count('changed')} changed`, `${count('pruned')} pruned`];
  if (diff.cr.length > 0) parts.push('CR changed');
  parts.push(diff.status.length > 0 ? 'status changed' : 'status unchanged');
  return parts.join(', ');
}

/**
 * formatText renders a diff as text: per CR a header, then its children, its own fields and its
 * status; then one line per CRD with its versions (a change shown `before → after`).
 */
export function formatText(diff: KatalogDiff): string {
  const lines: string[] = [];
  for (const cr of diff.crs) {
    const name = `${cr.ref.kind} ${cr.ref.namespace == null ? '' : `${cr.ref.namespace}/`}${cr.ref.name}`;
    const ready = `Ready=${cr.ready.status}${cr.ready.reason === '' ? '' : ` ${cr.ready.reason}`}`;
    const unchanged = cr.children.length === 0 && cr.status.length === 0 && cr.cr.length === 0;
    lines.push(`${name} (entry ${cr.entry}): ${unchanged ? 'no changes' : summary(cr)}; after: ${ready}`);
    for (const child of cr.children) {
      if (child.change === 'pruned') {
        lines.push(`- ${describe(child.ref)} (pruned)`);
      } else if (child.change === 'added') {
        lines.push(`+ ${describe(child.ref)} (added)`);
        const body = stringify(child.object ?? {}, { lineWidth: 0 })
          .trimEnd()
          .split('\n');
        for (const line of body) lines.push(`+${INDENT}${line}`);
      } else {
        lines.push(`~ ${describe(child.ref)} (changed)`);
        lines.push(...fieldLines(child.fields));
      }
    }
    if (cr.cr.length > 0) {
      lines.push(`~ ${describe(cr.ref)} (the CR itself)`);
      lines.push(...fieldLines(cr.cr));
    }
    if (cr.status.length > 0) {
      lines.push(`~ ${describe(cr.ref)} (status)`);
      lines.push(...fieldLines(cr.status));
    }
  }
  for (const view of diff.versions) lines.push(formatVersionView(view));
  const changed = diff.crs.filter((cr) => cr.children.length + cr.status.length + cr.cr.length > 0).length;
  lines.push(`${diff.crs.length} ${diff.crs.length === 1 ? 'CR' : 'CRs'} compared, ${changed} would change`);
  return `${lines.join('\n')}\n`;
}

/** formatJson renders a diff as one JSON document (2-space indent). */
export function formatJson(diff: KatalogDiff): string {
  return `${JSON.stringify(diff, null, 2)}\n`;
}
