import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCertificateAuthority, issueCertificate } from './certificates.js';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { httpRequest } from './http-request.js';
import { startServerProcess } from './server-process.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** MailpitServerOptions configures {@link startMailpit}. */
export interface MailpitServerOptions extends FindBinaryOptions {
  /** Time Mailpit may take to be ready. Default 30 000 ms. */
  readonly startTimeoutMs?: number;
  /**
   * SMTP users (name to password): the server then refuses mail from a client that has not logged
   * in with AUTH PLAIN or LOGIN as one of them (over plain text on loopback unless `tls`). Default none:
   * any client may send.
   */
  readonly smtpUsers?: Readonly<Record<string, string>>;
  /** A regular expression (Go syntax) a recipient must match; others are refused at RCPT. Default any. */
  readonly allowedRecipients?: string;
  /**
   * TLS on the SMTP port with a certificate for `127.0.0.1` and `localhost` signed by a CA made for
   * this server (its certificate is {@link MailpitServer.caPem}): `starttls` offers STARTTLS and
   * refuses mail from a client that did not use it; `implicit` speaks TLS from the first byte (as on
   * port 465). Default none: plain text, STARTTLS not offered.
   */
  readonly tls?: 'starttls' | 'implicit';
}

/** MailpitAddress is a mailbox as Mailpit's API lists it. */
export interface MailpitAddress {
  readonly Name: string;
  readonly Address: string;
}

