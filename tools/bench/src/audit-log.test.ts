import { describe, expect, it } from 'vitest';
import { clientOf, clientWindow, countByClient, shardWriters } from './audit-log.js';

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

describe('shardWriters', () => {
  const line = (id: string, verb: string, agent: string, name: string, resource = 'configmaps'): string =>
    JSON.stringify({
      auditID: id,
      stage: 'ResponseComplete',
      verb,
      userAgent: agent,
      objectRef: { resource, namespace: 'ns', name },
    });
  const a = 'orkestra-operator/0.1 (bench; shard a-1)';
  const b = 'orkestra-operator/0.1 (bench; shard b-2)';

  it('counts objects written by two shards, once per request, and ignores reads and other kinds', () => {
    const text = [
      line('1', 'create', a, 'x-config'),
      line('1', 'create', a, 'x-config'), // another stage of the same request
      line('2', 'patch', a, 'y-config'),
      line('3', 'patch', b, 'y-config'),
      line('4', 'get', b, 'x-config'),
      line('5', 'patch', b, 'x', 'benches'),
      line('6', 'patch', 'kubectl/v1', 'x-config'),
    ].join('\n');
    expect(shardWriters(text, ['configmaps'])).toEqual({ objects: 2, doubles: ['configmaps ns/y-config'] });
  });
});
