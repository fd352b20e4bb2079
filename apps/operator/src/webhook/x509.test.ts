import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueCertificate } from './x509.js';

const now = new Date('2026-12-05T00:00:00Z');
const serial = Buffer.alloc(16, 7);

describe('issueCertificate (node:crypto only)', () => {
  const ca = issueCertificate({
    commonName: 'orkestra-webhook-ca',
    now,
    validForMs: 365 * 86_400_000,
    serial,
  });
  const leaf = issueCertificate({
    commonName: 'orkestra-webhook',
    now,
    validForMs: 30 * 86_400_000,
    serial,
    hosts: ['orkestra.orkestra-system.svc', '127.0.0.1', '::1'],
    issuer: { ...ca, commonName: 'orkestra-webhook-ca' },
  });

  it('issues a self-signed CA that X509Certificate reads as a CA', () => {
    const cert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe('CN=orkestra-webhook-ca');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(new Date(cert.validTo).getTime()).toBe(now.getTime() + 365 * 86_400_000);
  });

  it('issues a serving certificate the CA signed, for its DNS names and IP addresses', () => {
    const cert = new X509Certificate(leaf.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkHost('orkestra.orkestra-system.svc')).toBe('orkestra.orkestra-system.svc');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkHost('other.example.com')).toBeUndefined();
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });
});
