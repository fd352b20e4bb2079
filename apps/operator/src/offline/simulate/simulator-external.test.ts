import { describe, expect, it } from 'vitest';
import type { Katalog } from '@orkestra/types';
import { katalogFrom } from '../../../test/katalog-text.js';
import { simulate, simulateRollout } from '../../../test/simulate.js';
import { checkExpectations } from './expectations.js';
import { formatStepReport } from './format-report.js';
import type { StepReport } from './simulator.js';
import { ScenarioError, parseScenario } from './scenario.js';

const cr = (spec: string): string =>
  `{cr: {apiVersion: t.example.com/v1, kind: App, metadata: {name: shop, namespace: web}, spec: ${spec}}}`;

describe('ork simulate scripts protocol answers (docs/reference/katalog.md §15.1.1)', () => {
  const katalog = katalogFrom(`operatorBox:
  external:
    - name: depth
      protocol: prometheus
      url: http://prometheus.monitoring:9090
      query: 'sum(queue_messages{queue="{{ spec.queue }}"})'
    - name: jobs
      protocol: postgres
      url: postgres://reader@db.data:5432/jobs
      query: SELECT count(*) AS pending FROM jobs WHERE owner = $1
      params: ['{{ metadata.name }}']
    - name: flag
      protocol: redis
      url: redis://cache.data:6379
      query: 'GET flags:{{ metadata.name }}'
    - name: orders
      protocol: mongo
      url: mongodb://mongo.data:27017/admin
      query: 'shop.orders {"owner": "$1"}'
      params: ['{{ metadata.name }}']
    - name: backlog
      protocol: kafka
      url: kafka://kafka-0.kafka.data:9092
      query: workers/events
  status:
    fields:
      - { path: backlog, value: '{{ promValue external.depth }}' }
      - { path: overloaded, value: '{{ promAboveThreshold external.depth 10000 }}' }
      - { path: series, value: '{{ promSeriesCount external.depth }}' }
      - { path: pending, value: '{{ external.jobs.rows.0.pending }}' }
      - { path: pendingScalar, value: '{{ external.jobs.result }}' }
      - { path: flag, value: '{{ external.flag.result }}' }
      - { path: orders, value: '{{ external.orders.count }}' }
      - { path: firstOrder, value: '{{ external.orders.documents.0.status }}' }
      - { path: lag, value: '{{ external.backlog.lag }}' }
      - { path: partitions, value: '{{ external.backlog.partitions }}' }
      - { path: jobsStatus, value: '{{ external.jobs.status }}' }
      - { path: depthStatus, value: '{{ external.depth.status }}' }`);

  it('renders every protocol’s scripted result shape as its real answer would', async () => {
    const [first] = await simulate(
      katalog,
      `steps:
  - apply: ${cr('{queue: q1}')}
    context:
      external:
        depth:
          result: "12001"
          raw: {status: success, data: {resultType: vector, result: [{metric: {}, value: [0, "12001"]}, {metric: {}, value: [0, "3"]}]}}
        jobs: {result: "3", rows: [{pending: "3"}]}
        flag: {result: "on"}
        orders: {count: "2", documents: [{status: open}, {status: open}]}
        backlog: {lag: "1200", partitions: "6"}
`,
    );
    expect(first?.status).toMatchObject({
      backlog: '12001',
      overloaded: 'true',
      series: '2',
      pending: '3',
      pendingScalar: '3',
      flag: 'on',
      orders: '2',
      firstOrder: 'open',
      lag: '1200',
      partitions: '6',
      // HTTP-based protocols answer with an HTTP status; the others have none (0), as for real.
      depthStatus: 200,
      jobsStatus: 0,
    });
  });

  it('fails the reconcile on a scripted failed answer, and reads a missing one as not called', async () => {
    const [failed] = await simulate(
      katalog,
      `steps:
  - apply: ${cr('{queue: q1}')}
    context:
      external:
        depth: {result: "1"}
        jobs: {ok: false, error: 'postgres: relation "jobs" does not exist'}
`,
    );
    expect(failed?.ready).toMatchObject({ status: 'False', reason: 'ExternalCallFailed' });
    expect(failed?.ready?.message).toContain('relation "jobs" does not exist');
  });
});