/** MailpitMessage is one received message, read through Mailpit's HTTP API. */
export interface MailpitMessage {
  readonly ID: string;
  readonly From: MailpitAddress;
  readonly To: readonly MailpitAddress[];
  readonly Subject: string;
  /** The plain-text body. */
  readonly Text: string;
  /** Every header, by name, as the message carried them. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
}

/** MailpitServer is a running Mailpit (a real SMTP server that keeps what it receives) on loopback. */
export interface MailpitServer {
  readonly host: '127.0.0.1';
  /** The SMTP port (plain text without `tls`; then STARTTLS is not offered). */
  readonly smtpPort: number;
  /** With `tls`: the PEM certificate of the CA that signed the server's certificate. */
  readonly caPem?: string;
  /** `http://127.0.0.1:<port>`, Mailpit's HTTP API. */
  readonly apiUrl: string;
  readonly pid: number;
  /** messages returns every message received so far, oldest first, with its text and headers. */
  messages(): Promise<MailpitMessage[]>;
  /** clear deletes every received message. */
  clear(): Promise<void>;
  /** stop terminates Mailpit and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startMailpit starts Mailpit on free loopback ports with its store in a temporary directory,
 * resolving once its HTTP API is ready. With `smtpUsers` the SMTP server requires AUTH; the
 * credentials reach it in its environment (`MP_SMTP_AUTH`), never on its command line. Built from
 * the Go module proxy by `pnpm testenv:build mailpit`.
 *
 * @example
 * const mail = await startMailpit({ smtpUsers: { ork: 'secret' } });
 * // send to 127.0.0.1:${mail.smtpPort}, then:
 * const [first] = await mail.messages();
 */
export async function startMailpit(options: MailpitServerOptions = {}): Promise<MailpitServer> {
  const bin = findBinary(ServerBinary.Mailpit, options).path;
  return await startServerProcess('orkestra-mailpit-', async (dir) => {
    const smtpPort = await freePort();
    const httpPort = await freePort();
    const apiUrl = `http://127.0.0.1:${httpPort}`;
    const users = Object.entries(options.smtpUsers ?? {});
    for (const [name, password] of users)
      if (!/^[A-Za-z0-9_.@-]+$/.test(name) || password === '' || /[\s:]/.test(password))
        throw new TestenvError(
          `mailpit SMTP user ${JSON.stringify(name)}: use letters, digits, _ . @ - and a password without spaces or colons`,
          { code: TestenvErrorCode.StartFailed },
        );
    const tls = options.tls == null ? [] : serverCertificate(dir, options.tls);
    return {
      server: {
        name: 'mailpit',
        command: bin,
        args: [
          '--smtp',
          `127.0.0.1:${smtpPort}`,
          '--listen',
          `127.0.0.1:${httpPort}`,
          '--database',
          join(dir, 'mailpit.db'),
          '--disable-version-check',
          '--quiet',
          // Without TLS, AUTH over plain text (loopback only); with TLS Mailpit refuses the flag.
          ...(users.length > 0 && options.tls == null ? ['--smtp-auth-allow-insecure'] : []),
          ...(options.allowedRecipients == null
            ? []
            : ['--smtp-allowed-recipients', options.allowedRecipients]),
          ...tls,
        ],
        // Mailpit reads its SMTP users from here ("name:password name2:password2").
        env: users.length > 0 ? { MP_SMTP_AUTH: users.map(([n, p]) => `${n}:${p}`).join(' ') } : {},
        timeoutMs: options.startTimeoutMs ?? 30_000,
        isReady: async () => (await httpRequest(`${apiUrl}/readyz`, { timeoutMs: 1000 })).status === 200,
      },
      value: () => ({
        host: '127.0.0.1' as const,
        smtpPort,
        apiUrl,
        ...(options.tls == null ? {} : { caPem: readFileSync(join(dir, 'ca.crt'), 'utf8') }),
        messages: async () => await readMessages(apiUrl),
        async clear() {
          const response = await httpRequest(`${apiUrl}/api/v1/messages`, { method: 'DELETE' });
          if (response.status !== 200) throw apiError('DELETE /api/v1/messages', response);
        },
      }),
    };
  });
}

/**
 * serverCertificate writes a CA (`ca.crt`) and a server certificate it signed (`smtp.crt`,
 * `smtp.key`) into `dir` and returns Mailpit's TLS flags for `mode`.
 */
function serverCertificate(dir: string, mode: 'starttls' | 'implicit'): string[] {
  const ca = createCertificateAuthority(dir);
  const pair = issueCertificate(ca, { commonName: 'localhost', usage: 'server' });
  const cert = join(dir, 'smtp.crt');
  const key = join(dir, 'smtp.key');
  writeFileSync(cert, pair.certPem);
  writeFileSync(key, pair.keyPem, { mode: 0o600 });
  return [
    '--smtp-tls-cert',
    cert,
    '--smtp-tls-key',
    key,
    mode === 'starttls' ? '--smtp-require-starttls' : '--smtp-require-tls',
  ];
}

interface ListedMessage {
  readonly ID: string;
}

/** readMessages lists the received messages (the API gives newest first) and reads each one. */
async function readMessages(apiUrl: string): Promise<MailpitMessage[]> {
  const list = await getJson<{ messages: ListedMessage[] }>(`${apiUrl}/api/v1/messages?limit=1000`);
  const out: MailpitMessage[] = [];
  for (const { ID } of [...list.messages].reverse()) {
    const message = await getJson<Omit<MailpitMessage, 'headers'>>(`${apiUrl}/api/v1/message/${ID}`);
    const headers = await getJson<Record<string, string[]>>(`${apiUrl}/api/v1/message/${ID}/headers`);
    out.push({
      ID: message.ID,
      From: message.From,
      To: message.To,
      Subject: message.Subject,
      Text: message.Text,
      headers,
    });
  }
  return out;
}

async function getJson<T>(url: string): Promise<T> {
  // A message is stored a moment after the SMTP reply; a 404 right then is retried briefly.
  for (let attempt = 0; ; attempt++) {
    const response = await httpRequest(url, { headers: { accept: 'application/json' } });
    if (response.status === 200) return JSON.parse(response.body) as T;
    if (response.status !== 404 || attempt >= 20) throw apiError(`GET ${new URL(url).pathname}`, response);
    await sleep(50);
  }
}

function apiError(what: string, response: { status: number; body: string }): TestenvError {
  return new TestenvError(`mailpit ${what}: HTTP ${response.status} ${response.body.slice(0, 200)}`, {
    code: TestenvErrorCode.RequestFailed,
  });
}
