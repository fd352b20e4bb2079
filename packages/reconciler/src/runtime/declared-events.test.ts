import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { EmitEvents } from '@orkestra/types';
import { ManualClock } from '../clock.js';
import { conditionsOptions } from './conditions.js';
import { DeclaredEvents } from './declared-events.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };
const cr: KubeObject = {
  apiVersion: 'demo.example.io/v1',
  kind: 'Gadget',
  metadata: { name: 'g1', namespace: 'team-a', uid: 'u1' },
  spec: { image: 'v2' },
};

function setup(events: unknown, minIntervalMs?: number) {
  const clock = new ManualClock(Date.parse('2026-12-07T10:00:00Z'));
  const engine = createTemplateEngine({ clock });
  const recorded: string[] = [];
  const declared = new DeclaredEvents({
    events: EmitEvents.parse(events),
    recorder: {
      record: (_s, type, reason, message) => (recorded.push(`${type} ${reason}: ${message}`), true),
    },
    conditions: conditionsOptions(engine, clock),
    clock,
    minIntervalMs,
  });
  return { clock, declared, recorded };
}

const context = { metadata: cr.metadata, spec: cr['spec'], status: { phase: 'Running' } };

describe('DeclaredEvents (docs/reference/katalog.md §20.5)', () => {
  it('records each event whose `on` matches the outcome, reason and message rendered over the context', () => {
    const { declared, recorded } = setup({
      synced: {
        type: 'Normal',
        reason: 'Synced',
        message: '{{ .name }} runs {{ .spec.image }}',
        on: ['success'],
      },
      failed: { type: 'Warning', reason: 'Failed', message: 'error: {{ .lastError }}', on: ['failure'] },
      seen: { type: 'Normal', reason: '{{ .status.phase }}', message: 'outcome {{ .outcome }}' },
    });
    expect(declared.after(cr, 'success', context, silent)).toEqual(['synced', 'seen']);
    expect(recorded).toEqual(['Normal Synced: g1 runs v2', 'Normal Running: outcome success']);
    recorded.length = 0;
    expect(declared.after(cr, 'failure', context, silent, 'boom')).toEqual(['failed']);
    expect(recorded).toEqual(['Warning Failed: error: boom']); // `seen` is rate-limited (30 s)
  });

  it('counts consecutive failures per CR for .consecutiveFails and the gate; a success resets the count', () => {
    const { clock, declared, recorded } = setup(
      {
        degraded: {
          type: 'Warning',
          reason: 'Degraded',
          message: '{{ .name }} failed {{ .consecutiveFails }} times',
          on: ['failure'],
          when: [{ field: '{{ .health.consecutiveFails }}', greaterThan: '2' }],
        },
      },
      0,
    );
    declared.after(cr, 'failure', context, silent, 'x');
    declared.after(cr, 'failure', context, silent, 'x');
    expect(recorded).toEqual([]);
    declared.after(cr, 'failure', context, silent, 'x');
    expect(recorded).toEqual(['Warning Degraded: g1 failed 3 times']);
    declared.after(cr, 'success', context, silent);
    clock.advance(1);
    declared.after(cr, 'failure', context, silent, 'x');
    expect(recorded).toHaveLength(1);
  });

  it('rate-limits each name per CR on the injected clock: at most one every minIntervalMs', () => {
    const { clock, declared, recorded } = setup({
      tick: { type: 'Normal', reason: 'Tick', message: 'n={{ .consecutiveFails }}', on: ['always'] },
    });
    declared.after(cr, 'failure', context, silent);
    clock.advance(29_999);
    declared.after(cr, 'failure', context, silent);
    expect(recorded).toEqual(['Normal Tick: n=1']);
    clock.advance(1);
    declared.after(cr, 'failure', context, silent);
    expect(recorded).toEqual(['Normal Tick: n=1', 'Normal Tick: n=3']);
    const other = { ...cr, metadata: { ...cr.metadata, name: 'g2', uid: 'u2' } };
    declared.after(other, 'failure', context, silent);
    expect(recorded).toHaveLength(3); // another CR has its own limit
  });

  it('skips an event whose template fails, logging it, and records the others', () => {
    const { declared, recorded } = setup({
      bad: { type: 'Normal', reason: 'Bad', message: '{{ .spec.image | nosuchfunction }}' },
      good: { type: 'Normal', reason: 'Good', message: 'ok' },
    });
    const warned: string[] = [];
    const logger = { ...silent, warn: (_f: unknown, message: string) => void warned.push(message) };
    expect(declared.after(cr, 'success', context, logger)).toEqual(['good']);
    expect(recorded).toEqual(['Normal Good: ok']);
    expect(warned).toEqual(['declared event did not render; not recorded']);
  });
});
