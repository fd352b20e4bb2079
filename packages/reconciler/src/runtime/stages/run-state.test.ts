import type { KubeObject } from '@orkestra/registry';
import { describe, expect, it } from 'vitest';
import { newRunState, recordChildEvents, requeueDelayMs, takeChildEvents } from './run-state.js';

const cr = { apiVersion: 'x/v1', kind: 'App', metadata: { name: 'a', namespace: 'ns' } } as KubeObject;

function recorded(fill: (state: ReturnType<typeof newRunState>) => void): string[] {
  const events: string[] = [];
  const services = {
    events: {
      normal: (_: unknown, reason: string, message: string) => {
        events.push(`${reason}: ${message}`);
        return true;
      },
    },
  } as unknown as Parameters<typeof recordChildEvents>[0];
  const state = newRunState();
  fill(state);
  recordChildEvents(services, cr, takeChildEvents(state));
  recordChildEvents(services, cr, takeChildEvents(state)); // taken once: a second take has nothing
  return events;
}

describe('takeChildEvents', () => {
  it('makes one Event per reason for all the children a reconcile wrote', () => {
    const events = recorded((state) => {
      state.childChanges.push(
        { reason: 'Created', child: 'Secret ns/a (onReconcile[0])' },
        { reason: 'Updated', child: 'Service ns/a (onReconcile[2])' },
        { reason: 'Created', child: 'ConfigMap ns/a (onReconcile[1])' },
      );
    });
    expect(events).toEqual([
      'Created: 2 children were created: Secret ns/a (onReconcile[0]), ConfigMap ns/a (onReconcile[1])',
      'Updated: Service ns/a (onReconcile[2]) was updated',
    ]);
  });

  it('makes nothing when no child was written', () => {
    expect(recorded(() => undefined)).toEqual([]);
  });
});

describe('requeueDelayMs', () => {
  it('is the earliest due time, and 1 ms (not 0, which means no requeue) when that time has passed', () => {
    expect(requeueDelayMs([], 1000)).toBeUndefined();
    expect(requeueDelayMs([3000, 1500], 1000)).toBe(500);
    // A cached answer that expired while the reconcile ran: run again now, or no later due time fires either.
    expect(requeueDelayMs([996, 3000], 1000)).toBe(1);
  });
});
