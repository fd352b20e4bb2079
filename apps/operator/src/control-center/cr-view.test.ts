import { describe, expect, it } from 'vitest';
import { REDACTED, crSummary, redact } from './cr-view.js';

describe('redact', () => {
  it('replaces every value whose key looks like a secret, at any depth', () => {
    expect(
      redact({
        bucket: 'b1',
        password: 'hunter2',
        nested: { accessKey: 'AKIA…', list: [{ token: 't', host: 'h' }], tlsCert: 'pem' },
      }),
    ).toEqual({
      bucket: 'b1',
      password: REDACTED,
      nested: { accessKey: REDACTED, list: [{ token: REDACTED, host: 'h' }], tlsCert: REDACTED },
    });
  });
});

describe('crSummary', () => {
  it('reads Synced, Ready, the revision and the deletion mark from a cached CR', () => {
    const summary = crSummary({
      apiVersion: 'demo.example.com/v1alpha1',
      kind: 'Website',
      metadata: { name: 'hello', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' },
      status: {
        katalogRevision: 'r3',
        conditions: [
          { type: 'Synced', status: 'True', reason: 'ReconcileSucceeded', message: '' },
          {
            type: 'Ready',
            status: 'False',
            reason: 'ChildNotReady',
            message: 'Deployment hello-web: 0/2 available',
          },
        ],
      },
    });
    expect(summary).toEqual({
      namespace: 'default',
      name: 'hello',
      uid: 'u1',
      created: '2026-01-01T00:00:00Z',
      synced: { status: 'True', reason: 'ReconcileSucceeded', message: '' },
      ready: { status: 'False', reason: 'ChildNotReady', message: 'Deployment hello-web: 0/2 available' },
      revision: 'r3',
      deleting: false,
    });
  });
});
