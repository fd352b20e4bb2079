/**
 * Team notifications by email against a real SMTP server (Mailpit from `@orkestra/testenv`, with
 * AUTH required; docs/reference/katalog.md §15.4, ADR 0074). On the local control plane a
 * condition's `notify:` sends an email that arrives, read back through Mailpit's HTTP API; the SMTP
 * login comes from Secret refs and the password is in no log line. Then the notifier alone, with
 * the same real server and Secrets: the default address guard refuses the loopback server (nothing
 * arrives), a wrong password fails the send without showing it, and a server that requires STARTTLS
 * is reached only with the CA `notification.smtp.ca` names (without it: refused); none throws.
 */
import { Writable } from 'node:stream';
import { CoreV1Api } from '@kubernetes/client-node';
import { createTemplateEngine } from '@orkestra/template';
import type { Logger, Notification } from '@orkestra/types';
import { useMailpit } from '@orkestra/testenv/vitest';
import { pino } from 'pino';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { Notifier } from '../src/notify/notifier.js';
import { katalogFrom, useRuntimeTest, waitFor, waitForReady } from './runtime-helpers.js';

const PASSWORD = 'smtp-pw-62077';
const WRONG = 'not-the-smtp-pw';
const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'nm', kind: 'Site', plural: 'sites' });
const mail = useMailpit({ smtpUsers: { ork: PASSWORD } });
// STARTTLS required by the server, with a certificate of its own CA (the Secret smtp-ca holds it).
const tlsMail = useMailpit({ tls: 'starttls', smtpUsers: { ork: PASSWORD } });

const logLines: string[] = [];
/** A pino logger at debug that keeps every line, to show no line holds the password. */
function recordingLogger(): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  return pino({ level: 'debug' }, sink) as unknown as Logger;
}

const counted: string[] = [];

beforeAll(async () => {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  for (const [name, password] of [
    ['smtp', PASSWORD],
    ['smtp-wrong', WRONG],
  ] as const)
    await core.createNamespacedSecret({
      namespace: env.namespace,
      body: { metadata: { name }, stringData: { user: 'ork', password } },
    });
  await core.createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'smtp-ca' }, stringData: { 'ca.crt': tlsMail().caPem ?? '' } },
  });
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: mail-notifications}
spec:
  notification:
    defaults: {interval: 1h}
    smtp:
      host: 127.0.0.1
      port: ${mail().smtpPort}
      from: ork@example.com
      timeout: 10s
      auth:
        user: {name: smtp, key: user, namespace: ${env.namespace}}
        password: {name: smtp, key: password, namespace: ${env.namespace}}
    teams:
      ops: {email: [ops@example.com, oncall@example.com]}
  crds:
    site:
      apiTypes: {group: ${group}, version: v1, kind: Site, plural: sites}
      operatorBox:
        status:
          fields:
            - path: alarm
              value: "true"
              when:
                - field: spec.state
                  equals: down
                  notify: {teams: [ops], message: "{{ .metadata.name }} is down"}
