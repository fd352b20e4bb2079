import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from '@orkestra/template';
import type { Notification, RolloutNotify } from '@orkestra/types';
import { IntervalGate } from './gate.js';
import { planRolloutNotifications } from './plan.js';

const engine = createTemplateEngine();
const notification = {
  timeout: '5s',
  teams: { ops: { email: ['ops@example.com'], interval: '10m' }, sre: { slack: ['#sre'] } },
} as unknown as Notification;
const state = { stable: 'abc', target: 'def', phase: 'Failed', step: 1 };
const failed = { reason: 'RolloutGateFailed', message: 'revision def: 1 of 2 CRs not Ready' };

function planner(now: { value: number }) {
  const options = {
    katalogName: 'k',
    notification,
    gate: new IntervalGate({ clock: { now: () => now.value } }),
    render: (template: string, context: Readonly<Record<string, unknown>>) =>
      String(engine.renderTemplate(template, context)),
  };
  return (notify: RolloutNotify, events: readonly { reason: string; message: string }[]) =>
    planRolloutNotifications(options, notify, events, state);
}

describe('planRolloutNotifications (docs/reference/katalog.md §2.3)', () => {
  it('tells each declared team of the outcomes `on` names, once per interval and target revision', () => {
    const now = { value: 0 };
    const plan = planner(now);
    const notify = { teams: ['ops', 'sre', 'ghost'], on: ['gateFailed'] } as const;
    const first = plan(notify, [failed, { reason: 'RolloutStep', message: 'step 1' }]);
    expect(first.map((d) => [d.team, d.trigger, d.subject, d.text])).toEqual([
      [
        'ops',
        'rollout gateFailed',
        '[orkestra] rollout gateFailed',
        `Katalog k: rollout gateFailed: ${failed.message}`,
      ],
      [
        'sre',
        'rollout gateFailed',
        '[orkestra] rollout gateFailed',
        `Katalog k: rollout gateFailed: ${failed.message}`,
      ],
    ]);
    expect(first[0]).toMatchObject({ email: [], skipped: ['email: notification.smtp is not set'] });
    now.value += 11 * 60_000;
    // ops' interval (10m) passed; sre keeps the 15m default.
    expect(plan(notify, [failed]).map((d) => d.team)).toEqual(['ops']);
  });

  it('folds the CRs sent back by one tick into one message, and renders the template over the rollout', () => {
    const plan = planner({ value: 0 });
    const due = plan(
      { teams: ['ops'], on: ['rolledBack'], message: '{{ .rollout.crs }} CRs back to {{ .rollout.stable }}' },
      [
        { reason: 'RolledBack', message: 'web/a' },
        { reason: 'RolledBack', message: 'web/b' },
      ],
    );
    expect(due.map((d) => d.text)).toEqual(['2 CRs back to abc']);
  });

  it('still tells the team when the template fails, saying why', () => {
    const plan = planner({ value: 0 });
    const [due] = plan({ teams: ['ops'], on: ['gateFailed'], message: '{{ nosuchhelper .rollout }}' }, [
      failed,
    ]);
    expect(due?.text).toMatch(
      /^Katalog k: rollout gateFailed: .* \(the message template failed: .*nosuchhelper/,
    );
  });
});
