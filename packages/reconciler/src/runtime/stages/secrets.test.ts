import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { OrkestraAnnotation } from '@orkestra/types';
import { ManualClock } from '../../clock.js';
import type { DesiredChild } from '../desired-set.js';
import type { RunState, StageServices } from './run-state.js';
import { rotateIfDue, rotationEntry, tlsRequestOf } from './secrets.js';

function secret(rendered: Record<string, unknown>): DesiredChild {
  return {
    ref: { apiVersion: 'v1', kind: 'Secret', name: 'tls', namespace: 'web' },
    rendered,
  } as unknown as DesiredChild;
}

describe('rotationEntry', () => {
  it('reads rotateAfter and tls.validFor, treating empty strings as absent', () => {
    expect(rotationEntry({})).toEqual({});
    expect(rotationEntry({ rotateAfter: '720h' })).toEqual({ rotateAfter: '720h' });
    expect(rotationEntry({ rotateAfter: '', tls: {} })).toEqual({ tls: {} });
    expect(rotationEntry({ tls: { validFor: '24h' } })).toEqual({ tls: { validFor: '24h' } });
  });
});

describe('tlsRequestOf', () => {
  it('defaults the common name to the Service DNS name and keeps the declared SANs in string form', () => {
    expect(tlsRequestOf(secret({}))).toBeUndefined();
    const request = tlsRequestOf(secret({ tls: { dnsNames: ['a.example.com', 7], validFor: '48h' } }));
    expect(request?.commonName).toBe('tls.web.svc');
    expect(request?.dnsNames).toEqual(['a.example.com', '7']);
    expect(request?.validForMs).toBe(48 * 3600_000);
    expect(tlsRequestOf(secret({ tls: { commonName: 'x.example.com' } }))?.commonName).toBe('x.example.com');
  });
});

/**
 * rotateIfDue on a manual clock (docs/reference/katalog.md §7.2, runtime.md §14.1): nothing is
 * written before the due time, which is handed to the queue as a timed re-queue (not a poll); at
 * the due time one conditional patch replaces the data (the old value stays until it succeeds),
 * an Event names the Secret, and the next re-queue is one interval later.
 */
describe('rotateIfDue', () => {
  const DAY = 86_400_000;
  const cr = {
    apiVersion: 'demo.example.io/v1',
    kind: 'App',
    metadata: { name: 'a', namespace: 'web', uid: 'cr-1' },
  };
  const child = {
    ref: { apiVersion: 'v1', kind: 'Secret', name: 'a-creds', namespace: 'web' },
    rendered: { rotateAfter: '1d' },
    entry: { source: 'onCreate.secrets[0]', katalogPath: 'app.operatorBox.onCreate.secrets[0]' },
    manifest: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a-creds', namespace: 'web' } },
  };
  const cached = (generatedAt: string, password: string, rv = '7'): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'a-creds',
      namespace: 'web',
      resourceVersion: rv,
      annotations: { [OrkestraAnnotation.GeneratedAt]: generatedAt },
    },
    data: { password },
  });

  function setup(failPatch = false) {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const patches: { ref: unknown; patch: Record<string, unknown> }[] = [];
    const events: [string, string][] = [];
    let rendered = 0;
    let live = cached('2026-01-01T00:00:00Z', 'b2xk');
    const services = {
      crd: { name: 'app' },
      clock,
      random: undefined,
      children: { upsertFromWrite: (o: KubeObject) => (live = o) },
      client: {
        mergePatch: async (ref: unknown, patch: Record<string, unknown>) => {
          patches.push({ ref, patch });
          if (failPatch) throw new Error('409 Conflict');
          const meta = patch['metadata'] as { annotations: Record<string, string> };
          live = {
            ...live,
            metadata: { ...live.metadata, resourceVersion: '8', annotations: meta.annotations },
            data: patch['data'] as never,
          };
          return live;
        },
      },
      events: { normal: (_: unknown, reason: string, message: string) => events.push([reason, message]) },
      observer: { childWrite: () => undefined, secretGenerated: () => undefined },
    } as unknown as StageServices;
    const desired = {
      ...child,
      withData: () => {
        rendered += 1;
        return { ...child.manifest, data: { password: 'bmV3' } };
      },
    } as unknown as DesiredChild;
    const state = (): RunState => ({ requeueAt: [], writes: 0 }) as unknown as RunState;
    return { clock, patches, events, services, desired, state, live: () => live, rendered: () => rendered };
  }

  it('before the due time: no write, no render, a timed re-queue at generated-at + rotateAfter', async () => {
    const t = setup();
    t.clock.advance(DAY - 1);
    const state = t.state();
    await rotateIfDue(t.services, cr as KubeObject, t.desired, t.live(), state);
    expect(t.patches).toEqual([]);
    expect(t.rendered()).toBe(0);
    expect(state.requeueAt).toEqual([Date.parse('2026-01-02T00:00:00Z')]);
  });

  it('at the due time: one conditional patch with new data and stamp, an Event, the next re-queue a day on', async () => {
    const t = setup();
    t.clock.advance(DAY);
    const state = t.state();
    await rotateIfDue(t.services, cr as KubeObject, t.desired, t.live(), state);
    expect(t.patches).toHaveLength(1);
    expect(t.patches[0]?.patch).toEqual({
      metadata: {
        resourceVersion: '7',
        annotations: {
          [OrkestraAnnotation.GeneratedAt]: '2026-01-02T00:00:00Z',
          [OrkestraAnnotation.RotateAfter]: '1d',
        },
      },
      data: { password: 'bmV3' },
    });
    expect(t.events).toEqual([['SecretRotated', 'Secret web/a-creds (onCreate.secrets[0]) was rotated']]);
    expect(state.requeueAt).toEqual([Date.parse('2026-01-03T00:00:00Z')]);
    expect(state.writes).toBe(1);
  });

  it('a failed write keeps the old value: no Event, and the error reaches the reconcile (retried)', async () => {
    const t = setup(true);
    t.clock.advance(DAY);
    await expect(rotateIfDue(t.services, cr as KubeObject, t.desired, t.live(), t.state())).rejects.toThrow(
      /Conflict/,
    );
    expect(t.live()['data']).toEqual({ password: 'b2xk' });
    expect(t.events).toEqual([]);
  });
});
