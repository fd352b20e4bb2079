/**
 * The human-readable `ork simulate` report: one block per step.
 */
import type { StatusChange, StepReport } from './simulator.js';

const value = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));

function change(c: StatusChange): string {
  if (c.before === undefined) return `+ ${c.path}: ${value(c.after)}`;
  if (c.after === undefined) return `- ${c.path} (was ${value(c.before)})`;
  return `~ ${c.path}: ${value(c.before)} -> ${value(c.after)}`;
}

/**
 * formatStepReport renders one step: its action and CR, the creates, applies and prunes (or "no
 * writes"), the Ready condition, the changed status leaves, the deletion order, the team
 * notifications it would send (team, channels, subject and message; nothing is sent) and notes. The
 * expectation summary line is added by the caller.
 */
export function formatStepReport(report: StepReport): string {
  const lines = [`step ${report.step.number}: ${report.step.name} [${report.action}]`];
  const add = (text: string): void => {
    lines.push(`  ${text}`);
  };
  if (report.cr != null) add(`cr: ${report.cr} (generation ${String(report.generation)})`);
  if (report.deletionOrder != null) {
    add('deletion order:');
    report.deletionOrder.forEach((entry, i) => {
      add(`  ${i + 1}. ${entry}`);
    });
    if (report.deletionOrder.length === 0) add('  (nothing: the CR is removed at once)');
    if (report.finalizers == null) add('the CR is gone');
    else {
      // A deletion step failed (ADR 0116): the CR stays until the runtime's retry gets through.
      add(
        `the CR stays: finalizer${report.finalizers.length === 1 ? '' : 's'} ${report.finalizers.join(', ')} kept`,
      );
      if (report.ready != null) {
        const { status, reason, message } = report.ready;
        add(`ready: ${status} ${reason}${message === '' ? '' : `: ${message}`}`);
      }
      add(`children: ${report.children.length === 0 ? '(none)' : report.children.join(', ')}`);
    }
  } else if (report.reconciled) {
    const writes: [string, readonly string[]][] = [
      ['create', report.creates],
      ['apply', report.applies],
      ['prune', report.prunes],
    ];
    if (writes.every(([, list]) => list.length === 0)) add('no writes');
    for (const [label, list] of writes) if (list.length > 0) add(`${label}: ${list.join(', ')}`);
    if (report.ready != null) {
      const { status, reason, message } = report.ready;
      add(`ready: ${status} ${reason}${message === '' ? '' : `: ${message}`}`);
    }
    if (report.warning != null) add(`warning: ${report.warning}`);
    add(`children: ${report.children.length === 0 ? '(none)' : report.children.join(', ')}`);
    if (report.statusChanges.length === 0) add('status: unchanged');
    else {
      add('status:');
      for (const c of report.statusChanges) add(`  ${change(c)}`);
    }
  }
  if (report.rollout != null) {
    const r = report.rollout;
    const span = r.stable === r.target ? r.target : `${r.stable} -> ${r.target}`;
    add(
      `rollout: ${r.phase}${r.paused ? ' (paused)' : ''} step ${r.step} ${span}${r.message === '' ? '' : `: ${r.message}`}`,
    );
  }
  for (const cr of report.crs) {
    const ready = cr.ready == null ? 'no Ready' : `Ready=${cr.ready.status} ${cr.ready.reason}`;
    const children = cr.children.length === 0 ? '(none)' : cr.children.join(', ');
    add(`cr ${cr.name}: revision ${cr.revision ?? '(none)'}, ${ready}, children: ${children}`);
  }
  for (const n of report.notifications) {
    const channels = [
      ...(n.email.length > 0 ? [`email ${n.email.join(', ')}`] : []),
      ...(n.webhook ? [`webhook${n.slack.length > 0 ? ` ${n.slack.join(', ')}` : ''}`] : []),
      ...n.skipped.map((why) => `skipped ${why}`),
    ];
    add(`notify ${n.team} (${channels.length === 0 ? 'no channel' : channels.join('; ')}): ${n.subject}`);
    add(`  ${n.text.split('\n').join('\n    ')}`);
  }
  for (const note of report.notes) add(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}