describe('ork simulate refuses a scripted answer no server would give (docs/reference/katalog.md §15.1.1)', () => {
  const katalog = katalogFrom(`operatorBox:
  external:
    - name: depth
      protocol: prometheus
      url: http://prometheus.monitoring:9090
      query: up
    - name: jobs
      protocol: postgres
      url: postgres://reader@db.data:5432/jobs
      query: SELECT count(*) AS pending FROM jobs WHERE owner = $1
      params: ['{{ metadata.name }}']
    - name: api
      url: http://api.data
  status:
    fields:
      - { path: pending, value: '{{ external.jobs.rows.0.pending }}' }`);

  const errorOf = (context: string): string => {
    try {
      parseScenario(`steps:\n  - apply: ${cr('{queue: q1}')}\n    context:\n      external:\n${context}`, {
        file: 'answers.yaml',
        baseDir: '/nonexistent',
        katalog,
      });
    } catch (error) {
      if (error instanceof ScenarioError) return error.message;
      throw error;
    }
    return 'no error';
  };

  it('names the file, line and column, the call and the field, per shape family', () => {
    // A list given as text.
    expect(errorOf('        jobs: {rows: pending}\n')).toBe(
      'answers.yaml:5:16: steps[0].context.external.jobs: postgres call jobs: rows must be an array of objects; got a string',
    );
    // A scalar of the wrong type: a number where the real answer is text.
    expect(errorOf('        jobs:\n          result: 3\n')).toBe(
      'answers.yaml:6:11: steps[0].context.external.jobs: postgres call jobs: result must be a string; got a number (quote it: "3")',
    );
    // A row with a column the SELECT does not name.
    expect(errorOf('        jobs: {rows: [{pendng: "3"}]}\n')).toBe(
      'answers.yaml:5:24: steps[0].context.external.jobs: postgres call jobs: rows[0] has no field `pendng`; its fields are pending; did you mean `pending`?',
    );
    // An unknown result key, and a field inside named fields.
    expect(errorOf('        api: {jsn: {}}\n')).toMatch(
      /^answers.yaml:5:15: .*http call api: protocol http has no result field `jsn`; its fields are .*; did you mean `json`\?$/,
    );
    expect(errorOf('        depth: {raw: {data: {result: {}}}}\n')).toBe(
      'answers.yaml:5:30: steps[0].context.external.depth: prometheus call depth: raw.data.result must be an array of values; got an object',
    );
    // An answer for a call the Katalog does not declare.
    expect(errorOf('        job: {result: "1"}\n')).toBe(
      'answers.yaml:5:9: steps[0].context.external.job: no external call is named `job` in the Katalog; its calls are depth, jobs, api; did you mean `jobs`?',
    );
  });

  it('takes answers that fit, and anything inside an open part', () => {
    expect(
      errorOf(
        '        jobs: {result: "3", rows: [{pending: 3}]}\n        api: {status: 503, json: {any: [thing]}}\n        depth: null\n',
      ),
    ).toBe('no error');
  });
});

