import { describe, expect, it } from 'vitest';
import type { Katalog } from '@orkestra/types';
import { katalogFrom } from '../../../test/katalog-text.js';
import { SIMULATED_NOW, simulate, simulateRollout } from '../../../test/simulate.js';
import { mergePatch } from '@orkestra/reconciler/offline';
import { checkExpectations } from './expectations.js';
import { parseScenario } from './scenario.js';
import { Simulator } from './simulator.js';
import type { StepReport } from './simulator.js';

const now = SIMULATED_NOW;

const cr = (spec: string, namespace = 'web'): string =>
  `{cr: {apiVersion: t.example.com/v1, kind: App, metadata: {name: shop, namespace: ${namespace}}, spec: ${spec}}}`;

describe('Simulator reconcile', () => {
  it('creates create-mode children once and applies apply-mode children only when they change', async () => {
    const katalog = katalogFrom(`operatorBox:
  onCreate:
    configMaps: [{name: seed, data: {v: "{{ spec.v }}"}}]
  onReconcile:
    configMaps: [{name: live, data: {v: "{{ spec.v }}"}}]`);
    const [first, second, third] = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{v: a}')}}
  - {}
  - {update: {spec: {v: b}}}`,
    );
    expect(first).toMatchObject({ creates: ['ConfigMap/seed'], applies: ['ConfigMap/live'], prunes: [] });
    expect(second).toMatchObject({ creates: [], applies: [], prunes: [], generation: 1 });
    expect(third).toMatchObject({ creates: [], applies: ['ConfigMap/live'], generation: 2 });
    expect(third?.status?.['observedGeneration']).toBe(2);
  });

  it('prunes apply-mode children whose gate fails or forEach item is gone, never create-mode, Jobs or prune: false', async () => {
    const katalog = katalogFrom(`operatorBox:
  onCreate:
    configMaps: [{name: seed, when: [{field: spec.on, equals: "true"}]}]
  onReconcile:
    configMaps:
      - {name: "cm-{{ item }}", forEach: {field: spec.items}}
      - {name: gated, when: [{field: spec.on, equals: "true"}]}
      - {name: kept, prune: false, when: [{field: spec.on, equals: "true"}]}
    jobs:
      - {name: migrate, image: busybox, when: [{field: spec.on, equals: "true"}]}`);
    const [create, shrink] = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{on: true, items: [a, b]}')}}
  - {update: {spec: {on: false, items: [a]}}}`,
    );
    expect(create?.creates).toEqual(['ConfigMap/seed', 'Job/migrate']);
    expect(create?.applies).toEqual([
      'ConfigMap/cm-a',
      'ConfigMap/cm-b',
      'ConfigMap/gated',
      'ConfigMap/kept',
    ]);
    expect(shrink?.prunes).toEqual(['ConfigMap/cm-b', 'ConfigMap/gated']);
    // Children are listed in the order they were first written: an apply on a cache miss reads
    // the object first (ADR 0032), so the created Job lands before the applied ConfigMaps.
    expect(shrink?.children).toEqual(['ConfigMap/seed', 'Job/migrate', 'ConfigMap/cm-a', 'ConfigMap/kept']);
    const inventory = shrink?.status?.['inventory'] as Record<string, unknown>[];
    expect(inventory.map((i) => `${String(i['name'])}:${String(i['mode'])}`)).toEqual([
      'migrate:create',
      'cm-a:apply',
      'kept:apply',
      'seed:create',
    ]);
    expect(inventory.find((i) => i['name'] === 'kept')).toMatchObject({ prune: false });
  });

  it('writes nothing and prunes nothing when a hook fails, keeping the inventory', async () => {
    const katalog = katalogFrom(`operatorBox:
  external: [{name: api, url: "http://api.example.com"}]
  onReconcile:
    configMaps: [{name: one}]`);
    const [ok, failing] = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{}')}, context: {external: {api: {ok: true, status: 200}}}}
  - {context: {external: {api: {ok: false, status: 500, error: boom}}}}`,
    );
    expect(ok?.applies).toEqual(['ConfigMap/one']);
    expect(failing).toMatchObject({ applies: [], prunes: [], children: ['ConfigMap/one'] });
    expect(failing?.ready).toMatchObject({ status: 'False', reason: 'ExternalCallFailed' });
    expect(failing?.status?.['inventory']).toHaveLength(1);
  });

  it('says when the entry requeues a CR, and scripts retries up to maxAttempts (docs/reference/katalog.md §20)', async () => {
    const katalog = katalogFrom(`requeue: '{{ spec.every }}'
queue:
  retryBackoff: {initial: 300ms, max: 1s, maxAttempts: 3}
operatorBox:
  external: [{name: api, url: "http://api.example.com"}]
  onReconcile:
    configMaps: [{name: one}]`);
    const failing = '{external: {api: {ok: false, status: 503, error: down}}}';
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{every: 2s}')}, context: {external: {api: {ok: true, status: 200}}}}
  - {advance: 2s, context: ${failing}}
  - {advance: 300ms}
  - {advance: 600ms}
  - {advance: 1m}
  - {update: {spec: {every: 5s}}}`,
    );
    const notes = reports.map((r) => r.notes.filter((n) => /requeue|attempt|retries/.test(n)));
    expect(notes[0]).toEqual(['requeue: reconciled again in 2s unless an event comes first']);
    expect(notes[1]).toEqual(['attempt 1 of 3 failed: retried in 300ms']);
    expect(notes[2]).toEqual(['attempt 2 of 3 failed: retried in 600ms']);
    expect(notes[3]).toEqual([
      'attempt 3 of 3 failed: RetriesExhausted, no retry until the spec or a watched input changes',
    ]);
    expect(reports[3]?.synced).toMatchObject({ status: 'False', reason: 'RetriesExhausted' });
    expect(notes[4]).toEqual([
      'retries exhausted (3 attempts): not reconciled until the spec or a watched input changes',
    ]);
    // A new generation restarts the budget.
    expect(notes[5]).toEqual(['attempt 1 of 3 failed: retried in 300ms']);
  });

  it('scripts the enqueueGate and reconcileGate with event sentinels (docs/reference/katalog.md §20.3)', async () => {
    const katalog = katalogFrom(`preReconcile:
  enqueueGate:
    sentinels: [generationChanged]
  reconcileGate:
    when: [{field: spec.enabled, equals: "true"}]
operatorBox:
  onReconcile:
    configMaps: [{name: "cm-{{ spec.v }}"}]`);
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{enabled: true, v: a}')}}
  - {update: {metadata: {labels: {x: y}}}}
  - {update: {spec: {enabled: false, v: b}}}
  - {update: {spec: {enabled: true, v: c}}}`,
    );
    expect(reports[0]).toMatchObject({ applies: ['ConfigMap/cm-a'] });
    // A label change is no generation change: the enqueueGate holds the event, nothing runs.
    expect(reports[1]?.notes).toContain(
      'enqueueGate held the event: the CR is not queued (nothing is written)',
    );
    expect(reports[1]).toMatchObject({ applies: [], prunes: [] });
    // The spec changed but the reconcileGate holds: only Gated=True is written.
    expect(reports[2]?.notes).toContain(
      'reconcileGate held the reconcile: Gated=True, nothing else is written',
    );
    expect(reports[2]).toMatchObject({ applies: [], prunes: [] });
    const gated = (
      reports[2]?.status?.['conditions'] as { type: string; status: string; reason: string }[]
    ).find((c) => c.type === 'Gated');
    expect(gated).toMatchObject({ status: 'True', reason: 'ReconcileGated' });
    // Enabled again: it reconciles, the Gated condition goes.
    expect(reports[3]).toMatchObject({ applies: ['ConfigMap/cm-c'], prunes: ['ConfigMap/cm-a'] });
    expect((reports[3]?.status?.['conditions'] as { type: string }[]).some((c) => c.type === 'Gated')).toBe(
      false,
    );
  });

  it('scripts a rollback after N failures: onRollback children over .previous until the spec changes (docs/reference/katalog.md §20.4)', async () => {
    const katalog = katalogFrom(`queue:
  retryBackoff: {initial: 1s, max: 1s}
rollback:
  trigger: {consecutiveFailures: 2, withinDuration: 1m}
  onRollback:
    configMaps: [{name: fallback, data: {v: "{{ .previous.spec.v }}", failed: "{{ spec.v }}"}}]
operatorBox:
  external: [{name: api, url: "http://api.example.com"}]
  onReconcile:
    configMaps: [{name: live, data: {v: "{{ spec.v }}"}}]`);
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{v: a}')}, context: {external: {api: {ok: true, status: 200}}}}
  - {update: {spec: {v: b}}, context: {external: {api: {ok: false, status: 503, error: down}}}}
  - {advance: 1s}
  - {advance: 1s}
  - {update: {spec: {v: c}}, context: {external: {api: {ok: true, status: 200}}}}`,
    );
    expect(reports[0]).toMatchObject({ applies: ['ConfigMap/live'] });
    expect(reports[1]?.ready).toMatchObject({ status: 'False' });
    expect(reports[2]?.ready).toMatchObject({ status: 'False' }); // the second failure; the trigger is checked at the next run
    const rolled = reports.findIndex((r) => r.notes.some((n) => n.startsWith('rollback:')));
    expect(rolled).toBe(3);
    expect(reports[3]?.notes).toContain(
      'rollback: the CR is rolled back (Ready=False RolledBack); the onRollback children are applied over .previous until its spec changes',
    );
    expect(reports[3]).toMatchObject({ applies: ['ConfigMap/fallback'] });
    expect(reports[3]?.ready).toMatchObject({ status: 'False', reason: 'RolledBack' });
    expect(reports[4]).toMatchObject({ applies: ['ConfigMap/live'], prunes: ['ConfigMap/fallback'] });
    expect(reports[4]?.ready).toMatchObject({ status: 'True' });
  });

  it('says when a CR in its terminal state is cleaned up, and deletes it when it falls due (docs/reference/katalog.md §20.6)', async () => {
    const katalog = katalogFrom(`cleanup:
  when: [{field: status.phase, equals: Done}]
  deleteAfter: 30s
operatorBox:
  status:
    fields: [{path: phase, value: '{{ spec.phase }}'}]
  onReconcile:
    configMaps: [{name: one}]`);
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{phase: Done}')}}
  - {advance: 30s}`,
    );
    const notes = reports.map((r) => r.notes.filter((n) => n.startsWith('cleanup')));
    expect(notes[0]).toEqual([
      'cleanup: in its terminal state since 2026-01-01T00:00:00Z; deleted in 30s unless it leaves it',
    ]);
    expect(notes[1]).toEqual(['cleanup: deleted, its terminal state held for 30s']);
  });

  it('feeds observed child state to status fields and re-applies drift', async () => {
    const katalog = katalogFrom(`operatorBox:
  onReconcile:
    deployments: [{name: web, image: nginx, replicas: 2}]
  status:
    fields:
      - {path: phase, value: Pending}
      - {path: phase, value: Running, when: [{field: "{{ allReplicasReady children.deployment }}", equals: "true"}]}`);
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{}')}}
  - {observe: {Deployment/web: {status: {observedGeneration: 1, readyReplicas: 2}}}}
  - {observe: {Deployment/web/web: {spec: {replicas: 5}}}}`,
    );
    expect(reports.map((r) => r.status?.['phase'])).toEqual(['Pending', 'Running', 'Pending']);
    expect(reports[1]?.statusChanges).toEqual([{ path: 'phase', before: 'Pending', after: 'Running' }]);
    expect(reports[2]?.applies).toEqual(['Deployment/web']);
  });

  it('does not create a completed Job again after it is deleted', async () => {
    const katalog = katalogFrom(`operatorBox:
  onCreate:
    jobs: [{name: migrate, image: busybox}]`);
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{}')}}
  - {observe: {Job/migrate: {status: {conditions: [{type: Complete, status: "True"}]}}}}
  - {observe: {Job/migrate: null}}`,
    );
    expect(reports.map((r) => r.creates)).toEqual([['Job/migrate'], [], []]);
    expect(reports[2]?.status?.['inventory']).toEqual([
      expect.objectContaining({ kind: 'Job', name: 'migrate', completed: true }),
    ]);
  });

  it('moves the spec and generation forward when mutation rules change the CR', async () => {
    const katalog = katalogFrom(`mutation: {rules: [{field: spec.size, default: 3, valueType: int}]}
operatorBox:
  onReconcile:
    configMaps: [{name: one, data: {size: "{{ spec.size }}"}}]`);
    const [first] = await simulate(katalog, `steps: [{apply: ${cr('{}')}}]`);
    expect(first?.generation).toBe(2);
    expect(first?.status?.['observedGeneration']).toBe(2);
    expect(first?.notes.join('\n')).toContain('mutation rules changed the spec');
  });
});

describe('Simulator deletion', () => {
  it('runs cleanup jobs, ordered groups, providers in reverse, explicit children in reverse wave order, then the finalizer', async () => {
    const katalog = katalogFrom(
      `operatorBox:
  onReconcile:
    namespaces: [{name: "{{ metadata.name }}-extra"}]
    configMaps:
      - {name: local}
      - {name: remote, namespace: other}
    deployments: [{name: web, image: nginx}]
    services: [{name: web, port: 80}]
  onDelete:
    jobs: [{name: "{{ metadata.name }}-export", image: busybox}]
    ordered: true
    groups:
      - {name: workloads, propagation: Background, deployments: [{name: web}]}
      - {name: absent, services: [{name: nothing-here}]}
  providers:
    p1:
      - {name: first, thing: {}}
      - {name: second, thing: {}, deletionPolicy: Retain}
    p2:
      - {name: third, thing: {}}`,
      `  providers:
    - {name: p1, package: "@example/p1"}
    - {name: p2, package: "@example/p2"}
`,
    );
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{}')}}
  - {delete: true}`,
    );
    // The runtime's order (docs/reference/runtime.md §10.2): the cleanup job is created and awaited (Deleting is
    // written while it runs), the ordered group is deleted, providers in reverse declaration order,
    // then every remaining inventory child explicitly in reverse wave order (ADR 0010: the Namespace of
    // wave 0 last), and only then is the finalizer released — nothing is left to garbage collection.
    expect(reports[1]?.deletionOrder).toEqual([
      'cleanup-job Job/shop-export',
      'status Ready=False Deleting',
      'delete Deployment/web',
      'provider-delete p2/third',
      'provider-retain p1/second',
      'provider-delete p1/first',
      'delete ConfigMap/local',
      'delete ConfigMap/other/remote',
      'delete Service/web',
      'delete Namespace/shop-extra',
      'finalizer-removed',
    ]);
    expect(reports[1]?.status).toBeUndefined();
  });

  it('shows the module onDelete steps where the deletion path runs them: reconciler, then hooks last first (ADR 0109)', async () => {
    const katalog = katalogFrom(`operatorBox:
  hooks:
    - {module: "@acme/dns", function: record}
    - {module: "@acme/dns", function: cert, when: [{field: spec.tls, equals: "true"}]}
    - {module: "@acme/dns", function: audit}
  remote:
    module: "@acme/site"
    function: reconcile
    managedResources: [{group: "", plural: configmaps}]
  onReconcile:
    configMaps: [{name: local}]`);
    const [, deleted] = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{tls: false}')}, context: {remote: {result: ok}}}
  - {delete: true}`,
    );
    // The cert hook's gate does not pass on the CR: its step is not reached, as the runtime skips it.
    expect(deleted?.deletionOrder).toEqual([
      'reconciler-onDelete @acme/site#reconcile',
      'hook-onDelete audit',
      'hook-onDelete record',
      'delete ConfigMap/local',
      'status Ready=False Deleting',
      'finalizer-removed',
    ]);
  });

  it('keeps the CR with its finalizer when a scripted deletion step fails, as the runtime does, and finishes once it passes (ADR 0116)', async () => {
    const katalog = katalogFrom(
      `operatorBox:
  hooks:
    - {module: "@acme/dns", function: record}
    - {module: "@acme/dns", function: audit}
  onReconcile:
    configMaps: [{name: local}]
  providers:
    p1:
      - {name: bucket, thing: {}}`,
      `  providers:
    - {name: p1, package: "@example/p1"}
`,
    );
    const reports = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{}')}, context: {providers: {p1: {bucket: {ready: true}}}}}
  - delete: true
    deletionFailures: {hooks: {record: "the DNS zone is locked"}}
  - deletionFailures: {hooks: {record: null}, providers: {p1: {bucket: "access denied"}}}
  - deletionFailures: {providers: {p1: {bucket: null}}}`,
    );
    const [, hookFails, providerFails, done] = reports;
    // The audit hook's step ran (last declared first); record's failed: the pass stops there.
    expect(hookFails?.deletionOrder).toEqual([
      'hook-onDelete audit',
      'hook-onDelete record',
      'status Ready=False HookFailed',
    ]);
    expect(hookFails?.ready).toEqual({
      status: 'False',
      reason: 'HookFailed',
      message:
        'app.operatorBox.hooks[0]: hook record (@acme/dns#record) onDelete failed: the DNS zone is locked',
    });
    expect(hookFails?.synced?.reason).toBe('HookFailed');
    expect(hookFails?.children).toEqual(['ConfigMap/local']);
    expect(hookFails?.finalizers).toEqual(['orkestra.konductor.io/finalizer']);
    expect(hookFails?.notes).toEqual([
      'event Normal Deleting: app: deletion started',
      'the deletion path failed (HookFailed): the runtime retries it, and so does a later step here',
      'attempt 1 failed: retried in 5ms',
    ]);
    // The next step retries the path: the hooks pass, the provider's delete fails.
    expect(providerFails?.deletionOrder).toEqual([
      'hook-onDelete audit',
      'hook-onDelete record',
      'provider-delete p1/bucket',
      'status Ready=False ProviderDeleteFailed',
    ]);
    expect(providerFails?.ready?.message).toBe('app.operatorBox.providers.p1[0]: provider p1: access denied');
    expect(providerFails?.finalizers).toEqual(['orkestra.konductor.io/finalizer']);
    expect(providerFails?.notes).toContain('attempt 2 failed: retried in 10ms');
    // The hooks' steps are not called again once they passed (runtime.md §10.2); the provider now deletes.
    expect(done?.deletionOrder).toEqual([
      'provider-delete p1/bucket',
      'delete ConfigMap/local',
      'status Ready=False Deleting',
      'finalizer-removed',
    ]);
    expect(done?.status).toBeUndefined();
    expect(done?.finalizers).toBeUndefined();
  });

  it('fails a module reconciler’s scripted onDelete with RemoteReconcileFailed (ADR 0116)', async () => {
    const katalog = katalogFrom(`operatorBox:
  remote:
    module: "@acme/site"
    function: reconcile
    managedResources: [{group: "", plural: configmaps}]`);
    const [, deleted] = await simulate(
      katalog,
      `steps:
  - {apply: ${cr('{}')}, context: {remote: {result: ok}}}
  - {delete: true, deletionFailures: {remote: "the CDN refused the purge"}}`,
    );
    expect(deleted?.deletionOrder).toEqual([
      'reconciler-onDelete @acme/site#reconcile',
      'status Ready=False RemoteReconcileFailed',
    ]);
    expect(deleted?.ready?.message).toBe(
      'app.operatorBox.remote: remote reconciler module @acme/site#reconcile onDelete failed: the CDN refused the purge',
    );
  });

  it('skips cleanup jobs and groups when the onDelete gate fails', async () => {
    const katalog = katalogFrom(`operatorBox:
  onReconcile:
    configMaps: [{name: local}]
  onDelete:
    when: [{field: spec.keep, notEquals: "true"}]
    jobs: [{name: export, image: busybox}]`);
    const [, deleted] = await simulate(katalog, `steps: [{apply: ${cr('{keep: true}')}}, {delete: true}]`);
    // No cleanup job runs (the gate fails); the child is still deleted explicitly before the finalizer goes.
    expect(deleted?.deletionOrder).toEqual([
      'delete ConfigMap/local',
      'status Ready=False Deleting',
      'finalizer-removed',
    ]);
  });

  it('removes a CR that never got the finalizer at once', async () => {
    const katalog = katalogFrom(`restrictedNamespaces: [kube-*]
operatorBox:
  onReconcile:
    configMaps: [{name: local}]`);
    const [created, deleted] = await simulate(
      katalog,
      `steps: [{apply: ${cr('{}', 'kube-system')}}, {delete: true}]`,
    );
    expect(created).toMatchObject({ applies: [], ready: { status: 'False', reason: 'NamespaceRestricted' } });
    expect(deleted?.deletionOrder).toEqual([]);
  });
});

