import { createTemplateEngine } from '@orkestra/template';
import { describe, expect, it } from 'vitest';
import { requeueDelay } from './requeue.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const engine = createTemplateEngine({ clock: { now: () => now } });
const conditions = {
  renderTemplate: (source: string, context: Readonly<Record<string, unknown>>) =>
    engine.renderTemplate(source, context),
  now: () => new Date(now),
};
const rule = (after: string, when: unknown[] = []) => ({ after, when, anyOf: [] }) as never;

describe('requeueDelay (docs/reference/katalog.md §20.2)', () => {
  it('a duration', () => {
    expect(requeueDelay([rule('2s')], {}, conditions)).toBe(2000);
  });

  it('a template, with timeUntil over the injected clock', () => {
    const context = { status: { notAfter: '2026-01-01T13:30:00Z' }, spec: {} };
    expect(requeueDelay([rule('{{ timeUntil .status.notAfter }}')], context, conditions)).toBe(5_400_000);
    expect(requeueDelay([rule('{{ .spec.every | default "45s" }}')], context, conditions)).toBe(45_000);
  });

  it('the first rule whose gate passes applies', () => {
    const rules = [
      rule('1m', [{ field: 'status.phase', operator: 'equals', value: 'Issued', negate: false }]),
      rule('10m'),
    ];
    expect(requeueDelay(rules, { status: { phase: 'Issued' } }, conditions)).toBe(60_000);
    expect(requeueDelay(rules, { status: { phase: 'Pending' } }, conditions)).toBe(600_000);
  });

  it('0s, empty, not a duration, a past time, or no rule: no timed re-queue', () => {
    const past = { status: { notAfter: '2020-01-01T00:00:00Z' } };
    expect(requeueDelay([rule('{{ timeUntil .status.notAfter }}')], past, conditions)).toBeUndefined();
    expect(requeueDelay([rule('{{ .spec.none }}')], { spec: {} }, conditions)).toBeUndefined();
    expect(requeueDelay([rule('{{ "soon" }}')], {}, conditions)).toBeUndefined();
    expect(requeueDelay(undefined, {}, conditions)).toBeUndefined();
  });
});