describe('ork simulate scripts team notifications (docs/reference/katalog.md §15.4)', () => {
  const head = `  notification:
    message: 'default {{ .metadata.name }}'
    smtp: {host: smtp.example.com, from: orkestra@example.com}
    teams:
      ops:
        email: [ops@example.com]
        slack: ['#ops']
        interval: 10m
      sre:
        message: 'sre: {{ .metadata.name }} is {{ .spec.state }}'
        webhook: {secretRef: {name: sre-slack, key: url, namespace: orkestra-system}}
`;
  const katalog = katalogFrom(
    `operatorBox:
  status:
    fields:
      - path: phase
        value: Down
        when:
          - field: spec.state
            equals: down
            notify:
              teams: [ops, sre, ghost]
              message: '{{ .metadata.name }} is down'
      - path: slow
        value: 'yes'
        when:
          - field: spec.state
            equals: slow
            notify: [sre]`,
    head,
  );

  it('shows which teams would be told, on which channels, with the rendered message; the gate holds repeats', async () => {
    const reports = await simulate(
      katalog,
      `steps:
  - apply: ${cr('{state: down}')}
    expect:
      notifications:
        - {team: ops, text: shop is down, email: [ops@example.com], webhook: false, skipped: ['webhook: a webhook secretRef is not set']}
        - {team: sre, text: shop is down, email: [], webhook: true}
  - name: within the interval
    advance: 5m
  - name: the sre team's default interval is 15m, ops' 10m
    advance: 6m
    expect:
      notifications: [ops]
  - name: another condition, the team's own message
    update: {spec: {state: slow}}
    expect:
      notifications: [{team: sre, text: 'sre: shop is slow', trigger: 'spec.state equals "slow"'}]
`,
    );
    for (const report of reports) expect(checkExpectations(report)).toEqual([]);
    expect(reports[0]?.notifications[0]).toMatchObject({
      cr: 'App web/shop',
      subject: '[orkestra] spec.state condition triggered',
      trigger: 'spec.state equals "down"',
    });
    expect(reports[1]?.notifications).toEqual([]);
    const text = formatStepReport(reports[0] as StepReport);
    expect(text).toContain(
      'notify ops (email ops@example.com; skipped webhook: a webhook secretRef is not set): [orkestra] spec.state condition triggered\n    shop is down',
    );
    expect(text).toContain('notify sre (webhook): [orkestra] spec.state condition triggered');
  });

  it('fails an expectation that names another team, and says what was sent', async () => {
    const [report] = await simulate(
      katalog,
      `steps:
  - apply: ${cr('{state: down}')}
    expect: {notifications: [sre]}
`,
    );
    expect(checkExpectations(report as StepReport).map((f) => [f.key, f.actual])).toEqual([
      [
        'notifications',
        [
          { team: 'ops', text: 'shop is down' },
          { team: 'sre', text: 'shop is down' },
        ],
      ],
    ]);
  });
});

describe('ork simulate scripts rollout notifications (docs/reference/katalog.md §2.3, ADR 0066)', () => {
  const head = (notify: string): string => `  notification:
    smtp: {host: smtp.example.com, from: orkestra@example.com}
    teams:
      ops: {email: [ops@example.com], interval: 1h}
  rollout:
    canary: {selector: {canary: "yes"}}
    waves: [100]
    readyTimeout: 5m
    notify: ${notify}
`;
  const v1 = (notify: string): Katalog =>
    katalogFrom(
      `operatorBox:\n  onReconcile:\n    configMaps: [{name: "{{ metadata.name }}-v1"}]`,
      head(notify),
    );
  const v2 = (notify: string): Katalog =>
    katalogFrom(
      `operatorBox:\n  onReconcile:\n    deployments: [{name: "{{ metadata.name }}", image: "nginx:1.27"}]`,
      head(notify),
    );
  const app = (name: string, labels = '{}'): string =>
    `{cr: {apiVersion: t.example.com/v1, kind: App, metadata: {name: ${name}, namespace: web, labels: ${labels}}, spec: {}}}`;

  const run = (notify: string, scenario: string): Promise<StepReport[]> =>
    simulateRollout({ from: v1(notify), load: () => v2(notify), scenario });

  it('tells the teams when the gate fails, with the rendered message; the rollout moves on regardless', async () => {
    const reports = await run(
      `{teams: [ops, ghost], message: '{{ .katalog }}: {{ .rollout.outcome }} of {{ .rollout.target }} at step {{ .rollout.step }}'}`,
      `steps:
  - {apply: ${app('a', '{canary: "yes"}')}}
  - {katalog: v2.yaml, cr: a, expect: {notifications: []}}
  - advance: 6m
    expect:
      rollout: {phase: Failed}
      notifications: [{team: ops, trigger: rollout gateFailed, text: 'test-operator: gateFailed of v2.yaml at step 0', email: [ops@example.com], cr: rollout}]
  - {advance: 1m, expect: {notifications: []}}
`,
    );
    expect(reports[2]?.notifications[0]?.subject).toBe('[orkestra] rollout gateFailed');
  });

  it('tells only the outcomes `on` names, with the default sentence', async () => {
    const [, , failed] = await run(
      `{teams: [ops], on: [step]}`,
      `steps:
  - {apply: ${app('a', '{canary: "yes"}')}}
  - {katalog: v2.yaml, cr: a}
  - {advance: 6m, expect: {rollout: {phase: Failed}, notifications: []}}
`,
    );
    expect(failed?.rollout?.phase).toBe('Failed');
  });
});

