import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * X.509 certificates for the operator's webhook endpoint (docs/reference/runtime.md §26, ADR 0057).
 * node:crypto parses certificates (`X509Certificate`) but cannot issue them, so this writes the
 * DER of a v3 certificate itself and signs it with `crypto.sign`: ECDSA P-256 with SHA-256, the
 * extensions a TLS client (the API server) checks — basicConstraints, keyUsage, extKeyUsage
 * serverAuth, subjectAltName, subject and authority key identifiers. No dependency, no process.
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const seq = (...items: Buffer[]): Buffer => tlv(0x30, ...items);

function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && ((b[1] ?? 0) & 0x80) === 0) b = b.subarray(1);
  return tlv(0x02, (b[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${iso}Z`));
}

const name = (commonName: string): Buffer =>
  seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

function keyId(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.concat(groups.map((g) => Buffer.from([parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff])));
}

/** IssuedCertificate is a PEM certificate and its PEM (PKCS#8) private key. */
export interface IssuedCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  readonly notAfter: Date;
}

/** IssueOptions describes one certificate. */
export interface IssueOptions {
  readonly commonName: string;
  /** Start of validity (the injected clock's now; backdated 5 minutes for clock skew). */
  readonly now: Date;
  readonly validForMs: number;
  /** 16 random bytes for the serial number (injected randomness). */
  readonly serial: Buffer;
  /** DNS names and IP addresses of a serving certificate; none for a CA. */
  readonly hosts?: readonly string[];
  /** The signing CA; without it the certificate is a self-signed CA. */
  readonly issuer?: { readonly certPem: string; readonly keyPem: string; readonly commonName: string };
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** issueCertificate issues a CA (no issuer) or a serving certificate signed by `issuer`. */
export function issueCertificate(options: IssueOptions): IssuedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const isCa = options.issuer == null;
  const signer: KeyObject = isCa ? privateKey : createPrivateKey(options.issuer.keyPem);
  const issuerSpki = isCa
    ? spki
    : createPublicKey(options.issuer.certPem).export({ type: 'spki', format: 'der' });
  const notBefore = new Date(options.now.getTime() - 5 * 60_000);
  const notAfter = new Date(options.now.getTime() + options.validForMs);
  const hosts = options.hosts ?? [];
  const sans = hosts.map((h) => (isIP(h) === 0 ? tlv(0x82, Buffer.from(h, 'ascii')) : tlv(0x87, ipBytes(h))));
  const extensions = [
    extension('2.5.29.19', true, isCa ? seq(tlv(0x01, Buffer.from([0xff]))) : seq()),
    // keyUsage: CA keyCertSign + cRLSign; leaf digitalSignature.
    extension(
      '2.5.29.15',
      true,
      isCa ? tlv(0x03, Buffer.from([0x01, 0x06])) : tlv(0x03, Buffer.from([0x07, 0x80])),
    ),
    extension('2.5.29.14', false, tlv(0x04, keyId(spki))),
    extension('2.5.29.35', false, seq(tlv(0x80, keyId(issuerSpki)))),
    ...(isCa ? [] : [extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1')))]),
    ...(sans.length === 0 ? [] : [extension('2.5.29.17', false, seq(...sans))]),
  ];
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(Buffer.concat([Buffer.from([0x01]), options.serial.subarray(0, 15)])),
    ECDSA_SHA256,
    name(isCa ? options.commonName : options.issuer.commonName),
    seq(time(notBefore), time(notAfter)),
    name(options.commonName),
    spki,
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: signer, dsaEncoding: 'der' });
  const der = seq(tbs, ECDSA_SHA256, tlv(0x03, Buffer.from([0]), signature));
  return {
    certPem: pem('CERTIFICATE', der),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    notAfter,
  };
}
