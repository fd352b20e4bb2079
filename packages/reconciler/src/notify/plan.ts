/**
 * Which team notifications a reconcile triggers (docs/reference/katalog.md §15.4): every condition
 * of the entry that carries `notify:` is evaluated on its own against the reconcile's context; for
 * each passing one and each declared team the interval gate decides, and an admitted message is
 * rendered with the channels it would go to. Pure but for the gate: the runtime's notifier queues
 * what this returns, and `ork simulate` reports it without sending anything.
 */
import type {
  Condition,
  EvaluateConditionsOptions,
  Notification,
  Notify,
  RolloutNotify,
  RolloutOutcome,
} from '@orkestra/types';
import { NOTIFY_DEFAULT_INTERVAL, evaluateCondition, parseDuration } from '@orkestra/types';
import type { IntervalGate } from './gate.js';
import { conditionLabel, renderNotification, renderOrFallback } from './message.js';

/** DueNotification is one team's message that passed the gate, and where it would go. */
export interface DueNotification {
  readonly team: string;
  /** What triggered it: the condition, as `field operator value`. */
  readonly trigger: string;
  readonly subject: string;
  readonly text: string;
  /** Email recipients; empty when the team has none or `notification.smtp` is not set. */
  readonly email: readonly string[];
  /** Whether a webhook (the team's, else `notification.slack.webhook`) is posted to. */
  readonly webhook: boolean;
  /** The team's Slack channel names (informational in the webhook payload). */
  readonly slack: readonly string[];
  /** Channels the team lists but cannot use, and why (upstream skips them too). */
  readonly skipped: readonly string[];
}

/** NotifyingCondition is a normalized condition that carries `notify:`. */
export type NotifyingCondition = Condition & { readonly notify: Notify };

/** PlanOptions are what planning one entry's notifications needs. */
export interface PlanOptions {
  readonly katalogName: string;
  readonly notification: Notification;
  readonly gate: IntervalGate;
  readonly conditions: EvaluateConditionsOptions;
  readonly render: (template: string, context: Readonly<Record<string, unknown>>) => string;
}

/**
 * planNotifications returns the messages one reconcile of entry `entry` (of kind `kind`) triggers,
 * recording each admitted one in the gate. A team named by `notify:` but not declared is skipped.
 */
export function planNotifications(
  options: PlanOptions,
  entry: { readonly name: string; readonly kind: string },
  conditions: readonly NotifyingCondition[],
  context: Readonly<Record<string, unknown>>,
): DueNotification[] {
  const { notification } = options;
  const due: DueNotification[] = [];
  for (const condition of conditions) {
    if (!evaluateCondition(condition, context, options.conditions).passed) continue;
    for (const team of condition.notify.teams) {
      const declared = notification.teams[team];
      // Upstream: a team the Katalog does not declare is skipped, and the Katalog stays valid.
      if (declared == null) continue;
      const interval = parseDuration(
        declared.interval ?? notification.defaults?.interval ?? NOTIFY_DEFAULT_INTERVAL,
      );
      const trigger = conditionLabel(condition);
      const key = `${options.katalogName}|${entry.name}|${trigger}|${team}`;
      if (!options.gate.admit(key, interval)) continue;
      const message = renderNotification({
        notification,
        team,
        condition,
        context,
        render: options.render,
        kind: entry.kind,
      });
      due.push({ team, trigger, ...message, ...channelsOf(notification, team) });
    }
  }
  return due;
}

/** channelsOf is where a declared team's message goes, and which of its channels are skipped. */
function channelsOf(
  notification: Notification,
  team: string,
): Pick<DueNotification, 'email' | 'webhook' | 'slack' | 'skipped'> {
  const declared = notification.teams[team];
  const skipped: string[] = [];
  const recipients = declared?.email ?? [];
  if (recipients.length > 0 && notification.smtp == null) skipped.push('email: notification.smtp is not set');
  const webhook = declared?.webhook != null || notification.slack != null;
  const slack = declared?.slack ?? [];
  if (!webhook && slack.length > 0) skipped.push('webhook: a webhook secretRef is not set');
  return { email: notification.smtp == null ? [] : recipients, webhook, slack, skipped };
}

/** RolloutOutcomeEvent is what a rollout tick reports (a RolloutEvent of the rollout controller). */
export interface RolloutOutcomeEvent {
  readonly reason: string;
  readonly message: string;
}

/** The outcome word of each rollout Event reason (`spec.rollout.notify.on`). */
const OUTCOME_OF: Readonly<Record<string, RolloutOutcome>> = {
  RolloutStep: 'step',
  RolloutComplete: 'complete',
  RolloutGateFailed: 'gateFailed',
  RolledBack: 'rolledBack',
};

/**
 * planRolloutNotifications returns the messages one rollout tick triggers (docs/reference/katalog.md
 * §2.3, ADR 0066): for each outcome of the tick that `notify.on` names, one message per declared
 * team (the CRs sent back by one tick are one message), through the interval gate keyed by
 * Katalog, target revision, outcome and team. The message template is `notify.message`, else the
 * team's, else the Katalog's, rendered against `{katalog, rollout: {outcome, message, stable,
 * target, phase, step, crs}}`; a failed template falls back to the default sentence.
 */
export function planRolloutNotifications(
  options: Omit<PlanOptions, 'conditions'>,
  notify: RolloutNotify,
  events: readonly RolloutOutcomeEvent[],
  state: {
    readonly stable: string;
    readonly target: string;
    readonly phase: string;
    readonly step: number;
  },
): DueNotification[] {
  const { notification } = options;
  const due: DueNotification[] = [];
  const byOutcome = new Map<RolloutOutcome, RolloutOutcomeEvent[]>();
  for (const event of events) {
    const outcome = OUTCOME_OF[event.reason];
    if (outcome == null || !notify.on.includes(outcome)) continue;
    byOutcome.set(outcome, [...(byOutcome.get(outcome) ?? []), event]);
  }
  for (const [outcome, list] of byOutcome) {
    const message = list.map((e) => e.message).join('; ');
    const context = {
      katalog: options.katalogName,
      rollout: { outcome, message, ...state, crs: list.length },
    };
    const fallback = `Katalog ${options.katalogName}: rollout ${outcome}: ${message}`;
    for (const team of notify.teams) {
      const declared = notification.teams[team];
      if (declared == null) continue;
      const interval = parseDuration(
        declared.interval ?? notification.defaults?.interval ?? NOTIFY_DEFAULT_INTERVAL,
      );
      const key = `${options.katalogName}|rollout|${state.target}|${outcome}|${team}`;
      if (!options.gate.admit(key, interval)) continue;
      const template = notify.message ?? declared.message ?? notification.message;
      const text = renderOrFallback({ template, context, fallback, render: options.render });
      due.push({
        team,
        trigger: `rollout ${outcome}`,
        subject: `[orkestra] rollout ${outcome}`,
        text,
        ...channelsOf(notification, team),
      });
    }
  }
  return due;
}
