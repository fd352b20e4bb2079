import { describe, expect, it } from 'vitest';
import type { DesiredChild } from '../desired-set.js';
import { rotationEntry, tlsRequestOf } from './secrets.js';

function secret(rendered: Record<string, unknown>): DesiredChild {
  return {
    ref: { apiVersion: 'v1', kind: 'Secret', name: 'tls', namespace: 'web' },
    rendered,
  } as unknown as DesiredChild;
}

describe('rotationEntry', () => {
  it('reads rotateAfter and tls.validFor, treating empty strings as absent', () => {
    expect(rotationEntry({})).toEqual({});
    expect(rotationEntry({ rotateAfter: '720h' })).toEqual({ rotateAfter: '720h' });
    expect(rotationEntry({ rotateAfter: '', tls: {} })).toEqual({ tls: {} });
    expect(rotationEntry({ tls: { validFor: '24h' } })).toEqual({ tls: { validFor: '24h' } });
  });
});

describe('tlsRequestOf', () => {
  it('defaults the common name to the Service DNS name and keeps the declared SANs in string form', () => {
    expect(tlsRequestOf(secret({}))).toBeUndefined();
    const request = tlsRequestOf(secret({ tls: { dnsNames: ['a.example.com', 7], validFor: '48h' } }));
    expect(request?.commonName).toBe('tls.web.svc');
    expect(request?.dnsNames).toEqual(['a.example.com', '7']);
    expect(request?.validForMs).toBe(48 * 3600_000);
    expect(tlsRequestOf(secret({ tls: { commonName: 'x.example.com' } }))?.commonName).toBe('x.example.com');
  });
});
