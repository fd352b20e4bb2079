import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from '@orkestra/template';
import type { Condition, Notification } from '@orkestra/types';
import { conditionLabel, renderNotification } from './message.js';

const engine = createTemplateEngine();
const render = (template: string, context: Readonly<Record<string, unknown>>): string =>
  String(engine.renderTemplate(template, context));

const notification = (message?: string, teamMessage?: string): Notification =>
  ({
    timeout: '5s',
    teams: { ops: { ...(teamMessage == null ? {} : { message: teamMessage }) } },
    ...(message == null ? {} : { message }),
  }) as Notification;

const condition = (message?: string): Condition => ({
  field: 'spec.state',
  operator: 'equals',
  value: 'down',
  negate: false,
  notify: { teams: ['ops'], ...(message == null ? {} : { message }) },
});

const context = { metadata: { name: 'web', namespace: 'shop' }, spec: { state: 'down' } };

describe('renderNotification', () => {
  it('renders the condition’s message first, then the team’s, then the Katalog’s', () => {
    const base = { team: 'ops', context, render, kind: 'Website' };
    expect(
      renderNotification({
        ...base,
        notification: notification('k {{ .metadata.name }}', 't {{ .metadata.name }}'),
        condition: condition('c {{ .metadata.name }} is {{ .spec.state }}'),
      }).text,
    ).toBe('c web is down');
    expect(
      renderNotification({
        ...base,
        notification: notification('k', 't {{ .metadata.namespace }}'),
        condition: condition(),
      }).text,
    ).toBe('t shop');
    expect(
      renderNotification({ ...base, notification: notification('k'), condition: condition() }).text,
    ).toBe('k');
  });

  it('says which CR and condition when no message is set, with upstream’s subject', () => {
    const rendered = renderNotification({
      notification: notification(),
      team: 'ops',
      condition: condition(),
      context,
      render,
      kind: 'Website',
    });
    expect(rendered).toEqual({
      subject: '[orkestra] spec.state condition triggered',
      text: 'Website shop/web: condition spec.state equals "down" passed',
    });
    expect(conditionLabel(condition())).toBe('spec.state equals "down"');
  });

  it('still sends when the template fails, saying why', () => {
    const rendered = renderNotification({
      notification: notification(),
      team: 'ops',
      condition: condition('{{ nosuchhelper .spec }}'),
      context,
      render,
      kind: 'Website',
    });
    expect(rendered.text).toMatch(
      /^Website shop\/web: condition .* passed \(the message template failed: .*nosuchhelper/,
    );
  });
});
