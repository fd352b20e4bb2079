import { StatusField } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { buildStatus } from './build-status.js';
import type { BuildStatusInput } from './build-status.js';
import type { InventoryItem } from './inventory.js';
import { compileStatusFields } from './status-fields.js';

const T1 = new Date('2026-11-30T09:12:44.700Z');
const T2 = new Date('2026-11-30T10:00:00Z');
const succeeded = { status: 'True', reason: 'ReconcileSucceeded', message: '' } as const;
const web: InventoryItem = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'shop',
  name: 'shop-web',
  mode: 'apply',
  source: 'onReconcile.deployments[0]',
};
const job: InventoryItem = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  namespace: 'shop',
  name: 'shop-migrate',
  mode: 'create',
  source: 'onCreate.jobs[0]',
  completed: true,
};

function fields(...declarations: unknown[]) {
  return compileStatusFields(
    declarations.map((d) => StatusField.parse(d)),
    { katalogPath: 'shop.operatorBox.status.fields' },
  );
}

function build(overrides: Partial<BuildStatusInput> = {}) {
  return buildStatus({
    cachedStatus: undefined,
    generation: 7,
    ready: succeeded,
    inventory: [],
    now: T1,
    ...overrides,
  });
}

/** Runs a build, then a second one against its result, as the next reconcile would. */
function settle(input: Partial<BuildStatusInput>, next: Partial<BuildStatusInput> = {}) {
  const first = build(input);
  return build({ ...input, ...next, cachedStatus: Object.freeze(first.status) });
}

describe('buildStatus: runtime-owned keys', () => {
  it('writes Ready, observedGeneration and inventory for a new CR', () => {
    const result = build({ inventory: [job, web] });
    expect(result.status).toEqual({
      observedGeneration: 7,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ReconcileSucceeded',
          message: '',
          observedGeneration: 7,
          lastTransitionTime: '2026-11-30T09:12:44Z',
        },
      ],
      inventory: [web, job],
    });
    expect(result.changed).toBe(true);
    expect(result.patch).toEqual(result.status);
  });

  it('reports no change when nothing differs, whatever the key order', () => {
    const first = build({ inventory: [web] });
    const conditions = (first.status['conditions'] as Record<string, unknown>[]).map((c) =>
      Object.fromEntries(Object.entries(c).reverse()),
    );
    const cached = { inventory: first.status['inventory'], conditions, observedGeneration: 7 };
    expect(Object.keys(cached)).not.toEqual(Object.keys(first.status));
    const again = build({ cachedStatus: cached, inventory: [web], now: T2 });
    expect(again.changed).toBe(false);
    expect(again.patch).toEqual({});
  });

  it('keeps lastTransitionTime unless the Ready status changes', () => {
    const first = build();
    const failing = build({
      cachedStatus: first.status,
      ready: { status: 'False', reason: 'ApplyFailed', message: 'boom' },
      now: T2,
    });
    const ready = (failing.status['conditions'] as Record<string, unknown>[])[0];
    expect(ready).toMatchObject({
      status: 'False',
      reason: 'ApplyFailed',
      lastTransitionTime: '2026-11-30T10:00:00Z',
    });
    expect(failing.patch).toEqual({ conditions: failing.status['conditions'] });

    const stillFailing = build({
      cachedStatus: failing.status,
      ready: { status: 'False', reason: 'TemplateError', message: 'other' },
      now: new Date('2026-12-01T00:00:00Z'),
    });
    expect((stillFailing.status['conditions'] as Record<string, unknown>[])[0]).toMatchObject({
      reason: 'TemplateError',
      message: 'other',
      lastTransitionTime: '2026-11-30T10:00:00Z',
    });
  });

  it('records the new generation on the status and on Ready', () => {
    const first = build();
    const next = build({ cachedStatus: first.status, generation: 8, now: T2 });
    expect(next.patch).toEqual({
      observedGeneration: 8,
      conditions: [
        expect.objectContaining({ observedGeneration: 8, lastTransitionTime: '2026-11-30T09:12:44Z' }),
      ],
    });
  });

  it('keeps the cached generation, inventory and providers when not given (deletion path)', () => {
    const first = build({ inventory: [web], providers: { aws: { assets: { kind: 's3', ready: true } } } });
    const deleting = buildStatus({
      cachedStatus: first.status,
      ready: { status: 'False', reason: 'Deleting', message: 'deleting' },
      validationWarnings: 'unknown',
      now: T2,
    });
    expect(deleting.patch).toEqual({
      conditions: [expect.objectContaining({ reason: 'Deleting', observedGeneration: 7 })],
    });
    expect(deleting.status['inventory']).toEqual([web]);
    expect(deleting.status['providers']).toEqual({ aws: { assets: { kind: 's3', ready: true } } });
  });

  it('keeps conditions of other types, in place', () => {
    const foreign = {
      type: 'Available',
      status: 'True',
      reason: 'X',
      message: '',
      lastTransitionTime: '2020-01-01T00:00:00Z',
    };
    const cached = {
      conditions: [
        foreign,
        { type: 'Ready', status: 'False', reason: 'A', message: '', lastTransitionTime: 'old' },
        'junk',
      ],
      custom: { keep: true },
    };
    const result = build({ cachedStatus: cached });
    expect(result.status['conditions']).toEqual([
      foreign,
      expect.objectContaining({ type: 'Ready', status: 'True' }),
      'junk',
    ]);
    expect(result.status['custom']).toEqual({ keep: true });
    expect(cached.conditions[1]).toMatchObject({ status: 'False' }); // input not modified
  });

  it('cuts the Ready message to 1024 characters', () => {
    const result = build({ ready: { status: 'False', reason: 'ApplyFailed', message: 'm'.repeat(2000) } });
    const message = (result.status['conditions'] as { message: string }[])[0]?.message ?? '';
    expect(message).toHaveLength(1024);
    expect(message.endsWith('…')).toBe(true);
  });

  it('sends a removed top-level key as null and a changed map as a nested diff', () => {
    const cached = { providers: { aws: { a: { ready: true, message: 'x' } } }, observedGeneration: 7 };
    const result = build({ cachedStatus: cached, providers: { aws: { a: { ready: true } } } });
    expect(result.patch['providers']).toEqual({ aws: { a: { message: null } } });
  });
});

