/**
 * The SMTP client of team notifications (docs/reference/katalog.md §15.4, ADR 0060). It lives in
 * its own package so the operator loads `nodemailer` only when a Katalog declares an SMTP server.
 * `sendMail` connects to the address the caller's address guard checked (`host`), with a timeout on
 * the connection, the greeting and every reply, sends one message to each recipient in its own
 * transaction (no recipient sees the others) and closes the connection. A failure of the connection,
 * the greeting or the login ends the send (the other recipients are not tried: each would wait for
 * the same timeout). No error carries the password.
 */
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import type { PeerCertificate } from 'node:tls';
import { createTransport } from 'nodemailer';

/** SmtpTarget is where to connect: `host` is the address the caller's guard checked. */
export interface SmtpTarget {
  /** The checked IP address (or the host name when the guard is off). */
  readonly host: string;
  /** The host name as written, for the TLS server name check. */
  readonly serverName: string;
  readonly port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  readonly secure: boolean;
  /**
   * With `secure: false`: refuse a server that does not offer STARTTLS (or fails it) before
   * anything else is sent, instead of going on in plain text. Default false (upstream's behaviour).
   */
  readonly requireTLS?: boolean | undefined;
  /**
   * PEM certificates of the CAs the server's certificate must chain to, instead of Node's
   * built-in roots. The certificate is always verified, and must name `serverName`.
   */
  readonly ca?: string | undefined;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  /** For connecting, the greeting and each reply. */
  readonly timeoutMs: number;
}

/** SmtpMessage is one plain-text message. */
export interface SmtpMessage {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
  /** Extra headers such as `X-Orkestra-Team`. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** SmtpSendError is a failed send; the message never holds the password. */
export class SmtpSendError extends Error {
  override readonly name = 'SmtpSendError';
  readonly code = 'SmtpSendFailed';
  /** Recipients the server did not accept, or every recipient when the server was not reached. */
  readonly failed: readonly string[];

  constructor(message: string, failed: readonly string[]) {
    super(message);
    this.failed = failed;
  }
}

/**
 * sendMail sends `message` to each recipient in its own SMTP transaction over one connection.
 * Resolves when every recipient was accepted; rejects with an SmtpSendError naming the ones that
 * were not.
 *
 * @example
 * await sendMail({ host: '10.0.0.9', serverName: 'smtp.example.com', port: 587, secure: false, timeoutMs: 10_000 },
 *   { from: 'ork@example.com', to: ['ops@example.com'], subject: 'site down', text: 'web is down' });
 */
export async function sendMail(target: SmtpTarget, message: SmtpMessage): Promise<void> {
  const transport = createTransport({
    host: target.host,
    port: target.port,
    secure: target.secure,
    ...(target.user == null ? {} : { auth: { user: target.user, pass: target.password ?? '' } }),
    requireTLS: target.requireTLS === true,
    tls: {
      // An IP address is no SNI name (RFC 6066); the certificate is still checked against it.
      ...(isIP(target.serverName) === 0 ? { servername: target.serverName } : {}),
      rejectUnauthorized: true,
      checkServerIdentity: (_host: string, cert: PeerCertificate) =>
        checkServerIdentity(target.serverName, cert),
      ...(target.ca == null ? {} : { ca: target.ca }),
    },
    connectionTimeout: target.timeoutMs,
    greetingTimeout: target.timeoutMs,
    socketTimeout: target.timeoutMs,
    dnsTimeout: target.timeoutMs,
    pool: true,
    maxConnections: 1,
    logger: false,
    debug: false,
  });
  const failed: string[] = [];
  const problems: string[] = [];
  let notTried = 0;
  try {
    for (const [index, to] of message.to.entries()) {
      try {
        await transport.sendMail({
          from: message.from,
          to,
          subject: message.subject,
          text: message.text,
          ...(message.headers == null ? {} : { headers: { ...message.headers } }),
        });
      } catch (error) {
        failed.push(to);
        problems.push(scrub(explain(error, target), target.password));
        // A refused recipient or message leaves the session usable; anything else (no connection,
        // no greeting, a timeout, a failed login) would fail the same way for every other
        // recipient, one timeout each, so they are not tried.
        if (!RECIPIENT_ERRORS.has(errorCode(error))) {
          const rest = message.to.slice(index + 1);
          failed.push(...rest);
          notTried = rest.length;
          break;
        }
      }
    }
  } finally {
    transport.close();
  }
  if (failed.length > 0) {
    const skipped =
      notTried === 0 ? '' : ` (${notTried} more recipient${notTried === 1 ? '' : 's'} not tried)`;
    throw new SmtpSendError(
      `SMTP ${target.serverName}:${target.port}: ${problems[0] ?? 'failed'}${skipped}`,
      failed,
    );
  }
}

/** The client's codes for a refused envelope (a recipient, the sender) or message: the session goes on. */
const RECIPIENT_ERRORS = new Set(['EENVELOPE', 'EMESSAGE']);

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** Node's codes of a failed TLS handshake or certificate check (nodemailer keeps them as `originalCode`). */
const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|UNABLE_TO_|CERT_|SELF_SIGNED_|DEPTH_ZERO_|HOSTNAME_MISMATCH)/;

/**
 * explain says what failed: a TLS failure starts with `TLS:` and says what the certificate had to
 * be, or that `requireTLS` refused a server without STARTTLS.
 */
function explain(error: unknown, target: SmtpTarget): string {
  const text = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  const original = (error as { originalCode?: unknown } | null)?.originalCode;
  if (code === 'ETLS' && !target.secure && target.requireTLS === true && /STARTTLS/.test(text))
    return `TLS: the server did not start TLS (${text}); requireTLS refuses to go on in plain text`;
  if (code !== 'ETLS' && !(typeof original === 'string' && TLS_CODES.test(original))) return text;
  const trust = target.ca == null ? "Node's built-in roots" : 'the configured CA';
  return `TLS: ${text} (the server's certificate must chain to ${trust} and name ${target.serverName})`;
}

function scrub(text: string, password: string | undefined): string {
  return password == null || password === '' ? text : text.split(password).join('[redacted]');
}
