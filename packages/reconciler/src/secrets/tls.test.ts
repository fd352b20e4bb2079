import { X509Certificate, createPrivateKey, createPublicKey, createSign, createVerify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { generateTlsMaterial, sanEntries } from './tls.js';
import type { TlsMaterial } from './tls.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-01T12:00:00Z');

function pemBlocks(text: string): string[] {
  return text.match(/-----BEGIN [A-Z ]+-----/g) ?? [];
}

describe('sanEntries', () => {
  it('classifies IPs, drops empty entries and duplicates', () => {
    expect(sanEntries('cn', ['a.svc', '', ' ', '10.0.0.1', 'a.svc', '::1'])).toEqual([
      { type: 'dns', value: 'a.svc' },
      { type: 'ip', value: '10.0.0.1' },
      { type: 'ip', value: '::1' },
    ]);
  });

  it('falls back to the common name', () => {
    expect(sanEntries('web.shop.svc', [])).toEqual([{ type: 'dns', value: 'web.shop.svc' }]);
    expect(sanEntries('web.shop.svc', undefined)).toEqual([{ type: 'dns', value: 'web.shop.svc' }]);
    expect(sanEntries('', [])).toEqual([]);
  });
});

describe('generateTlsMaterial', () => {
  let material: TlsMaterial;
  let leaf: X509Certificate;
  let ca: X509Certificate;
  const serials: Uint8Array[] = [];

  beforeAll(async () => {
    let counter = 0xf0;
    material = await generateTlsMaterial(
      {
        commonName: 'web.shop.svc',
        dnsNames: ['web.shop.svc', 'web', '10.1.2.3', '2001:db8::1'],
        validForMs: 30 * DAY,
        organization: 'shop-inc',
      },
      {
        clock: new ManualClock(NOW),
        random: (size) => {
          const bytes = new Uint8Array(size).fill(counter++);
          serials.push(bytes.slice());
          return bytes;
        },
      },
    );
    leaf = new X509Certificate(material['tls.crt']);
    ca = new X509Certificate(material['ca.crt']);
  }, 60_000);

  it('returns one PEM block per key, each ending in a newline', () => {
    expect(pemBlocks(material['tls.crt'])).toEqual(['-----BEGIN CERTIFICATE-----']);
    expect(pemBlocks(material['ca.crt'])).toEqual(['-----BEGIN CERTIFICATE-----']);
    expect(pemBlocks(material['tls.key'])).toEqual(['-----BEGIN PRIVATE KEY-----']);
    for (const pem of Object.values(material)) expect(pem.endsWith('-----\n')).toBe(true);
    expect(material['tls.crt'].endsWith('\n\n')).toBe(false);
  });

  it('signs the leaf with the CA', () => {
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
  });

  it('does not verify against another CA', async () => {
    const other = await generateTlsMaterial(
      { commonName: 'x', validForMs: DAY },
      { clock: new ManualClock(NOW) },
    );
    const otherCa = new X509Certificate(other['ca.crt']);
    expect(leaf.verify(otherCa.publicKey)).toBe(false);
    expect(other['ca.crt']).not.toBe(material['ca.crt']);
  }, 60_000);

  it('names the CA orkestra-ca / orkestra and the leaf after the request', () => {
    expect(ca.subject.split('\n')).toEqual(['CN=orkestra-ca', 'O=orkestra']);
    expect(ca.issuer).toBe(ca.subject);
    expect(leaf.subject.split('\n')).toEqual(['CN=web.shop.svc', 'O=shop-inc']);
    expect(leaf.issuer).toBe(ca.subject);
  });

  it('puts DNS and IP SANs on the leaf and matches hosts by them', () => {
    expect(leaf.subjectAltName).toBe(
      'DNS:web.shop.svc, DNS:web, IP Address:10.1.2.3, IP Address:2001:DB8:0:0:0:0:0:1',
    );
    expect(leaf.checkHost('web.shop.svc')).toBe('web.shop.svc');
    expect(leaf.checkHost('web')).toBe('web');
    expect(leaf.checkHost('other.shop.svc')).toBeUndefined();
    expect(leaf.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(leaf.checkIP('10.1.2.4')).toBeUndefined();
  });

  it('marks the leaf for server authentication', () => {
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('sets validity from the injected clock', () => {
    expect(new Date(ca.validFrom).getTime()).toBe(NOW - 5 * 60_000);
    expect(new Date(ca.validTo).getTime()).toBe(NOW + 31 * DAY);
    expect(new Date(leaf.validFrom).getTime()).toBe(NOW - 5 * 60_000);
    expect(new Date(leaf.validTo).getTime()).toBe(NOW + 30 * DAY);
  });

  it('uses 128-bit serial numbers from the random source', () => {
    expect(serials).toHaveLength(2);
    expect(ca.serialNumber).toBe(
      Buffer.from(serials[0] ?? [])
        .toString('hex')
        .toUpperCase(),
    );
    expect(leaf.serialNumber).toBe(
      Buffer.from(serials[1] ?? [])
        .toString('hex')
        .toUpperCase(),
    );
  });

  it('returns an RSA 2048 PKCS#8 key that matches the leaf', () => {
    const key = createPrivateKey(material['tls.key']);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(createPublicKey(key).export({ format: 'pem', type: 'spki' })).toBe(
      leaf.publicKey.export({ format: 'pem', type: 'spki' }),
    );
    const signature = createSign('sha256').update('hello').sign(key);
    expect(createVerify('sha256').update('hello').verify(leaf.publicKey, signature)).toBe(true);
    expect(ca.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('signs both certificates with SHA-256 RSA', async () => {
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    for (const pem of [material['tls.crt'], material['ca.crt']]) {
      const algorithm = new x509.X509Certificate(pem).signatureAlgorithm as {
        name: string;
        hash?: { name: string };
      };
      expect(algorithm.name).toBe('RSASSA-PKCS1-v1_5');
      expect(algorithm.hash?.name).toBe('SHA-256');
    }
  });

  it('rejects a non-positive validity', async () => {
    await expect(
      generateTlsMaterial({ commonName: 'x', validForMs: 0 }, { clock: new ManualClock(NOW) }),
    ).rejects.toThrow(RangeError);
  });
});
