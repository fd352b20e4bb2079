import { randomBytes as nodeRandomBytes, X509Certificate } from 'node:crypto';
import { AlreadyExistsError, ConflictError, NotFoundError } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { issueCertificate } from './x509.js';

/**
 * The webhook endpoint's CA and serving certificate, kept in a Secret of the operator namespace
 * (docs/reference/runtime.md §26, ADR 0057). Every replica calls ensureWebhookTls: the first one
 * creates the Secret, the others read it (a lost create or update race reads the winner's).
 * Rotation starts when a third of a certificate's validity is left: a new CA joins the bundle
 * beside the old one (which stays trusted until it expires), so a caBundle patched from the
 * Secret always trusts whichever serving certificate a replica still presents.
 */

const CA_NAME = 'orkestra-webhook-ca';

/** WebhookTlsError is a webhook Secret that could not be settled (writers kept racing). */
class WebhookTlsError extends Error {
  override readonly name = 'WebhookTlsError';
  readonly code = 'WebhookTlsUnsettled';
}
const DAY = 86_400_000;

/** WebhookTls is what the HTTPS server and the caBundle patch need. */
export interface WebhookTls {
  /** PEM of every CA to trust (current first, then the previous one until it expires). */
  readonly caBundle: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly notAfter: Date;
}

/** WebhookTlsOptions configures ensureWebhookTls. */
export interface WebhookTlsOptions {
  readonly namespace: string;
  /** Default `orkestra-webhook-tls`. */
  readonly secretName?: string;
  /** DNS names and IP addresses the serving certificate covers (the Service's, or 127.0.0.1 for ork dev). */
  readonly hosts: readonly string[];
  /** Injected clock. */
  readonly now: () => Date;
  /** Injected randomness (serial numbers). */
  readonly randomBytes?: (n: number) => Buffer;
  /** Default 365 days. */
  readonly caValidForMs?: number;
  /** Default 30 days. */
  readonly certValidForMs?: number;
}

type Client = Pick<KubeClient, 'get' | 'create' | 'replace'>;

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function unb64(value: unknown): string {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

function splitPem(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g) ?? [];
}

function validity(pem: string): { from: number; to: number } {
  const cert = new X509Certificate(pem);
  return { from: new Date(cert.validFrom).getTime(), to: new Date(cert.validTo).getTime() };
}

/** due tells whether a certificate issued for `lifetime` has a third of it left, or less. */
function due(pem: string, now: number, lifetime: number): boolean {
  return now >= validity(pem).to - lifetime / 3;
}

function covers(pem: string, hosts: readonly string[]): boolean {
  const cert = new X509Certificate(pem);
  return hosts.every((h) => (/^[\d.]+$|:/.test(h) ? cert.checkIP(h) : cert.checkHost(h)) != null);
}

interface Stored {
  caCert: string;
  caKey: string;
  bundle: string[];
  cert: string;
  key: string;
}

function readSecret(secret: KubeObject): Stored | undefined {
  const data = (secret as { data?: Record<string, unknown> }).data ?? {};
  const bundle = splitPem(unb64(data['ca.crt']));
  const stored = {
    caCert: bundle[0] ?? '',
    caKey: unb64(data['ca.key']),
    bundle,
    cert: unb64(data['tls.crt']),
    key: unb64(data['tls.key']),
  };
  return stored.caCert === '' || stored.caKey === '' || stored.cert === '' || stored.key === ''
    ? undefined
    : stored;
}

function toTls(stored: Stored): WebhookTls {
  return {
    caBundle: stored.bundle.join(''),
    certPem: stored.cert,
    keyPem: stored.key,
    notAfter: new Date(validity(stored.cert).to),
  };
}

/** renew returns the next contents, or undefined when the stored ones are good. */
function renew(stored: Stored | undefined, options: WebhookTlsOptions): Stored | undefined {
  const now = options.now();
  const random = options.randomBytes ?? nodeRandomBytes;
  const t = now.getTime();
  const caLife = options.caValidForMs ?? 365 * DAY;
  const certLife = options.certValidForMs ?? 30 * DAY;
  let { caCert, caKey, bundle } = stored ?? { caCert: '', caKey: '', bundle: [] as string[] };
  let changed = false;
  if (stored == null || due(caCert, t, caLife)) {
    const ca = issueCertificate({
      commonName: CA_NAME,
      now,
      validForMs: caLife,
      serial: random(16),
    });
    caCert = ca.certPem;
    caKey = ca.keyPem;
    changed = true;
  }
  // The bundle: the current CA, then earlier ones until they expire.
  const nextBundle = [caCert, ...bundle.filter((pem) => pem !== caCert && validity(pem).to > t)];
  if (nextBundle.join('') !== bundle.join('')) changed = true;
  bundle = nextBundle;
  let cert = stored?.cert ?? '';
  let key = stored?.key ?? '';
  const signedByCurrent = cert !== '' && new X509Certificate(cert).checkIssued(new X509Certificate(caCert));
  if (!changed && signedByCurrent && !due(cert, t, certLife) && covers(cert, options.hosts)) return undefined;
  if (!signedByCurrent || due(cert, t, certLife) || !covers(cert, options.hosts)) {
    const leaf = issueCertificate({
      commonName: options.hosts[0] ?? 'orkestra-webhook',
      now,
      validForMs: certLife,
      serial: random(16),
      hosts: options.hosts,
      issuer: { certPem: caCert, keyPem: caKey, commonName: CA_NAME },
    });
    cert = leaf.certPem;
    key = leaf.keyPem;
  }
  return { caCert, caKey, bundle, cert, key };
}

function secretOf(options: WebhookTlsOptions, stored: Stored, resourceVersion?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: options.secretName ?? 'orkestra-webhook-tls',
      namespace: options.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'orkestra', 'app.kubernetes.io/component': 'webhook' },
      ...(resourceVersion == null ? {} : { resourceVersion }),
    },
    type: 'kubernetes.io/tls',
    data: {
      'ca.crt': b64(stored.bundle.join('')),
      'ca.key': b64(stored.caKey),
      'tls.crt': b64(stored.cert),
      'tls.key': b64(stored.key),
    },
  } as unknown as KubeObject;
}

/**
 * ensureWebhookTls reads the webhook Secret, creating or renewing its certificates when needed,
 * and returns what it holds afterwards (a replica that loses a write race returns the winner's).
 */
export async function ensureWebhookTls(client: Client, options: WebhookTlsOptions): Promise<WebhookTls> {
  const ref = {
    apiVersion: 'v1',
    kind: 'Secret',
    name: options.secretName ?? 'orkestra-webhook-tls',
    namespace: options.namespace,
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    let secret: KubeObject | undefined;
    try {
      secret = await client.get(ref);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    const stored = secret == null ? undefined : readSecret(secret);
    const next = renew(stored, options);
    if (next == null && stored != null) return toTls(stored);
    if (next == null) continue;
    try {
      if (secret == null) await client.create(secretOf(options, next));
      else await client.replace(secretOf(options, next, secret.metadata.resourceVersion));
      return toTls(next);
    } catch (error) {
      if (!(error instanceof AlreadyExistsError) && !(error instanceof ConflictError)) throw error;
      // Another replica wrote first: read its certificates.
    }
  }
  throw new WebhookTlsError(
    `cannot settle the webhook Secret ${options.namespace}/${ref.name} after 5 attempts`,
  );
}
