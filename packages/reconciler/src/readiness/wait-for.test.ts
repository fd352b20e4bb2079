import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import { holdBack } from './wait-for.js';

interface Child {
  readonly id: string;
  readonly entry: { id?: string; waitFor: string[]; readyWhen: [] };
}

const c = (id: string, entryId: string | undefined, waitFor: string[] = []): Child => ({
  id,
  entry: { ...(entryId == null ? {} : { id: entryId }), waitFor, readyWhen: [] },
});

const job = (complete: boolean): KubeObject =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate' },
    status: complete ? { conditions: [{ type: 'Complete', status: 'True' }] } : { active: 1 },
  }) as KubeObject;

describe('holdBack', () => {
  const db = c('sts/db', 'db');
  const migrate = c('job/migrate', 'migrate', ['db']);
  const web = c('deploy/web', 'web', ['migrate']);

  it('holds back a child whose waitFor entries are not ready, naming them', () => {
    const objects = new Map<string, KubeObject | undefined>([['sts/db', undefined]]);
    const r = holdBack([db, migrate, web], (x) => objects.get(x.id));
    expect(r.apply.map((x) => x.id)).toEqual(['sts/db']);
    expect([...r.waiting]).toEqual([
      ['job/migrate', ['db']],
      ['deploy/web', ['migrate']],
    ]);
  });

  it('applies a child once its targets are ready (a Job by completing)', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'db' } } as KubeObject;
    const running = holdBack([db, migrate, web], (x) =>
      x.id === 'sts/db' ? cm : x.id === 'job/migrate' ? job(false) : undefined,
    );
    expect(running.waiting.has('deploy/web')).toBe(true);
    const done = holdBack([db, migrate, web], (x) =>
      x.id === 'sts/db' ? cm : x.id === 'job/migrate' ? job(true) : undefined,
    );
    expect(done.apply.map((x) => x.id)).toEqual(['sts/db', 'job/migrate', 'deploy/web']);
    expect(done.waiting.size).toBe(0);
  });

  it('keeps applying a child that already exists even when its target is not ready', () => {
    const existing = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } } as KubeObject;
    const r = holdBack([migrate, web], (x) =>
      x.id === 'deploy/web' ? existing : x.id === 'job/migrate' ? job(false) : undefined,
    );
    expect(r.apply.map((x) => x.id)).toContain('deploy/web');
  });

  it('treats a target entry without children this reconcile (gated off) as ready', () => {
    const r = holdBack([web], () => undefined);
    expect(r.apply.map((x) => x.id)).toEqual(['deploy/web']);
  });
});

describe('holdBack: finished Jobs', () => {
  it('counts a completed Job removed by its TTL as ready', () => {
    const migrate = c('job/migrate', 'migrate');
    const web = c('deploy/web', 'web', ['migrate']);
    const r = holdBack([migrate, web], () => undefined, { completed: (x) => x.id === 'job/migrate' });
    expect(r.waiting.size).toBe(0);
  });
});
