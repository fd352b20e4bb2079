/**
 * sendMail over TLS against real SMTP servers (Mailpit from `@orkestra/testenv` with a certificate
 * from a CA made for the test; docs/reference/katalog.md §15.4): STARTTLS and implicit TLS deliver
 * when the server's certificate chains to the CA the caller names and names the server; a server
 * whose certificate another CA signed is refused (nothing delivered, the error says
 * why, no password in it); with `requireTLS` a server that does not offer STARTTLS is refused
 * instead of being spoken to in plain text.
 */
import { useMailpit } from '@orkestra/testenv/vitest';
import { beforeEach, describe, expect, it } from 'vitest';
import { SmtpSendError, sendMail } from '../src/index.js';
import type { SmtpMessage, SmtpTarget } from '../src/index.js';

const PASSWORD = 'tls-pw-40917';
// Each TLS server has its own CA: one's CA does not trust the other's certificate.
const starttls = useMailpit({ tls: 'starttls', smtpUsers: { ork: PASSWORD } });
const implicit = useMailpit({ tls: 'implicit', smtpUsers: { ork: PASSWORD } });
const plain = useMailpit({ smtpUsers: { ork: PASSWORD } });

// The connection goes to the checked address; the certificate must name `serverName`.
const target = (port: number, over: Partial<SmtpTarget> = {}): SmtpTarget => ({
  host: '127.0.0.1',
  serverName: 'localhost',
  port,
  secure: false,
  user: 'ork',
  password: PASSWORD,
  timeoutMs: 10_000,
  ...over,
});
const message: SmtpMessage = {
  from: 'ork@example.com',
  to: ['ops@example.com'],
  subject: '[orkestra] rollout complete',
  text: 'over TLS',
};

async function failure(send: Promise<void>): Promise<SmtpSendError> {
  const error: unknown = await send.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SmtpSendError);
  const failed = error as SmtpSendError;
  expect(JSON.stringify({ message: failed.message, stack: failed.stack })).not.toContain(PASSWORD);
  return failed;
}

const ca = (server: () => { caPem?: string }): string => {
  const pem = server().caPem;
  if (pem == null) throw new Error('the server has no CA');
  return pem;
};

beforeEach(async () => {
  for (const server of [starttls, implicit, plain]) await server().clear();
});

describe('sendMail over TLS', () => {
  it('STARTTLS delivers with the named CA (the server refuses mail without STARTTLS)', async () => {
    await sendMail(target(starttls().smtpPort, { ca: ca(starttls), requireTLS: true }), message);
    const mails = await starttls().messages();
    expect(mails.map((m) => m.To[0]?.Address)).toEqual(['ops@example.com']);
    expect(mails[0]?.Text.trim()).toBe('over TLS');
  });

  it('implicit TLS (secure) delivers with the named CA', async () => {
    await sendMail(target(implicit().smtpPort, { secure: true, ca: ca(implicit) }), message);
    expect((await implicit().messages()).map((m) => m.To[0]?.Address)).toEqual(['ops@example.com']);
  });

  it('a certificate another CA signed is refused: nothing delivered, no password shown', async () => {
    for (const over of [
      { ca: ca(implicit) }, // the other server's CA
      {}, // Node's built-in roots
    ]) {
      const error = await failure(sendMail(target(starttls().smtpPort, over), message));
      expect(error.failed).toEqual(['ops@example.com']);
      expect(error.message).toMatch(/^SMTP localhost:\d+: TLS: .*certificate/i);
    }
    const secure = await failure(
      sendMail(target(implicit().smtpPort, { secure: true, ca: ca(starttls) }), message),
    );
    expect(secure.message).toMatch(/TLS: .*certificate/i);
    expect(await starttls().messages()).toEqual([]);
    expect(await implicit().messages()).toEqual([]);
  });

  it('a certificate that does not name the server is refused', async () => {
    const error = await failure(
      sendMail(target(starttls().smtpPort, { serverName: 'mail.example.com', ca: ca(starttls) }), message),
    );
    expect(error.message).toMatch(/TLS: .*mail\.example\.com/);
    expect(await starttls().messages()).toEqual([]);
  });

  it('with requireTLS a server that does not offer STARTTLS is refused', async () => {
    const error = await failure(
      sendMail(target(plain().smtpPort, { requireTLS: true, ca: ca(starttls) }), message),
    );
    expect(error.failed).toEqual(['ops@example.com']);
    expect(error.message).toMatch(/^SMTP localhost:\d+: TLS: .*STARTTLS.*requireTLS/);
    expect(await plain().messages()).toEqual([]);

    // The control: without requireTLS the same server takes the message in plain text.
    await sendMail(target(plain().smtpPort), message);
    expect((await plain().messages()).map((m) => m.To[0]?.Address)).toEqual(['ops@example.com']);
  });
});