describe('checkExpectations', () => {
  it('reports each failing key with expected and actual values, and passes matching ones', async () => {
    const katalog = katalogFrom(`operatorBox:
  onReconcile:
    configMaps: [{name: one}]
  status:
    fields: [{path: phase, value: Pending}]`);
    const [report] = await simulate(
      katalog,
      `steps:
  - apply: ${cr('{}')}
    expect:
      applies: [ConfigMap/web/one]
      prunes: [ConfigMap/two]
      status: {phase: Running, missing: null, observedGeneration: 1}
      ready: "True"
      reason: ValidationFailed`,
    );
    const failures = checkExpectations(report as StepReport).map((f) => [f.key, f.expected, f.actual]);
    expect(failures).toEqual([
      ['prunes', ['ConfigMap/two'], []],
      ['status.phase', 'Running', 'Pending'],
      ['reason', 'ValidationFailed', 'ReconcileSucceeded'],
    ]);
  });

  it('checks `synced` against the Synced condition, apart from Ready', async () => {
    const katalog = katalogFrom(`operatorBox:
  onReconcile:
    configMaps: [{name: one}]`);
    const failuresOf = async (synced: string): Promise<unknown[]> => {
      const [report] = await simulate(
        katalog,
        `steps:
  - apply: ${cr('{}')}
    expect:
      synced: ${synced}
      ready: "True"`,
      );
      expect((report as StepReport).synced).toMatchObject({ status: 'True' });
      return checkExpectations(report as StepReport).map((f) => [f.key, f.expected, f.actual]);
    };
    expect(await failuresOf('"True"')).toEqual([]);
    expect(await failuresOf('false')).toEqual([['synced', 'False', 'True']]);
  });
});

