/**
 * formatExplain renders `ork explain` (docs/reference/runtime.md §21): a CR's Synced and Ready conditions, then one
 * line per inventory child — step, child, state, reason, since when — from the readiness the
 * runtime recorded on `status.inventory`.
 */

/** ExplainedCr is the part of a live CR that `ork explain` reads. */
export interface ExplainedCr {
  readonly kind: string;
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly status?: {
    /** docs/reference/runtime.md §24: the Katalog revision of the last reconcile. */
    readonly katalogRevision?: string;
    readonly conditions?: readonly {
      readonly type: string;
      readonly status: string;
      readonly reason?: string;
      readonly message?: string;
      readonly lastTransitionTime?: string;
    }[];
    readonly inventory?: readonly {
      readonly kind: string;
      readonly name: string;
      readonly namespace?: string;
      readonly source: string;
      readonly readiness?: { readonly state: string; readonly message?: string; readonly since: string };
    }[];
  };
}

/** ago renders the time between an RFC 3339 instant and now: `45s`, `3m`, `2h`, `4d`. */
export function ago(since: string, now: Date): string {
  const ms = now.getTime() - new Date(since).getTime();
  if (!Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * formatExplain returns the lines of `ork explain` for a CR: a header with Ready and Synced
 * (status, reason, message, since), then a table of children in step order (onCreate before
 * onReconcile, then declaration order). A child without recorded readiness shows `-`.
 *
 * @example
 * formatExplain(cr, new Date()).join('\n');
 */
export function formatExplain(cr: ExplainedCr, now: Date): string[] {
  const where = cr.metadata.namespace == null ? '' : `${cr.metadata.namespace}/`;
  const lines = [`${cr.kind} ${where}${cr.metadata.name ?? ''}`];
  for (const type of ['Ready', 'Synced']) {
    const c = cr.status?.conditions?.find((x) => x.type === type);
    if (c == null) {
      lines.push(`  ${type}: unknown (not reconciled yet)`);
      continue;
    }
    const since = c.lastTransitionTime == null ? '' : ` for ${ago(c.lastTransitionTime, now)}`;
    const message = c.message == null || c.message === '' ? '' : `: ${c.message}`;
    lines.push(`  ${type}: ${c.status} ${c.reason ?? ''}${message}${since}`);
  }
  // the revision the CR was last reconciled with, and a pin (docs/reference/runtime.md §24).
  const revision = cr.status?.katalogRevision;
  const pin = cr.metadata.annotations?.['orkestra.konductor.io/revision'];
  if (revision != null || pin != null)
    lines.push(`  Revision: ${revision ?? 'not recorded'}${pin == null ? '' : ` (pinned to ${pin})`}`);
  // Sharded operators (docs/reference/runtime.md §25): the replica that owns the CR, and a hand-off under way.
  const shard = cr.metadata.labels?.['orkestra.konductor.io/shard'];
  const draining = cr.metadata.labels?.['orkestra.konductor.io/drain'] != null;
  if (shard != null || draining)
    lines.push(`  Shard: ${shard ?? 'unassigned'}${draining ? ' (handing over to another shard)' : ''}`);
  const children = [...(cr.status?.inventory ?? [])].sort((a, b) => {
    const group = (s: string): number => (s.startsWith('onCreate.') ? 0 : 1);
    return group(a.source) - group(b.source) || a.source.localeCompare(b.source, 'en', { numeric: true });
  });
  if (children.length === 0) {
    lines.push('  no children recorded');
    return lines;
  }
  const rows: string[][] = [['STEP', 'CHILD', 'STATE', 'SINCE', 'REASON']];
  for (const child of children) {
    const r = child.readiness;
    rows.push([
      child.source,
      `${child.kind} ${child.name}`,
      r?.state ?? '-',
      r == null ? '-' : ago(r.since, now),
      r?.message ?? '',
    ]);
  }
  lines.push('', ...table(rows).map((l) => `  ${l}`));
  return lines;
}
