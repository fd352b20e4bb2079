import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from '@orkestra/template';
import type { Logger, Notification } from '@orkestra/types';
import { Notifier, notifyingConditions } from './notifier.js';

const engine = createTemplateEngine();

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
              notify: { teams: ['ops', 'ghost'] },
            },
          ],
        },
      ],
    },
  },
};

function logger(lines: string[]): Logger {
  const log = (fields: object, message?: string): void => {
    lines.push(`${message ?? ''} ${JSON.stringify(fields)}`);
  };
  return { debug: log, info: log, warn: log, error: log, child: () => logger(lines) };
}

function notifier(options: {
  readSecret: (namespace: string, name: string, key: string) => Promise<string | undefined>;
  counted: string[];
  lines: string[];
  now?: () => number;
  maxQueue?: number;
}): Notifier {
  const notification = {
    timeout: '1s',
    slack: { webhook: { secretRef: { name: 'n', key: 'url', namespace: 'ops' } } },
    teams: { ops: { slack: ['#ops'], interval: '1m' } },
  } as Notification;
  return new Notifier({
    katalogName: 'k',
    notification,
    clock: { now: options.now ?? (() => 0) },
    conditions: {},
    render: (template, context) => String(engine.renderTemplate(template, context)),
    readSecret: options.readSecret,
    logger: logger(options.lines),
    count: (channel, result) => options.counted.push(`${channel} ${result}`),
    maxQueue: options.maxQueue,
  });
}

const down = (name: string) => ({ metadata: { name, namespace: 'shop' }, spec: { state: 'down' } });

describe('Notifier', () => {
  it('finds the conditions with notify: once per entry', () => {
    expect(notifyingConditions(entry)).toHaveLength(1);
    expect(notifyingConditions(entry)).toBe(notifyingConditions(entry));
    expect(notifyingConditions({ operatorBox: {} })).toEqual([]);
  });

  it('returns at once while a send hangs, and drops past the bounded queue', async () => {
    const counted: string[] = [];
    let now = 0;
    let release: (value: string | undefined) => void = () => undefined;
    const hanging = new Promise<string | undefined>((resolve) => (release = resolve));
    const n = notifier({ readSecret: () => hanging, counted, lines: [], now: () => now, maxQueue: 1 });
    const step = n.forEntry({ name: 'site', kind: 'Site', entry });
    if (step == null) throw new Error('no step');
    // Each call passes the gate (a minute apart); the first is in flight, the second waits, the third is dropped.
    for (let i = 0; i < 3; i++) {
      step(down(`web${i}`));
      now += 60_000;
    }
    expect(counted).toEqual(['webhook dropped']);
    release(undefined);
    await n.idle();
    expect(counted).toEqual(['webhook dropped', 'webhook failed', 'webhook failed']);
  });

  it('logs a failed post with the host only, never the webhook URL', async () => {
    const counted: string[] = [];
    const lines: string[] = [];
    const url = 'http://127.0.0.1:1/services/T0/B0/very-secret-token';
    const n = notifier({ readSecret: () => Promise.resolve(url), counted, lines });
    n.forEntry({ name: 'site', kind: 'Site', entry })?.(down('web'));
    await n.idle();
    expect(counted).toEqual(['webhook failed']);
    expect(lines.join('\n')).toContain('127.0.0.1:1');
    expect(lines.join('\n')).not.toContain('very-secret-token');
  });

  it('never throws into the reconcile, whatever the context', () => {
    const n = notifier({ readSecret: () => Promise.resolve(undefined), counted: [], lines: [] });
    const step = n.forEntry({ name: 'site', kind: 'Site', entry });
    expect(() => step?.({})).not.toThrow();
    expect(() => step?.({ spec: null } as unknown as Record<string, unknown>)).not.toThrow();
  });
});

describe('Notifier.rollout (docs/reference/katalog.md §2.3)', () => {
  it('returns at once while the send hangs, and never throws into the rollout', async () => {
    const counted: string[] = [];
    let release: (value: string | undefined) => void = () => undefined;
    const hanging = new Promise<string | undefined>((resolve) => (release = resolve));
    const n = notifier({ readSecret: () => hanging, counted, lines: [] });
    const state = { stable: 'a', target: 'b', phase: 'Failed', step: 0 };
    n.rollout({ teams: ['ops'], on: ['gateFailed'] }, [{ reason: 'RolloutGateFailed', message: 'x' }], state);
    expect(counted).toEqual([]);
    expect(() =>
      n.rollout({ teams: ['ops'], on: ['gateFailed'] }, null as unknown as [], state),
    ).not.toThrow();
    release(undefined);
    await n.idle();
    expect(counted).toEqual(['webhook failed']);
  });
});

describe('Notifier: the SMTP CA (docs/reference/katalog.md §15.4)', () => {
  const email = (smtp: Record<string, unknown>) =>
    ({
      timeout: '1s',
      smtp: {
        host: '127.0.0.1',
        port: 2525,
        from: 'o@example.com',
        secure: false,
        requireTLS: true,
        timeout: '1s',
        ...smtp,
      },
      teams: { ops: { email: ['ops@example.com'], interval: '1m' } },
    }) as Notification;

  async function sentCa(
    notification: Notification,
    reads: { secret?: string; configMap?: string },
  ): Promise<{ ca: unknown; read: string[]; counted: string[] }> {
    const read: string[] = [];
    const counted: string[] = [];
    let ca: unknown = 'not sent';
    const n = new Notifier({
      katalogName: 'k',
      notification,
      clock: { now: () => 0 },
      conditions: {},
      render: (template, context) => String(engine.renderTemplate(template, context)),
      readSecret: (ns, name, key) => (
        read.push(`Secret ${ns}/${name}/${key}`),
        Promise.resolve(reads.secret)
      ),
      readConfigMap: (ns, name, key) => (
        read.push(`ConfigMap ${ns}/${name}/${key}`),
        Promise.resolve(reads.configMap)
      ),
      logger: logger([]),
      count: (channel, result) => counted.push(`${channel} ${result}`),
      allowAddresses: ['127.0.0.0/8'],
      importModule: () =>
        Promise.resolve({
          sendMail: (target: { ca?: unknown }) => {
            ca = target.ca;
            return Promise.resolve();
          },
        }),
    });
    n.forEntry({
      name: 'site',
      kind: 'Site',
      entry: {
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
      },
    })?.(down('web'));
    await n.idle();
    return { ca, read, counted };
  }

  it('trusts the CA of caConfigMap, read from that ConfigMap and no Secret', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const sent = await sentCa(
      email({ caConfigMap: { name: 'trust', key: 'ca.crt', namespace: 'orkestra-system' } }),
      {
        configMap: pem,
      },
    );
    expect(sent).toEqual({
      ca: pem,
      read: ['ConfigMap orkestra-system/trust/ca.crt'],
      counted: ['email sent'],
    });
  });

  it('fails the send, not the reconcile, when the ConfigMap has no such key', async () => {
    const sent = await sentCa(
      email({ caConfigMap: { name: 'trust', key: 'ca.crt', namespace: 'orkestra-system' } }),
      {},
    );
    expect(sent.counted).toEqual(['email failed']);
    expect(sent.ca).toBe('not sent');
  });

  it('still reads the CA of `ca` from a Secret', async () => {
    const sent = await sentCa(email({ ca: { name: 'smtp-ca', key: 'ca.crt', namespace: 'ops' } }), {
      secret: 'PEM',
    });
    expect(sent).toEqual({ ca: 'PEM', read: ['Secret ops/smtp-ca/ca.crt'], counted: ['email sent'] });
  });
});