describe('mergePatch', () => {
  it('treats a `__proto__` key of a patch as an ordinary field, never as the object prototype', async () => {
    const patch = JSON.parse('{"spec": {"__proto__": {"polluted": true}, "a": 1}}') as unknown;
    const merged = mergePatch({ spec: { b: 2 } }, patch) as { spec: Record<string, unknown> };
    expect(Object.hasOwn(merged.spec, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(merged.spec)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(merged)).toBe('{"spec":{"b":2,"__proto__":{"polluted":true},"a":1}}');
  });
});

describe('Simulator rollouts (docs/reference/runtime.md §24)', () => {
  const rollout = '  rollout: {canary: {selector: {canary: "yes"}}, waves: [100], readyTimeout: 5m}\n';
  const v1 = katalogFrom(
    `operatorBox:
  onReconcile:
    configMaps: [{name: "{{ metadata.name }}-v1"}]`,
    rollout,
  );
  const v2 = katalogFrom(
    `operatorBox:
  onReconcile:
    configMaps: [{name: "{{ metadata.name }}-v2"}]
    deployments: [{name: "{{ metadata.name }}", image: "nginx:1.27"}]`,
    rollout,
  );
  const katalogs: Record<string, Katalog> = { 'v2.yaml': v2 };
  const app = (name: string, labels = '{}'): string =>
    `{cr: {apiVersion: t.example.com/v1, kind: App, metadata: {name: ${name}, namespace: web, labels: ${labels}}, spec: {}}}`;

  const run = (scenario: string): Promise<StepReport[]> =>
    simulateRollout({ from: v1, load: (source) => katalogs[source] ?? v1, scenario });

  const available = `{status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{type: Available, status: "True"}]}}`;
  const revisions = (report: StepReport | undefined): Record<string, string | undefined> =>
    Object.fromEntries((report?.crs ?? []).map((c) => [c.name, c.revision]));
  const children = (report: StepReport | undefined, name: string): readonly string[] | undefined =>
    report?.crs.find((c) => c.name === name)?.children;

  it('gives the canary the new revision and the others the old; a timed-out gate fails the rollout; undo puts the canary back', async () => {
    const [, , change, early, late, undo] = await run(`steps:
  - {apply: ${app('a', '{canary: "yes"}')}}
  - {apply: ${app('b')}}
  - {katalog: v2.yaml, cr: a}
  - {advance: 4m}
  - {advance: 2m}
  - {rollout: undo, cr: a}
`);
    expect(change?.rollout).toMatchObject({
      phase: 'Progressing',
      step: 0,
      stable: 'v1.yaml',
      target: 'v2.yaml',
    });
    expect(revisions(change)).toEqual({ a: 'v2.yaml', b: 'v1.yaml' });
    expect(change?.applies).toEqual(['ConfigMap/a-v2', 'Deployment/a']);
    expect(change?.prunes).toEqual(['ConfigMap/a-v1']);
    expect(children(change, 'a')).toEqual(['ConfigMap/a-v2', 'Deployment/a']);
    expect(children(change, 'b')).toEqual(['ConfigMap/b-v1']);
    expect(early?.rollout?.phase).toBe('Progressing');
    expect(late?.rollout).toMatchObject({ phase: 'Failed', step: 0 });
    expect(late?.rollout?.message).toMatch(/^1 of 1 CRs not Ready within 5m; first web\/a: /);
    expect(revisions(late)).toEqual({ a: 'v2.yaml', b: 'v1.yaml' });
    expect(undo?.rollout?.phase).toBe('Undone');
    expect(revisions(undo)).toEqual({ a: 'v1.yaml', b: 'v1.yaml' });
    expect([...(undo?.prunes ?? [])].sort()).toEqual(['ConfigMap/a-v2', 'Deployment/a']);
    expect(children(undo, 'a')).toEqual(['ConfigMap/a-v1']);
  });

  it('admits the next wave when the step is Ready on the new revision, and not while paused', async () => {
    const [, , , , paused, resumed, done] = await run(`steps:
  - {apply: ${app('a', '{canary: "yes"}')}}
  - {apply: ${app('b')}}
  - {katalog: v2.yaml}
  - {rollout: pause}
  - {observe: {Deployment/a: ${available}}}
  - {rollout: resume}
  - {observe: {Deployment/b: ${available}}}
`);
    expect(paused?.rollout).toMatchObject({ phase: 'Progressing', step: 0, paused: true });
    expect(revisions(paused)).toEqual({ a: 'v2.yaml', b: 'v1.yaml' });
    expect(resumed?.rollout).toMatchObject({ phase: 'Progressing', step: 1, paused: false });
    expect(revisions(resumed)).toEqual({ a: 'v2.yaml', b: 'v2.yaml' });
    expect(done?.rollout).toMatchObject({ phase: 'Complete', stable: 'v2.yaml', target: 'v2.yaml' });
  });

  it('fails rollout, revisions and crs expectations that do not hold, naming the key', async () => {
    const parsed = parseScenario(
      `steps:
  - {apply: ${app('a', '{canary: "yes"}')}}
  - apply: ${app('b')}
    expect:
      rollout: {phase: Complete, target: v1.yaml}
      revisions: {a: v1.yaml, b: v1.yaml}
      crs: {a: {children: [ConfigMap/a-v1]}, b: {children: [ConfigMap/b-v1]}}
  - katalog: v2.yaml
    expect:
      rollout: {phase: Complete, target: v1.yaml}
      revisions: {a: v1.yaml, b: v1.yaml}
      crs: {a: {children: [ConfigMap/a-v1]}, b: {children: [ConfigMap/b-v1]}, c: {ready: "True"}}
`,
      { file: 'scenario.yaml', baseDir: '/nonexistent', loadKatalog: () => v2 },
    );
    const simulator = new Simulator({ katalog: v1, now, katalogSource: 'v1.yaml', revisions: true });
    const failures = [];
    for (const step of parsed.steps) failures.push(checkExpectations(await simulator.run(step)));
    expect(failures[1]).toEqual([]);
    expect(failures[2]?.map((f) => [f.key, f.expected, f.actual])).toEqual([
      ['rollout.phase', 'Complete', 'Progressing'],
      ['rollout.target', 'v1.yaml', 'v2.yaml'],
      ['revisions.a', 'v1.yaml', 'v2.yaml'],
      ['crs.a.children', ['ConfigMap/a-v1'], ['ConfigMap/a-v2', 'Deployment/a']],
      ['crs.c', 'a CR of this scenario', null],
    ]);
  });

  it('refuses a rollout command on a complete rollout and an unknown cr, at the step', async () => {
    await expect(run('steps:\n  - {apply: ' + app('a') + '}\n  - rollout: undo\n')).rejects.toThrow(
      'scenario.yaml:3:5: step 2 (step 2): the rollout of revision ',
    );
    await expect(run('steps:\n  - {apply: ' + app('a') + '}\n  - {cr: z}\n')).rejects.toThrow(
      'scenario.yaml:3:5: step 2 (step 2): cr z: no such CR (CRs: a)',
    );
  });
});
