import { describe, expect, it } from 'vitest';
import { defineHook } from './define-hook.js';
import { defineReconciler } from './define-reconciler.js';
import {
  ModuleConformanceCheckName,
  checkModuleConformance,
  describeModuleConformance,
} from './module-conformance.js';

interface SiteSpec {
  title: string;
  tags?: string[];
}

/** A reconciler that follows the contract. */
const good = defineReconciler<SiteSpec, { phase: string }>(({ cr, prepared }) => ({
  resources: [
    { type: 'configmap', fields: { name: `${cr.metadata.name}-page`, data: { title: cr.spec.title } } },
  ],
  status: { phase: Object.keys(prepared.children).length > 0 ? 'Ready' : 'Pending' },
  requeueAfter: '5m',
}));

const goodHook = defineHook<SiteSpec>(({ cr, args }) => ({
  outputs: { record: `${cr.metadata.name}.${String(args['zone'])}` },
}));

const cases = [
  { title: 'a site', cr: { spec: { title: 'Hello', tags: ['a'] } } },
  {
    title: 'a site with a child',
    cr: { metadata: { name: 'b' }, spec: { title: 'B' } },
    prepared: { children: { configmap: { 'b-page': { data: { title: 'B' } } } } },
  },
];

describe('describeModuleConformance on a conforming reconciler and hook', () => {
  describeModuleConformance({ export: good, cases });
  describeModuleConformance({
    export: goodHook,
    cases: [{ cr: { spec: { title: 'x' } }, args: { zone: 'z' } }],
  });
});

/** checksFailed runs the suite on `exported` and returns the names of the checks that failed. */
async function checksFailed(exported: unknown, timeoutMs = 200): Promise<string[]> {
  const failures = await checkModuleConformance({ export: exported, cases: [cases[0]!], timeoutMs });
  return failures.map((f) => f.check);
}

describe('checkModuleConformance on deliberately bad modules', () => {
  it('passes the good reconciler (no failures)', async () => {
    expect(await checkModuleConformance({ export: good, cases })).toEqual([]);
  });

  it('fails an export not made by the kit', async () => {
    expect(await checksFailed({ run: () => ({}) })).toEqual([ModuleConformanceCheckName.Contract]);
  });

  it('fails a reconciler that mutates its input, naming the path', async () => {
    const bad = defineReconciler<SiteSpec>(({ cr }) => {
      cr.spec.tags?.push('seen');
      return {};
    });
    const failures = await checkModuleConformance({ export: bad, cases: [cases[0]!] });
    expect(failures).toEqual([
      expect.objectContaining({
        check: ModuleConformanceCheckName.NoMutation,
        message: 'request.cr.spec.tags was changed',
      }),
    ]);
  });

  it('fails a reconciler that never answers (bounded time)', async () => {
    const bad = defineReconciler(() => new Promise<never>(() => undefined));
    expect(await checksFailed(bad, 50)).toEqual([ModuleConformanceCheckName.Runs]);
  });

  it('fails a reconciler that throws', async () => {
    const bad = defineReconciler(() => {
      throw new Error('boom');
    });
    const failures = await checkModuleConformance({ export: bad, cases: [cases[0]!] });
    expect(failures[0]).toMatchObject({ check: ModuleConformanceCheckName.Runs, message: 'threw: boom' });
  });

  it('fails a result with an unknown key (upstream fields the contract does not take)', async () => {
    const bad = defineReconciler(() => ({ result: 'ok', status: {} }) as never);
    const failures = await checkModuleConformance({ export: bad, cases: [cases[0]!] });
    expect(failures).toEqual([
      expect.objectContaining({
        check: ModuleConformanceCheckName.Shape,
        message: 'unknown result key result (a reconciler returns resources, status, requeueAfter)',
      }),
    ]);
  });

  it('fails a result that is not JSON (a Date, a function, NaN)', async () => {
    for (const value of [new Date(0), () => 1, Number.NaN]) {
      const bad = defineReconciler(() => ({ status: { at: value } }) as never);
      expect(await checksFailed(bad)).toEqual([ModuleConformanceCheckName.Serializable]);
    }
  });

  it('fails a reconciler whose result changes between runs of the same input', async () => {
    let n = 0;
    const bad = defineReconciler(() => ({ status: { n: (n += 1) } }));
    const failures = await checkModuleConformance({ export: bad, cases: [cases[0]!] });
    expect(failures).toEqual([
      expect.objectContaining({
        check: ModuleConformanceCheckName.Deterministic,
        message: 'result.status.n differs between two runs',
      }),
    ]);
  });

  it('fails bad shapes: a resource without a name, a bad requeueAfter, hook outputs that are a list', async () => {
    const noName = defineReconciler(
      () => ({ resources: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }] }) as never,
    );
    const badRequeue = defineReconciler(() => ({ requeueAfter: 'soon' }));
    const listOutputs = defineHook(() => ({ outputs: [1] }) as never);
    for (const bad of [noName, badRequeue, listOutputs])
      expect(await checksFailed(bad)).toEqual([ModuleConformanceCheckName.Shape]);
  });

  it('checks a hook’s onDelete step: nothing returned, in time, twice (idempotent), its input unchanged', async () => {
    const run = (): undefined => undefined;
    const released = new Set<string>();
    const good = defineHook(run, { onDelete: () => undefined });
    expect(await checksFailed(good)).toEqual([]);
    const bad = [
      defineHook(run, { onDelete: () => ({ done: true }) as never }),
      defineHook(run, { onDelete: () => new Promise<void>(() => undefined) }),
      defineHook(run, {
        onDelete: ({ cr }) => {
          if (released.has(cr.metadata.uid)) throw new Error('already released');
          released.add(cr.metadata.uid);
        },
      }),
      defineHook(run, {
        onDelete: ({ args }) => {
          (args as Record<string, unknown>)['seen'] = true;
        },
      }),
    ];
    const messages: string[] = [];
    for (const hook of bad) {
      const failures = await checkModuleConformance({ export: hook, cases: [cases[0]!], timeoutMs: 50 });
      expect(failures.map((f) => f.check)).toEqual([ModuleConformanceCheckName.DeleteStep]);
      messages.push(failures[0]?.message ?? '');
    }
    expect(messages).toEqual([
      'onDelete: the first call returned a value; it returns nothing',
      'onDelete: the first call no answer within 50 ms',
      'onDelete: a second call threw: already released',
      'onDelete: the first call changed request.args.seen',
    ]);
  });

  it('checks a reconciler’s onDelete step the same way, without `prepared` in its request (ADR 0109)', async () => {
    const run = (): undefined => undefined;
    const seen: string[] = [];
    const good = defineReconciler(run, {
      onDelete: (request) => {
        seen.push(Object.keys(request).sort().join(','));
      },
    });
    expect(await checksFailed(good)).toEqual([]);
    expect(seen[0]).toBe('args,cr,entry,key,kube,logger,signal');
    const released = new Set<string>();
    const twice = defineReconciler(run, {
      onDelete: ({ key }) => {
        if (released.has(key)) throw new Error('already released');
        released.add(key);
      },
    });
    const failures = await checkModuleConformance({ export: twice, cases: [cases[0]!], timeoutMs: 50 });
    expect(failures.map((f) => [f.check, f.message])).toEqual([
      [ModuleConformanceCheckName.DeleteStep, 'onDelete: a second call threw: already released'],
    ]);
  });
});