describe('ork simulate scripts the answers of gate external calls (docs/reference/katalog.md §20.3)', () => {
  const katalog = katalogFrom(`preReconcile:
  enqueueGate:
    failPolicy: open
    external:
      - {name: freeze, url: "http://freeze.example.com/{{ metadata.name }}"}
    when: [{field: external.freeze.json.frozen, equals: "false"}]
  reconcileGate:
    failPolicy: closed
    external:
      - {name: window, url: "http://window.example.com/open"}
    when: [{field: external.window.json.open, equals: "true"}]
operatorBox:
  onReconcile:
    configMaps: [{name: "cm-{{ spec.v }}"}]`);

  it('the enqueueGate decides with the scripted answer; the reconcileGate holds on closed and on a failed call', async () => {
    const reports = await simulate(
      katalog,
      `steps:
  - apply: ${cr('{v: a}')}
    context:
      external:
        freeze: {json: {frozen: "false"}}
        window: {json: {open: "true"}}
  - update: {spec: {v: b}}
    context:
      external:
        freeze: {json: {frozen: "false"}}
        window: {json: {open: "false"}}
  - update: {spec: {v: c}}
    context:
      external:
        freeze: {json: {frozen: "false"}}
        window: {ok: false, status: 503, error: "unavailable"}
  - update: {spec: {v: d}}
    context:
      external:
        freeze: {json: {frozen: "true"}}
        window: {json: {open: "true"}}
  - update: {spec: {v: e}}
    context:
      external:
        freeze: {json: {frozen: "true"}}
        window: {json: {open: "true"}}
`,
    );
    // The first event waits for the enqueueGate's answer, which passes it: the CR is queued.
    expect(reports[0]?.notes).toContain(
      'enqueueGate passed the held event once its external calls answered: the CR is queued',
    );
    expect(reports[0]).toMatchObject({ applies: ['ConfigMap/cm-a'] });
    expect(reports[1]?.notes).toContain(
      'reconcileGate held the reconcile: Gated=True, nothing else is written',
    );
    expect(reports[1]).toMatchObject({ applies: [], prunes: [] });
    // failPolicy: closed — a failed call holds too, with the call's failure as the reason.
    const gated = (reports[2]?.status?.['conditions'] as { type: string; message: string }[]).find(
      (c) => c.type === 'Gated',
    );
    expect(gated?.message).toMatch(/^reconcileGate: external call failed \(failPolicy: closed\)/);
    // The informer never waits: an event is decided with the answer the gate has (not frozen), and
    // the call is made again; the next event is decided with the new answer (frozen) and held.
    expect(reports[3]).toMatchObject({ applies: ['ConfigMap/cm-d'] });
    expect(reports[4]?.notes).toContain(
      'enqueueGate held the event: the CR is not queued (nothing is written)',
    );
    expect(reports[4]).toMatchObject({ applies: [], prunes: [] });
  });
});

describe('ork simulate: a held reconcile notifies (ADR 0070)', () => {
  const head = `  notification:
    teams:
      ops: {email: [ops@example.com]}
`;
  const katalog = katalogFrom(
    `preReconcile:
  reconcileGate:
    external:
      - {name: window, url: "http://window.example.com/open"}
    when:
      - field: external.window.json.open
        equals: "true"
        notify: {teams: [ops], message: '{{ .metadata.name }} held: {{ .gate.message }}'}
operatorBox:
  onReconcile:
    configMaps: [{name: "cm-{{ spec.v }}"}]`,
    head,
  );

  it('tells the team of the condition that held the CR, and nothing when the gate passes', async () => {
    const reports = await simulate(
      katalog,
      `steps:
  - apply: ${cr('{v: a}')}
    context: {external: {window: {json: {open: "true"}}}}
  - update: {spec: {v: b}}
    context: {external: {window: {json: {open: "false"}}}}
`,
    );
    expect(reports[0]?.notifications).toEqual([]);
    expect(reports[1]?.notifications).toEqual([
      expect.objectContaining({ team: 'ops', text: expect.stringMatching(/^shop held: when\[0\]/) }),
    ]);
  });
});
