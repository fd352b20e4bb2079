/**
 * TLS material for Secrets with `tls` (docs/reference/katalog.md §7.2, docs/reference/runtime.md §14.1): a fresh self-signed CA
 * and a server certificate signed by it, generated with WebCrypto through `@peculiar/x509`.
 */
import { isIP } from 'node:net';
import { randomBytes, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import type { Clock } from '../clock.js';

/** TLS_CA_COMMON_NAME is the common name of every generated CA. */
const TLS_CA_COMMON_NAME = 'orkestra-ca';
/** TLS_CA_ORGANIZATION is the organization of every generated CA. */
const TLS_CA_ORGANIZATION = 'orkestra';
/** TLS_NOT_BEFORE_SKEW_MS backdates both certificates so that slightly slow clocks accept them (5 min). */
const TLS_NOT_BEFORE_SKEW_MS = 5 * 60_000;
/** TLS_CA_EXTRA_VALIDITY_MS is how much longer the CA is valid than the leaf (1 d). */
const TLS_CA_EXTRA_VALIDITY_MS = 86_400_000;

/** TlsMaterialRequest is a rendered `tls` block. */
export interface TlsMaterialRequest {
  /** Subject common name of the server certificate. */
  readonly commonName: string;
  /**
   * Subject alternative names; an entry that is an IPv4 or IPv6 address becomes an IP SAN, others
   * DNS SANs. Empty entries and duplicates are dropped; an empty list means `[commonName]`.
   */
  readonly dnsNames?: readonly string[] | undefined;
  /** Validity of the server certificate in milliseconds (must be positive); the CA gets one day more. */
  readonly validForMs: number;
  /** Subject organization of the server certificate. Default `orkestra`. */
  readonly organization?: string | undefined;
}

/** TlsMaterialOptions injects time and randomness. */
export interface TlsMaterialOptions {
  /** Wall-clock source: `clock.now()` is read as milliseconds since the Unix epoch. */
  readonly clock: Pick<Clock, 'now'>;
  /** Source of serial-number bytes; default `crypto.randomBytes`. Key generation always uses WebCrypto. */
  readonly random?: ((size: number) => Uint8Array) | undefined;
}

/** TlsMaterial is the data of a `kubernetes.io/tls` Secret, as PEM text (not yet base64-encoded). */
export interface TlsMaterial {
  /** The server certificate. */
  readonly 'tls.crt': string;
  /** The server certificate's private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). */
  readonly 'tls.key': string;
  /** The CA certificate that signed `tls.crt`. */
  readonly 'ca.crt': string;
}

type X509Module = typeof X509;

let x509Module: Promise<X509Module> | undefined;

/**
 * loadX509 loads `@peculiar/x509` on first use. The library needs the `Reflect` metadata API
 * (through tsyringe), so `reflect-metadata` is loaded first; loading both lazily keeps that global
 * polyfill out of processes that never generate TLS material.
 */
function loadX509(): Promise<X509Module> {
  x509Module ??= (async () => {
    await import('reflect-metadata');
    return import('@peculiar/x509');
  })();
  return x509Module;
}

const RSA_KEY: webcrypto.RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};
const SIGNING = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/** sanEntries turns the requested names into subject alternative names (see TlsMaterialRequest.dnsNames). */
export function sanEntries(
  commonName: string,
  dnsNames: readonly string[] | undefined,
): { type: 'dns' | 'ip'; value: string }[] {
  const names = [...new Set((dnsNames ?? []).map((name) => name.trim()).filter((name) => name !== ''))];
  if (names.length === 0 && commonName.trim() !== '') names.push(commonName.trim());
  return names.map((value) => ({ type: isIP(value) === 0 ? 'dns' : 'ip', value }));
}

function serialNumber(random: (size: number) => Uint8Array): string {
  const bytes = random(16);
  if (bytes.length !== 16) throw new RangeError(`random source returned ${bytes.length} bytes, expected 16`);
  // A serial must be positive and non-zero; @peculiar/x509 adds the sign byte where needed.
  if (bytes.every((byte) => byte === 0)) bytes[15] = 1;
  return Buffer.from(bytes).toString('hex');
}

/**
 * generateTlsMaterial creates a new CA and a server certificate signed by it (docs/reference/runtime.md §14.1):
 *
 * - CA: CN `orkestra-ca`, O `orkestra`, RSA 2048, SHA-256, basic constraints `CA:true` (critical),
 *   key usage keyCertSign + cRLSign + digitalSignature, valid from now − 5 min for
 *   `validForMs` + 1 d;
 * - server certificate: CN `commonName`, O `organization`, RSA 2048, SHA-256, SANs from
 *   `dnsNames` (DNS or IP), extended key usage serverAuth, key usage digitalSignature +
 *   keyEncipherment, `CA:false`, valid from now − 5 min to now + `validForMs`;
 * - random 128-bit serial numbers; the key as PKCS#8 PEM.
 *
 * Keys are generated with WebCrypto, off the event loop. Every call creates a new CA.
 *
 * @example
 * const data = await generateTlsMaterial(
 *   { commonName: 'web.shop.svc', dnsNames: ['web.shop.svc', 'web'], validForMs: 365 * 86_400_000 },
 *   { clock: systemClock },
 * );
 * data['tls.crt']; // '-----BEGIN CERTIFICATE-----\n…'
 */
export async function generateTlsMaterial(
  request: TlsMaterialRequest,
  options: TlsMaterialOptions,
): Promise<TlsMaterial> {
  if (!Number.isFinite(request.validForMs) || request.validForMs <= 0) {
    throw new RangeError(`validForMs must be a positive number of milliseconds, got ${request.validForMs}`);
  }
  const x509 = await loadX509();
  const crypto = webcrypto;
  const random = options.random ?? ((size: number) => new Uint8Array(randomBytes(size)));
  const now = options.clock.now();
  const notBefore = new Date(now - TLS_NOT_BEFORE_SKEW_MS);

  const [caKeys, leafKeys] = await Promise.all([
    crypto.subtle.generateKey(RSA_KEY, true, ['sign', 'verify']),
    crypto.subtle.generateKey(RSA_KEY, true, ['sign', 'verify']),
  ]);

  const caName: X509.JsonName = [{ CN: [TLS_CA_COMMON_NAME] }, { O: [TLS_CA_ORGANIZATION] }];
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serialNumber(random),
      name: caName,
      notBefore,
      notAfter: new Date(now + request.validForMs + TLS_CA_EXTRA_VALIDITY_MS),
      keys: caKeys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const subject: X509.JsonName = [
    { CN: [request.commonName] },
    { O: [request.organization ?? TLS_CA_ORGANIZATION] },
  ];
  const sans = sanEntries(request.commonName, request.dnsNames);
  const leaf = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(random),
      subject,
      issuer: ca.subjectName,
      notBefore,
      notAfter: new Date(now + request.validForMs),
      publicKey: leafKeys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
        ...(sans.length === 0 ? [] : [new x509.SubjectAlternativeNameExtension(sans, false)]),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const pkcs8 = await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey);
  return {
    'tls.crt': `${leaf.toString('pem')}\n`,
    'tls.key': `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n`,
    'ca.crt': `${ca.toString('pem')}\n`,
  };
}
