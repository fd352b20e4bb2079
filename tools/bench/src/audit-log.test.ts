import { describe, expect, it } from 'vitest';
import { clientOf, countByClient } from './audit-log.js';

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
