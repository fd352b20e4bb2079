/**
 * sendMail against a real SMTP server (Mailpit from `@orkestra/testenv`, `pnpm testenv:build
 * mailpit`; docs/reference/katalog.md §15.4, ADR 0074): one open server and one that requires
 * AUTH. Each recipient gets the message in its own transaction; the right credential delivers, a
 * wrong one and none are refused without the password in the error; a paused server ends at the
 * timeout (once: the other recipients are not tried); a server that is down fails fast; the
 * connection goes to the checked address, never to a re-resolved name.
 */
import { pauseProcess } from '@orkestra/testenv';
import { useMailpit } from '@orkestra/testenv/vitest';
import { beforeEach, describe, expect, it } from 'vitest';
import { SmtpSendError, sendMail } from '../src/index.js';
import type { SmtpMessage, SmtpTarget } from '../src/index.js';

const PASSWORD = 'mail-pw-58213';
const WRONG = 'not-the-mail-pw';
const open = useMailpit();
const authed = useMailpit({ smtpUsers: { ork: PASSWORD }, allowedRecipients: '@example\\.com$' });

// serverName is never resolved: the connection goes to `host`, the address the caller checked.
const target = (port: number, over: Partial<SmtpTarget> = {}): SmtpTarget => ({
  host: '127.0.0.1',
  serverName: 'mail.unresolvable.invalid',
  port,
  secure: false,
  timeoutMs: 10_000,
  ...over,
});
const message: SmtpMessage = {
  from: 'ork@example.com',
  to: ['ops@example.com', 'oncall@example.com'],
  subject: '[orkestra] spec.state condition triggered',
  text: 'web is down',
  headers: { 'X-Orkestra-Team': 'ops' },
};

async function failure(send: Promise<void>): Promise<SmtpSendError> {
  const error: unknown = await send.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SmtpSendError);
  return error as SmtpSendError;
}

beforeEach(async () => {
  await open().clear();
  await authed().clear();
});

describe('sendMail to a real SMTP server', () => {
  it('delivers one message per recipient, each in its own transaction, with the headers', async () => {
    await sendMail(target(open().smtpPort), message);
    const mails = await open().messages();
    expect(mails.map((m) => m.To.map((t) => t.Address))).toEqual([
      ['ops@example.com'],
      ['oncall@example.com'],
    ]);
    for (const mail of mails) {
      expect(mail).toMatchObject({
        From: { Address: 'ork@example.com' },
        Subject: '[orkestra] spec.state condition triggered',
      });
      expect(mail.Text.trim()).toBe('web is down');
      expect(mail.headers['X-Orkestra-Team']).toEqual(['ops']);
    }
  });

  it('logs in with AUTH when the server requires it', async () => {
    await sendMail(target(authed().smtpPort, { user: 'ork', password: PASSWORD }), message);
    expect((await authed().messages()).map((m) => m.To[0]?.Address)).toEqual([
      'ops@example.com',
      'oncall@example.com',
    ]);
  });

  it('a refused recipient is named; the others still get the message', async () => {
    const error = await failure(
      sendMail(target(authed().smtpPort, { user: 'ork', password: PASSWORD }), {
        ...message,
        to: ['ops@example.com', 'x@elsewhere.test', 'oncall@example.com'],
      }),
    );
    expect(error.failed).toEqual(['x@elsewhere.test']);
    expect(error.message).not.toMatch(/not tried/);
    expect((await authed().messages()).map((m) => m.To[0]?.Address)).toEqual([
      'ops@example.com',
      'oncall@example.com',
    ]);
  });

  it('is refused with a wrong password and without one; no error shows a password', async () => {
    const wrong = await failure(
      sendMail(target(authed().smtpPort, { user: 'ork', password: WRONG }), message),
    );
    expect(wrong.code).toBe('SmtpSendFailed');
    expect(wrong.failed).toEqual(['ops@example.com', 'oncall@example.com']);
    expect(wrong.message).toMatch(/^SMTP mail\.unresolvable\.invalid:\d+: .*\(1 more recipient not tried\)$/);
    expect(JSON.stringify({ message: wrong.message, stack: wrong.stack })).not.toContain(WRONG);

    const none = await failure(sendMail(target(authed().smtpPort), message));
    expect(none.failed).toEqual(['ops@example.com', 'oncall@example.com']);
    expect(await authed().messages()).toEqual([]);
  });

  it('a paused server ends at the timeout, not later, and nothing is delivered', async () => {
    const resume = await pauseProcess(open().pid);
    try {
      const error = await failure(sendMail(target(open().smtpPort, { timeoutMs: 1500 }), message));
      expect(error.failed).toEqual(['ops@example.com', 'oncall@example.com']);
      expect(error.message).toMatch(/greeting never received|timeout|timed out/i);
      // The second recipient would wait for the same timeout: it is not tried.
      expect(error.message).toMatch(/\(1 more recipient not tried\)$/);
    } finally {
      resume();
    }
    expect(await open().messages()).toEqual([]);
  }, 60_000);

  it('a server that is down fails the send, naming every recipient', async () => {
    const error = await failure(
      sendMail(target(1, { timeoutMs: 2000 }), { ...message, to: ['a@example.com'] }),
    );
    expect(error.failed).toEqual(['a@example.com']);
    expect(error.message).toMatch(/ECONNREFUSED|connect/i);
  });
});
