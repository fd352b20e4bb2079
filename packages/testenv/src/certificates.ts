import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** CertificatePair is a PEM certificate and its PEM private key. */
export interface CertificatePair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** CertificateAuthority names the files of a CA that can sign certificates. */
export interface CertificateAuthority {
  /** Path of the PEM CA certificate. */
  readonly certPath: string;
  /** Path of the PEM CA private key. */
  readonly keyPath: string;
}

/** IssueCertificateOptions describes one certificate signed by a {@link CertificateAuthority}. */
export interface IssueCertificateOptions {
  /** Common name: the user name for client certificates. */
  readonly commonName: string;
  /** Organizations: the groups for client certificates. Default none. */
  readonly organizations?: readonly string[];
  /** `client` (clientAuth) or `server` (serverAuth with loopback SANs). Default `client`. */
  readonly usage?: 'client' | 'server';
  /** Validity in days. Default 7. */
  readonly days?: number;
}

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** escapeRdn escapes the characters `openssl -subj` treats specially. */
function escapeRdn(value: string): string {
  return value.replace(/[\\/+=]/g, (c) => `\\${c}`);
}

/**
 * subjectOf builds an `openssl -subj` string: one `/O=` per organization, then `/CN=`.
 * Kubernetes reads the CN as the user and each O as a group.
 */
export function subjectOf(commonName: string, organizations: readonly string[] = []): string {
  return `${organizations.map((o) => `/O=${escapeRdn(o)}`).join('')}/CN=${escapeRdn(commonName)}`;
}

/**
 * createCertificateAuthority writes a fresh EC P-256 CA (`ca.crt`, `ca.key`) into `dir` with the
 * openssl CLI and returns its paths.
 */
export function createCertificateAuthority(dir: string, days = 7): CertificateAuthority {
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-nodes',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      String(days),
      '-subj',
      '/CN=orkestra-testenv-ca',
    ],
    dir,
  );
  return { certPath: join(dir, 'ca.crt'), keyPath: join(dir, 'ca.key') };
}

/**
 * issueCertificate creates an EC P-256 key and a certificate signed by `ca` with the openssl CLI
 * (synchronously, a few tens of milliseconds) and returns both as PEM. Each call uses a random
 * serial, so parallel callers never share an openssl serial file.
 */
export function issueCertificate(
  ca: CertificateAuthority,
  options: IssueCertificateOptions,
): CertificatePair {
  const work = mkdtempSync(join(tmpdir(), 'orkestra-cert-'));
  try {
    const ext =
      options.usage === 'server'
        ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n'
        : 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n';
    writeFileSync(join(work, 'ext.cnf'), ext);
    openssl(
      [
        'req',
        '-new',
        '-nodes',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-keyout',
        'tls.key',
        '-out',
        'tls.csr',
        '-subj',
        subjectOf(options.commonName, options.organizations),
      ],
      work,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'tls.csr',
        '-CA',
        ca.certPath,
        '-CAkey',
        ca.keyPath,
        '-set_serial',
        `0x${randomBytes(12).toString('hex')}`,
        '-days',
        String(options.days ?? 7),
        '-extfile',
        'ext.cnf',
        '-out',
        'tls.crt',
      ],
      work,
    );
    return {
      certPem: readFileSync(join(work, 'tls.crt'), 'utf8'),
      keyPem: readFileSync(join(work, 'tls.key'), 'utf8'),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** createServiceAccountKeys writes an RSA 2048 signing key (`sa.key`) and its public key (`sa.pub`) into `dir`. */
export function createServiceAccountKeys(dir: string): {
  readonly keyPath: string;
  readonly publicKeyPath: string;
} {
  openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
  openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  return { keyPath: join(dir, 'sa.key'), publicKeyPath: join(dir, 'sa.pub') };
}
