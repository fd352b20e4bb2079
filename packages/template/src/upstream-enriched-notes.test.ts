import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from './template-engine.js';

/**
 * Upstream's notes over enriched children (docs/reference/katalog.md §17.6.2): `_pods` on a Job
 * and `_endpoints` on a Service, in the shapes the runtime adds; empty and absent inputs included.
 */

const engine = createTemplateEngine();
const render = (source: string, children: Record<string, unknown>): string =>
  String(engine.renderTemplate(source, { metadata: { name: 'p' }, spec: {}, children } as never));

const job = {
  kind: 'Job',
  metadata: { name: 'p-probe' },
  _pods: [
    { name: 'p-probe-a', phase: 'Failed', exitCode: 3 },
    { name: 'p-probe-b', phase: 'Succeeded', exitCode: 0 },
    { name: 'p-probe-c', phase: 'Running', exitCode: -1 },
    { name: 'p-probe-d', phase: 'Pending', exitCode: -1 },
  ],
};
const service = {
  kind: 'Service',
  metadata: { name: 'p-svc' },
  _endpoints: [
    { ip: '10.0.0.1', port: 8080, ready: false },
    { ip: '10.0.0.2', port: 8080, ready: true },
    { ip: '', port: 8080, ready: true },
  ],
};
const bare = {
  job: { kind: 'Job', metadata: { name: 'x' } },
  service: { kind: 'Service', metadata: { name: 'y' } },
};
const empty = { job: { ...job, _pods: [] }, service: { ...service, _endpoints: [] } };

describe('job pod notes (enrich: [pods])', () => {
  it('jobFirstExitCode is the first terminated pod’s code, -1 before any', () => {
    expect(render('{{ jobFirstExitCode .children.job }}', { job })).toBe('3');
    expect(render('{{ jobFirstExitCode .children.job }}', empty)).toBe('-1');
    expect(render('{{ jobFirstExitCode .children.job }}', bare)).toBe('-1');
    expect(render('{{ jobFirstExitCode .children.job }}', {})).toBe('-1');
  });

  it('pod names by phase, comma-joined; active is neither Succeeded nor Failed', () => {
    expect(render('{{ jobActivePodNames .children.job }}', { job })).toBe('p-probe-c, p-probe-d');
    expect(render('{{ jobSucceededPodNames .children.job }}', { job })).toBe('p-probe-b');
    expect(render('{{ jobFailedPodNames .children.job }}', { job })).toBe('p-probe-a');
    for (const children of [empty, bare, {}]) {
      expect(render('{{ jobActivePodNames .children.job }}', children)).toBe('');
      expect(render('{{ jobSucceededPodNames .children.job }}', children)).toBe('');
      expect(render('{{ jobFailedPodNames .children.job }}', children)).toBe('');
    }
  });
});

describe('service endpoint notes (enrich: [endpoints])', () => {
  it('hasEndpoints is true only with a ready endpoint', () => {
    expect(render('{{ hasEndpoints .children.service }}', { service })).toBe('true');
    expect(
      render('{{ hasEndpoints .children.service }}', {
        service: { ...service, _endpoints: [{ ip: '10.0.0.1', port: 80, ready: false }] },
      }),
    ).toBe('false');
    for (const children of [empty, bare, {}])
      expect(render('{{ hasEndpoints .children.service }}', children)).toBe('false');
  });

  it('count counts every endpoint; the list and the first skip none but addressless ones', () => {
    expect(render('{{ serviceEndpointCount .children.service }}', { service })).toBe('3');
    expect(render('{{ serviceEndpoints .children.service }}', { service })).toBe(
      '10.0.0.1:8080, 10.0.0.2:8080',
    );
    expect(render('{{ serviceFirstEndpoint .children.service }}', { service })).toBe('10.0.0.1:8080');
    for (const children of [empty, bare, {}]) {
      expect(render('{{ serviceEndpointCount .children.service }}', children)).toBe('0');
      expect(render('{{ serviceEndpoints .children.service }}', children)).toBe('');
      expect(render('{{ serviceFirstEndpoint .children.service }}', children)).toBe('');
    }
  });
});

describe('joinList', () => {
  it('is refused with a hint that renders the same join', () => {
    expect(() => render('{{ joinList .spec.regions "," }}', {})).toThrow(/join \.spec\.regions ","/);
    expect(
      String(
        engine.renderTemplate('{{ join .spec.regions "," }}', { spec: { regions: ['a', 'b'] } } as never),
      ),
    ).toBe('a,b');
  });
});

describe('notes over enrichment Orkestra does not add', () => {
  it.each([
    'warningCount',
    'warningMessages',
    'warningReasons',
    'podNodeName',
    'podOOMKilledDetected',
    'statefulSetPVCCount',
    'replicaSetOwnerName',
  ])('%s is refused naming the enrichment and the workload-status notes to use', (name) => {
    expect(() => render(`{{ ${name} .children.app }}`, {})).toThrow(
      /objects that `enrich` adds to a child which Orkestra does not add/,
    );
  });
});