describe('buildStatus: ValidationWarning', () => {
  it('is absent for entries without warn rules, and removed if left over', () => {
    expect(build().status['conditions']).toHaveLength(1);
    const cached = {
      conditions: [
        {
          type: 'ValidationWarning',
          status: 'True',
          reason: 'ValidationWarning',
          message: 'x',
          lastTransitionTime: 't',
        },
      ],
    };
    const result = build({ cachedStatus: cached });
    expect((result.status['conditions'] as { type: string }[]).map((c) => c.type)).toEqual(['Ready']);
  });

  it('is True with the messages joined, then False/NoWarnings once they clear', () => {
    const warned = build({ validationWarnings: ['more than 10 replicas is unusual', 'no team label'] });
    expect((warned.status['conditions'] as unknown[])[1]).toEqual({
      type: 'ValidationWarning',
      status: 'True',
      reason: 'ValidationWarning',
      message: 'more than 10 replicas is unusual; no team label',
      observedGeneration: 7,
      lastTransitionTime: '2026-11-30T09:12:44Z',
    });
    const cleared = build({ cachedStatus: warned.status, validationWarnings: [], now: T2 });
    expect((cleared.status['conditions'] as unknown[])[1]).toEqual({
      type: 'ValidationWarning',
      status: 'False',
      reason: 'NoWarnings',
      message: '',
      observedGeneration: 7,
      lastTransitionTime: '2026-11-30T10:00:00Z',
    });
  });

  it('writes CrossSourceUnavailable only once a read failed: True naming the address, then False, kept when not run (ADR 0043)', () => {
    const fine = build({ crossUnavailable: [] });
    expect((fine.status['conditions'] as { type: string }[]).map((c) => c.type)).toEqual(['Ready']);
    const down = build({
      crossUnavailable: ['cross.loader: connect ECONNREFUSED (GET http://loader:8080/katalog/loader/health)'],
    });
    const condition = (down.status['conditions'] as { type: string }[]).find(
      (c) => c.type === 'CrossSourceUnavailable',
    );
    expect(condition).toMatchObject({
      status: 'True',
      reason: 'CrossSourceUnavailable',
      message: 'cross.loader: connect ECONNREFUSED (GET http://loader:8080/katalog/loader/health)',
    });
    const kept = build({ cachedStatus: down.status });
    expect(kept.status['conditions']).toEqual(down.status['conditions']);
    const back = build({ cachedStatus: down.status, crossUnavailable: [], now: T2 });
    expect(
      (back.status['conditions'] as { type: string }[]).find((c) => c.type === 'CrossSourceUnavailable'),
    ).toMatchObject({
      status: 'False',
      reason: 'CrossSourcesAvailable',
      message: '',
    });
  });

  it('is kept as cached when validation did not run', () => {
    const warned = build({ validationWarnings: ['w'] });
    const failed = build({
      cachedStatus: warned.status,
      validationWarnings: 'unknown',
      ready: { status: 'False', reason: 'NamespaceRestricted', message: 'no' },
    });
    expect((failed.status['conditions'] as unknown[])[1]).toEqual(
      (warned.status['conditions'] as unknown[])[1],
    );
  });
});

