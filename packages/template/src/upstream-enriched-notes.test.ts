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

/** A `_pods` item in the runtime's shape (status/enrich-children.ts). */
const podItem = (
  name: string,
  ordinal: number,
  fields: Record<string, unknown>,
  containers: Record<string, unknown>[] = [],
): Record<string, unknown> => ({
  name,
  phase: 'Running',
  ip: '',
  node: '',
  ready: false,
  restartCount: 0,
  exitCode: -1,
  ordinal,
  containers,
  ...fields,
});
const statefulset = {
  kind: 'StatefulSet',
  metadata: { name: 'db' },
  _pods: [
    podItem('db-0', 0, { ip: '10.0.0.1', node: 'n1', ready: true }, [
      { name: 'app', state: 'Running', reason: '' },
      { name: 'sidecar', state: 'Waiting', reason: 'ImagePullBackOff' },
    ]),
    podItem('db-1', 1, { ip: '10.0.0.2', node: 'n2', ready: true, restartCount: 2 }, [
      { name: 'app', state: 'Terminated', reason: 'OOMKilled' },
    ]),
    podItem('db-2', 2, { phase: 'Pending' }, [{ name: 'app', state: 'Waiting', reason: 'ImagePullBackOff' }]),
  ],
};
const deployment = {
  kind: 'Deployment',
  metadata: { name: 'web' },
  _pods: [podItem('web-5f7c-a', -1, { ready: true, restartCount: 3 }), podItem('web-5f7c-b', -1, {})],
};
const none = {
  statefulset: { kind: 'StatefulSet', metadata: { name: 'db' } },
  deployment: { kind: 'Deployment', metadata: { name: 'web' }, _pods: [] },
};

describe('pod notes over Deployments, StatefulSets, ReplicaSets and Jobs (enrich: [pods])', () => {
  it('names, IPs, phases and nodes are joined by ", " in pod order, skipping empty values', () => {
    const r = (note: string): string => render(`{{ ${note} .children.statefulset }}`, { statefulset });
    expect(r('podNames')).toBe('db-0, db-1, db-2');
    expect(r('podIPs')).toBe('10.0.0.1, 10.0.0.2');
    expect(r('podPhases')).toBe('Running, Running, Pending');
    expect(r('podNodes')).toBe('n1, n2');
    expect(render('{{ podNames .children.job }}', { job })).toBe(
      'p-probe-a, p-probe-b, p-probe-c, p-probe-d',
    );
  });

  it('counts, ready counts and the highest restart count', () => {
    expect(render('{{ podCount .children.statefulset }}', { statefulset })).toBe('3');
    expect(render('{{ readyPodCount .children.statefulset }}', { statefulset })).toBe('2');
    expect(render('{{ podMaxRestarts .children.statefulset }}', { statefulset })).toBe('2');
    expect(render('{{ podMaxRestarts .children.deployment }}', { deployment })).toBe('3');
  });

  it('hasCrashingPod: more than two restarts, or a container with a failure reason', () => {
    expect(render('{{ hasCrashingPod .children.deployment }}', { deployment })).toBe('true');
    expect(render('{{ hasCrashingPod .children.statefulset }}', { statefulset })).toBe('true');
    const calm = { ...deployment, _pods: [podItem('web-a', -1, { restartCount: 2 })] };
    expect(render('{{ hasCrashingPod .children.deployment }}', { deployment: calm })).toBe('false');
  });

  it('one note per container reason, and the distinct reasons in first-seen order', () => {
    const r = (note: string): string => render(`{{ ${note} .children.statefulset }}`, { statefulset });
    expect(r('podImagePullBackOffDetected')).toBe('true');
    expect(r('podOOMKilledDetected')).toBe('true');
    expect(r('podCrashLoopDetected')).toBe('false');
    expect(r('podErrImagePullDetected')).toBe('false');
    expect(r('podContainerReasons')).toBe('ImagePullBackOff, OOMKilled');
  });

  it('podByOrdinal finds a StatefulSet member; podContainerState a container of it', () => {
    expect(render('{{ index (podByOrdinal .children.statefulset 1) "ip" }}', { statefulset })).toBe(
      '10.0.0.2',
    );
    expect(render('{{ (podByOrdinal .children.statefulset 0).name }}', { statefulset })).toBe('db-0');
    expect(render('{{ podContainerState .children.statefulset 0 "sidecar" }}', { statefulset })).toBe(
      'Waiting',
    );
    expect(render('{{ podContainerState .children.statefulset 1 "app" }}', { statefulset })).toBe(
      'Terminated',
    );
    expect(render('{{ podContainerState .children.statefulset 7 "app" }}', { statefulset })).toBe('');
    expect(render('{{ podContainerState .children.statefulset 0 "none" }}', { statefulset })).toBe('');
    // A Deployment's pods have no ordinal: -1 is not a member either.
    expect(render('{{ podContainerState .children.deployment -1 "c" }}', { deployment })).toBe('');
  });

  it('without enrichment every note gives its empty value', () => {
    for (const kind of ['statefulset', 'deployment', 'missing']) {
      const r = (note: string): string => render(`{{ ${note} .children.${kind} }}`, none);
      expect([r('podNames'), r('podIPs'), r('podPhases'), r('podNodes'), r('podContainerReasons')]).toEqual([
        '',
        '',
        '',
        '',
        '',
      ]);
      expect([r('podCount'), r('readyPodCount'), r('podMaxRestarts')]).toEqual(['0', '0', '0']);
      expect([r('hasCrashingPod'), r('podCrashLoopDetected')]).toEqual(['false', 'false']);
    }
  });
});