`),
    // Mailpit listens on loopback, which the address guard allows only explicitly.
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
    logger: recordingLogger(),
    observer: { notification: (channel, result) => counted.push(`${channel} ${result}`) },
  });
});

describe('email notifications to a real SMTP server', () => {
  it('a condition’s notify: sends an email that arrives, logged in with the Secret’s credential', async () => {
    await crs.create(env.namespace, 'web', { state: 'up' });
    await waitForReady(crs, env.namespace, 'web');
    expect(await mail().messages()).toEqual([]);

    await crs.patchSpec(env.namespace, 'web', { state: 'down' });
    await waitFor('both emails', async () => (await mail().messages()).length >= 2);
    const mails = await mail().messages();
    expect(mails.map((m) => m.To.map((t) => t.Address))).toEqual([
      ['ops@example.com'],
      ['oncall@example.com'],
    ]);
    for (const m of mails) {
      expect(m).toMatchObject({
        From: { Address: 'ork@example.com' },
        Subject: '[orkestra] spec.state condition triggered',
      });
      expect(m.Text).toContain('web is down');
      expect(m.headers['X-Orkestra-Team']).toEqual(['ops']);
      expect(m.headers['X-Orkestra-Katalog']).toEqual(['mail-notifications']);
    }
    await waitFor('the email counted', async () => counted.includes('email sent'));
    expect(counted).toEqual(['email sent']);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(PASSWORD);
  });
});

describe('the notifier alone against the same server and Secrets', () => {
  const engine = createTemplateEngine();
  const lines: string[] = [];
  const results: string[] = [];
  const entry = {
    operatorBox: {
      status: {
        fields: [
          {
            path: 'alarm',
            when: [
              {
                field: 'spec.state',
                operator: 'equals',
                value: 'down',
                negate: false,
                notify: { teams: ['ops'] },
              },
            ],
          },
        ],
      },
    },
  };
  const logger = (): Logger => {
    const log = (fields: object, message?: string): void => {
      lines.push(`${message ?? ''} ${JSON.stringify(fields)}`);
    };
    return { debug: log, info: log, warn: log, error: log, child: () => logger() };
  };
  const notifier = (
    secret: string,
    allowAddresses?: readonly string[],
    smtp: Partial<NonNullable<Notification['smtp']>> = {},
  ): Notifier =>
    new Notifier({
      katalogName: 'k',
      notification: {
        timeout: '5s',
        smtp: {
          host: '127.0.0.1',
          port: mail().smtpPort,
          from: 'ork@example.com',
          secure: false,
          timeout: '10s',
          auth: {
            user: { name: secret, key: 'user', namespace: env.namespace },
            password: { name: secret, key: 'password', namespace: env.namespace },
          },
          ...smtp,
        },
        teams: { ops: { email: ['ops@example.com'], interval: '1m' } },
      } as Notification,
      clock: { now: () => Date.now() },
      conditions: {},
      render: (template, context) => String(engine.renderTemplate(template, context)),
      readSecret: async (namespace, name, key) => {
        const secret = await env.kubeConfig
          .makeApiClient(CoreV1Api)
          .readNamespacedSecret({ namespace, name });
        const value = secret.data?.[key];
        return value == null ? undefined : Buffer.from(value, 'base64').toString('utf8');
      },
      logger: logger(),
      count: (channel, result) => results.push(`${channel} ${result}`),
      ...(allowAddresses == null ? {} : { allowAddresses }),
    });
  const notifyDown = async (n: Notifier): Promise<void> => {
    const step = n.forEntry({ name: 'site', kind: 'Site', entry });
    if (step == null) throw new Error('no notify step');
    step({ metadata: { name: 'api', namespace: env.namespace }, spec: { state: 'down' } });
    await n.idle();
  };

  beforeEach(async () => {
    await mail().clear();
    await tlsMail().clear();
    lines.length = 0;
    results.length = 0;
  });

  it('the default address guard refuses the loopback server: nothing arrives, nothing throws', async () => {
    await notifyDown(notifier('smtp'));
    expect(results).toEqual(['email failed']);
    expect(lines.join('\n')).toMatch(/notification failed.*127\.0\.0\.1/);
    expect(await mail().messages()).toEqual([]);
  });

  it('a wrong password fails the send without showing it', async () => {
    await notifyDown(notifier('smtp-wrong', LOOPBACK_CIDRS));
    expect(results).toEqual(['email failed']);
    expect(lines.join('\n')).toMatch(/notification failed/);
    expect(lines.join('\n')).not.toContain(WRONG);
    expect(await mail().messages()).toEqual([]);

    // The control: the same notifier with the right Secret delivers.
    await notifyDown(notifier('smtp', LOOPBACK_CIDRS));
    expect(results).toEqual(['email failed', 'email sent']);
    expect((await mail().messages()).map((m) => m.To[0]?.Address)).toEqual(['ops@example.com']);
  });

  it('STARTTLS with the CA from notification.smtp.ca delivers; without it the server is refused', async () => {
    const over = { port: tlsMail().smtpPort, requireTLS: true };
    await notifyDown(notifier('smtp', LOOPBACK_CIDRS, over));
    // Node's built-in roots do not trust the test CA: refused, the reason logged, no password.
    expect(results).toEqual(['email failed']);
    expect(lines.join('\n')).toMatch(/notification failed.*TLS: .*certificate/);
    expect(lines.join('\n')).not.toContain(PASSWORD);
    expect(await tlsMail().messages()).toEqual([]);

    const ca = { name: 'smtp-ca', key: 'ca.crt', namespace: env.namespace };
    await notifyDown(notifier('smtp', LOOPBACK_CIDRS, { ...over, ca }));
    expect(results).toEqual(['email failed', 'email sent']);
    expect((await tlsMail().messages()).map((m) => m.To[0]?.Address)).toEqual(['ops@example.com']);
  });
});
