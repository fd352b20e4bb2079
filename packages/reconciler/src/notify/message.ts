/**
 * What a team notification says (docs/reference/katalog.md §15.4): the message template is the
 * condition's `notify.message`, else the team's `message`, else `notification.message`, else a
 * sentence naming the CR and the condition; it is rendered against the reconcile's template
 * context. The subject keeps upstream's form, `[orkestra] <field> condition triggered`.
 */
import type { Condition, Notification } from '@orkestra/types';

/** RenderedNotification is one team's message. */
export interface RenderedNotification {
  readonly subject: string;
  readonly text: string;
}

/** conditionLabel names a condition in subjects and in the gate key (`field operator value`). */
export function conditionLabel(condition: Condition): string {
  if ('field' in condition) {
    const value = condition.value === undefined ? '' : ` ${JSON.stringify(condition.value)}`;
    return `${condition.negate ? 'not ' : ''}${condition.field} ${condition.operator}${value}`;
  }
  const { notify: _notify, ...rest } = condition;
  return JSON.stringify(rest);
}

/**
 * renderNotification renders the message of `team` for a passed condition. A template that fails
 * to render is replaced by the default sentence followed by the failure, so a message always goes.
 */
export function renderNotification(options: {
  readonly notification: Notification;
  readonly team: string;
  readonly condition: Condition;
  readonly context: Readonly<Record<string, unknown>>;
  readonly render: (template: string, context: Readonly<Record<string, unknown>>) => string;
  readonly kind: string;
}): RenderedNotification {
  const { notification, team, condition, context } = options;
  const metadata = (context['metadata'] ?? {}) as { name?: string; namespace?: string };
  const object = `${options.kind} ${metadata.namespace == null ? '' : `${metadata.namespace}/`}${metadata.name ?? ''}`;
  const label = conditionLabel(condition);
  const fallback = `${object}: condition ${label} passed`;
  const template = condition.notify?.message ?? notification.teams[team]?.message ?? notification.message;
  const text = renderOrFallback({ template, context, fallback, render: options.render });
  const field = 'field' in condition ? condition.field : 'time';
  return { subject: `[orkestra] ${field} condition triggered`, text };
}

/**
 * renderOrFallback renders `template` against `context`; with no template it is `fallback`, and a
 * template that fails to render gives `fallback` followed by the failure, so a message always goes.
 */
export function renderOrFallback(options: {
  readonly template: string | undefined;
  readonly context: Readonly<Record<string, unknown>>;
  readonly fallback: string;
  readonly render: (template: string, context: Readonly<Record<string, unknown>>) => string;
}): string {
  const { template, context, fallback, render } = options;
  if (template == null) return fallback;
  try {
    return render(template, context);
  } catch (error) {
    return `${fallback} (the message template failed: ${error instanceof Error ? error.message : String(error)})`;
  }
}
