import { describe, expect, it } from 'vitest';
import { clientOf, clientWindow, countByClient } from './audit-log.js';

const event = (
  auditID: string,
  stage: string,
  verb: string,
  userAgent: string,
  resource: string,
  apiGroup = '',
) => JSON.stringify({ auditID, stage, verb, userAgent, objectRef: { resource, apiGroup } });

describe('clientOf', () => {
  it('takes the product name of the user agent', () => {
    expect(clientOf('kro/v0.9.4 (linux/amd64) kubernetes/abc')).toBe('kro');
    expect(clientOf('node-fetch')).toBe('node-fetch');
    expect(clientOf(undefined)).toBe('unknown');
  });
});

describe('countByClient', () => {
  it('counts each request once whatever stages it logged, by client and request', () => {
    const text = [
      event('a', 'ResponseStarted', 'watch', 'kro/v1 x', 'configmaps'),
      event('a', 'ResponseComplete', 'watch', 'kro/v1 x', 'configmaps'),
      event('b', 'ResponseComplete', 'list', 'kro/v1 x', 'configmaps'),
      event('c', 'ResponseComplete', 'list', 'node-fetch', 'deployments', 'apps'),
      'not json',
      '',
    ].join('\n');
    expect(countByClient(text)).toEqual([
      { client: 'kro', total: 2, byRequest: { 'LIST /configmaps': 1, 'WATCH /configmaps': 1 } },
      { client: 'node-fetch', total: 1, byRequest: { 'LIST apps/deployments': 1 } },
    ]);
  });
});

describe('clientWindow', () => {
  it("splits one client's requests from its Lease requests and watches", () => {
    const text = [
      event('a', 'ResponseComplete', 'get', 'orkestra-operator/1.0 (bench)', 'leases', 'coordination.k8s.io'),
      event(
        'b',
        'ResponseComplete',
        'patch',
        'orkestra-operator/1.0 (bench)',
        'leases',
        'coordination.k8s.io',
      ),
      event('c', 'ResponseStarted', 'watch', 'orkestra-operator/1.0 (bench)', 'configmaps'),
      event('d', 'ResponseComplete', 'get', 'orkestra-operator/1.0 (bench)', 'configmaps'),
      event('e', 'ResponseComplete', 'get', 'orkestra/1.0', 'configmaps'),
    ].join('\n');
    expect(clientWindow(countByClient(text), 'orkestra-operator')).toEqual({
      requests: 1,
      leases: 2,
      watches: 1,
      byRequest: { 'GET /configmaps': 1 },
    });
    expect(clientWindow(countByClient(text), 'nobody')).toEqual({
      requests: 0,
      leases: 0,
      watches: 0,
      byRequest: {},
    });
  });
});