describe('buildStatus: declared fields', () => {
  it('applies fields in declaration order, later same path overwriting (state machine)', () => {
    const declared = fields(
      { path: 'phase', value: 'Provisioning', when: [{ field: 'status.phase', notExists: true }] },
      {
        path: 'phase',
        value: 'Running',
        when: [{ field: '{{ children.deployment.status.readyReplicas }}', equals: '2' }],
      },
      {
        path: 'replicas.ready',
        type: 'int',
        value: '{{ default children.deployment.status.readyReplicas 0 }}',
      },
    );
    const notReady = build({ declaredFields: declared, context: { status: {}, children: {} } });
    expect(notReady.status).toMatchObject({ phase: 'Provisioning', replicas: { ready: 0 } });
    const ready = build({
      cachedStatus: notReady.status,
      declaredFields: declared,
      context: { status: notReady.status, children: { deployment: { status: { readyReplicas: 2 } } } },
    });
    expect(ready.status).toMatchObject({ phase: 'Running', replicas: { ready: 2 } });
    expect(ready.patch).toEqual({ phase: 'Running', replicas: { ready: 2 } });
  });

  it('converts types, including auto', () => {
    const declared = fields(
      { path: 'a', type: 'int', value: '{{ spec.n }}' },
      { path: 'b', type: 'float', value: '2.5' },
      { path: 'c', type: 'bool', value: 'TRUE' },
      { path: 'd', type: 'string', value: '{{ spec.n }}' },
      { path: 'e.int', type: 'auto', value: '42' },
      { path: 'e.float', type: 'auto', value: '4.5' },
      { path: 'e.bool', type: 'auto', value: 'false' },
      { path: 'e.string', type: 'auto', value: 'hello' },
      { path: 'native', value: '{{ spec.obj }}' },
      { path: 'text', value: 'n={{ spec.n }}' },
    );
    const result = build({ declaredFields: declared, context: { spec: { n: '3', obj: { x: [1] } } } });
    expect(result.status).toMatchObject({
      a: 3,
      b: 2.5,
      c: true,
      d: '3',
      e: { int: 42, float: 4.5, bool: false, string: 'hello' },
      native: { x: [1] },
      text: 'n=3',
    });
  });

  it('removes a field whose value is absent or null, and parents left empty', () => {
    const cached = { lastError: { code: 'E1' }, note: 'x', other: 1 };
    const declared = fields(
      { path: 'lastError.code', value: '{{ external.health.error }}' },
      { path: 'note', value: null },
    );
    const result = build({ cachedStatus: cached, declaredFields: declared, context: {} });
    expect(result.status).not.toHaveProperty('lastError');
    expect(result.status).not.toHaveProperty('note');
    expect(result.status['other']).toBe(1);
    expect(result.patch).toMatchObject({ lastError: null, note: null });
  });

  it('leaves a field as it is when its conditions fail, or removes it with clearOnFalse', () => {
    const cached = { kept: 'old', cleared: 'old' };
    const declared = fields(
      { path: 'kept', value: 'new', when: [{ field: 'spec.on', equals: 'true' }] },
      { path: 'cleared', value: 'new', when: [{ field: 'spec.on', equals: 'true' }], clearOnFalse: true },
    );
    const off = build({ cachedStatus: cached, declaredFields: declared, context: { spec: { on: false } } });
    expect(off.status['kept']).toBe('old');
    expect(off.status).not.toHaveProperty('cleared');
    const on = build({ cachedStatus: cached, declaredFields: declared, context: { spec: { on: true } } });
    expect(on.status).toMatchObject({ kept: 'new', cleared: 'new' });
  });

  it('evaluates only gated fields after a failed reconcile', () => {
    const declared = fields(
      { path: 'phase', value: 'Running' },
      { path: 'lastError', value: 'failing', anyOf: [{ field: 'spec.x', exists: false }] },
    );
    const result = build({
      cachedStatus: { phase: 'Pending' },
      ready: { status: 'False', reason: 'ApplyFailed', message: 'x' },
      failed: true,
      declaredFields: declared,
      context: { spec: {} },
    });
    expect(result.status).toMatchObject({ phase: 'Pending', lastError: 'failing' });
  });

  it('skips a field with an error, reports it, and still applies the others', () => {
    const errors: [string, string][] = [];
    const declared = fields(
      { path: 'count', type: 'int', value: '{{ spec.count }}' },
      { path: 'bad', value: '{{ fromJson spec.text }}' },
      { path: 'fine', value: 'yes' },
      { path: 'map', type: 'auto', value: '{{ spec.obj }}' },
    );
    const result = build({
      cachedStatus: { count: 1 },
      declaredFields: declared,
      context: { spec: { count: 'three', text: '{not json', obj: { a: 1 } } },
      onFieldError: (path, message) => errors.push([path, message]),
    });
    expect(result.status).toMatchObject({ count: 1, fine: 'yes' });
    expect(result.status).not.toHaveProperty('bad');
    expect(result.status).not.toHaveProperty('map');
    expect(errors.map(([path]) => path)).toEqual(['count', 'bad', 'map']);
    expect(errors[0]?.[1]).toBe('shop.operatorBox.status.fields[0].value: expected an integer, got "three"');
  });

  it('refuses reserved keys', () => {
    const errors: string[] = [];
    const declared = compileStatusFields([
      { path: 'conditions', value: [] },
      { path: 'inventory.x', value: 1 },
      { path: 'a..b', value: 1 },
      { path: '__proto__.polluted', value: 1 },
      { path: '.ok', value: 1 },
    ]);
    const result = build({ declaredFields: declared, onFieldError: (path) => errors.push(path) });
    expect(errors).toEqual(['conditions', 'inventory.x', 'a..b', '__proto__.polluted']);
    expect(result.status['ok']).toBe(1);
    expect(result.status['inventory']).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('settles: a second build against its own result changes nothing', () => {
    const declared = fields(
      { path: 'phase', value: 'Running' },
      { path: 'replicas.ready', type: 'int', value: '{{ spec.n }}' },
      { path: 'nullable', value: '{{ spec.withNull }}' },
    );
    const input = {
      inventory: [job, web],
      providers: { aws: { bucket: { ready: true, outputs: { arn: null, name: 'b' } } } },
      validationWarnings: ['w'],
      declaredFields: declared,
      context: { spec: { n: 2, withNull: { a: null, b: 1 } } },
    };
    const second = settle(input, { now: T2 });
    expect(second.changed).toBe(false);
    expect(second.patch).toEqual({});
    expect(second.status['nullable']).toEqual({ b: 1 });
  });
});

describe('buildStatus: Synced (ADR 0009)', () => {
  const notReady = {
    status: 'False',
    reason: 'ChildNotReady',
    message: 'Deployment shop-web: 1/2 replicas available',
  } as const;

  it('writes Synced beside Ready, each with its own transition time', () => {
    const first = build({ ready: notReady, synced: succeeded, now: T1 });
    const conditions = first.status['conditions'] as {
      type: string;
      status: string;
      lastTransitionTime: string;
    }[];
    expect(conditions.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'False'],
      ['Synced', 'True'],
    ]);
    const second = build({ cachedStatus: first.status, ready: succeeded, synced: succeeded, now: T2 });
    const after = second.status['conditions'] as { type: string; lastTransitionTime: string }[];
    expect(after.find((c) => c.type === 'Synced')?.lastTransitionTime).toBe('2026-11-30T09:12:44Z');
    expect(after.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe('2026-11-30T10:00:00Z');
  });

  it('keeps a cached Synced condition when none is given', () => {
    const first = build({ synced: succeeded, now: T1 });
    const again = build({ cachedStatus: first.status, now: T2 });
    expect(again.changed).toBe(false);
  });

  it('records readiness on inventory items and parses it back', () => {
    const readiness = {
      state: 'InProgress',
      message: '1/2 replicas available',
      since: '2026-11-30T09:12:44Z',
    };
    const result = build({ inventory: [{ ...web, readiness }] });
    expect((result.status['inventory'] as InventoryItem[])[0]?.readiness).toEqual(readiness);
  });
});
