import { describe, expect, it } from 'vitest';
import { RemoteAnswerError, managedKinds, parseRemoteAnswer } from './answer.js';

const managed = managedKinds([
  { group: 'apps', plural: 'deployments' },
  { group: '', plural: 'services' },
  { group: 'db.example.com', plural: 'databases', version: 'v1', kind: 'Database' },
]);

describe('parseRemoteAnswer', () => {
  it('turns intent resources into entries of their kind list, validated by the kind schema', () => {
    const answer = parseRemoteAnswer(
      {
        result: 'ok',
        status: { phase: 'Ready' },
        resources: [
          { type: 'deployment', fields: { name: 'web', image: 'nginx:1', replicas: 2 } },
          { type: 'service', fields: { name: 'web-svc', port: 80, targetPort: 8080 } },
        ],
      },
      managed,
    );
    expect(answer.resources.map((r) => [r.listKey, r.entry['name']])).toEqual([
      ['deployments', 'web'],
      ['services', 'web-svc'],
    ]);
    expect(answer.resources[0]?.entry['replicas']).toBe(2);
    expect(answer).toMatchObject({ result: 'ok', status: { phase: 'Ready' }, writesStatus: true });
  });

  it('takes full objects of managed kinds as custom entries', () => {
    const answer = parseRemoteAnswer(
      {
        result: 'requeue',
        requeueAfter: '60s',
        resources: [
          {
            apiVersion: 'db.example.com/v1',
            kind: 'Database',
            metadata: { name: 'orders' },
            spec: { size: 1 },
          },
          { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: {} },
        ],
      },
      managed,
    );
    expect(answer.resources.map((r) => r.listKey)).toEqual(['custom', 'custom']);
    expect(answer).toMatchObject({ result: 'requeue', requeueAfter: '60s', writesStatus: false });
  });

  it.each([
    [{ resources: [{ type: 'configmap', fields: { name: 'x' } }] }, 'ConfigMap is not in managedResources'],
    [
      { resources: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'x' } }] },
      'apps/StatefulSet is not in managedResources',
    ],
    [{ result: 'done' }, 'result must be ok, requeue or error'],
    [{ requeueAfter: 'soon' }, 'is not a duration'],
    [{ status: 'Ready' }, 'status must be a map'],
    [[1, 2], 'not a JSON object'],
    [
      { resources: [{ type: 'secret', fields: { name: 's', copyFrom: { name: 'root' } } }] },
      'cannot copy Secrets',
    ],
    [
      { resources: [{ type: 'configmap', fields: { name: 'c', copyFrom: { name: 'root' } } }] },
      'fields.copyFrom: a remote reconciler cannot copy Secrets or ConfigMaps',
    ],
    [
      { resources: [{ type: 'deployment', fields: { name: 'web', replicas: 'many' } }] },
      'resources[0].fields',
    ],
  ])('refuses %j', (answer, message) => {
    expect(() => parseRemoteAnswer(answer, managed)).toThrow(RemoteAnswerError);
    expect(() => parseRemoteAnswer(answer, managed)).toThrow(message);
  });
});
