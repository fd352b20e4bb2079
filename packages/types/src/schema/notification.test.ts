import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { migrateKatalog } from '../upstream/migrate.js';

/** `spec.notification` and `notify:` (fixtures written from upstream's docs, not copied). */

const secret = '{secretRef: {name: notify, key: webhook, namespace: ops}}';

const canonical = (
  notification: string,
  notify = '{teams: [ops], message: "{{ .metadata.name }} is down"}',
) =>
  `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata:
  name: demo
spec:
  notification:
${notification}
  crds:
    website:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Website, plural: websites}
      operatorBox:
        status:
          fields:
            - path: phase
              value: Down
              when:
                - field: spec.state
                  equals: down
                  notify: ${notify}
`;

const load = (text: string) => loadKatalog({ text, file: 'katalog.yaml' });

describe('spec.notification', () => {
  it('loads teams, channels, the interval gate and a condition’s notify', () => {
    const result = load(
      canonical(`    defaults: {interval: 30m}
    smtp: {host: smtp.example.com, from: ork@example.com}
    slack: {webhook: ${secret}}
    teams:
      ops: {email: [ops@example.com], slack: ['#ops'], interval: 5m}`),
    );
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    const n = result.katalog.spec.notification;
    expect(n?.teams['ops']).toMatchObject({ email: ['ops@example.com'], interval: '5m' });
    expect(n?.smtp).toMatchObject({ port: 587, secure: false, requireTLS: false, timeout: '10s' });
    expect(n?.smtp?.ca).toBeUndefined();
    const when = result.katalog.spec.crds['website']?.operatorBox.status?.fields[0]?.when[0];
    expect(when).toMatchObject({ notify: { teams: ['ops'], message: '{{ .metadata.name }} is down' } });
  });

  it('loads requireTLS and a CA from a Secret; refuses a CA written inline', () => {
    const tls = load(
      canonical(`    smtp:
      host: smtp.example.com
      from: ork@example.com
      requireTLS: true
      ca: {name: smtp-ca, key: ca.crt, namespace: orkestra-system}
    teams: {}`),
    );
    if (!tls.ok) throw new Error(tls.errors.map((e) => e.message).join('\n'));
    expect(tls.katalog.spec.notification?.smtp).toMatchObject({
      requireTLS: true,
      ca: { name: 'smtp-ca', key: 'ca.crt', namespace: 'orkestra-system' },
    });
    const inline = load(
      canonical(`    smtp: {host: smtp.example.com, from: ork@example.com, ca: "-----BEGIN CERTIFICATE-----"}
    teams: {}`),
    );
    expect(inline.ok).toBe(false);
  });

  it('loads a CA from a ConfigMap; refuses it beside `ca` and without a literal namespace, at its position', () => {
    const fromMap = load(
      canonical(`    smtp:
      host: smtp.example.com
      from: ork@example.com
      caConfigMap: {name: trust-bundle, key: ca.crt, namespace: orkestra-system}
    teams: {}`),
    );
    if (!fromMap.ok) throw new Error(fromMap.errors.map((e) => e.message).join('\n'));
    expect(fromMap.katalog.spec.notification?.smtp?.caConfigMap).toEqual({
      name: 'trust-bundle',
      key: 'ca.crt',
      namespace: 'orkestra-system',
    });
    const both = canonical(`    smtp:
      host: smtp.example.com
      from: ork@example.com
      ca: {name: smtp-ca, key: ca.crt, namespace: orkestra-system}
      caConfigMap: {name: trust-bundle, key: ca.crt, namespace: orkestra-system}
    teams: {}`);
    const line = both.split('\n').findIndex((l) => l.includes('caConfigMap:')) + 1;
    const refused = load(both);
    expect(
      refused.ok ? [] : refused.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`),
    ).toEqual([
      `${line}:20 spec.notification.smtp.caConfigMap: \`ca\` (a Secret) and \`caConfigMap\` are exclusive: name the CA once`,
    ]);
    const templated = load(
      canonical(`    smtp:
      host: smtp.example.com
      from: ork@example.com
      caConfigMap: {name: trust-bundle, key: ca.crt, namespace: "{{ .metadata.namespace }}"}
    teams: {}`),
    );
    expect(templated.ok).toBe(false);
  });

  it('accepts upstream’s list spelling of notify', () => {
    const result = load(
      canonical(`    slack: {webhook: ${secret}}\n    teams: {ops: {slack: ['#ops']}}`, '[ops]'),
    );
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    const when = result.katalog.spec.crds['website']?.operatorBox.status?.fields[0]?.when[0];
    expect(when).toMatchObject({ notify: { teams: ['ops'] } });
  });

  it('accepts email recipients without smtp (upstream reads SMTP from its environment)', () => {
    const result = load(canonical('    teams:\n      ops: {email: [ops@example.com]}'));
    expect(result.ok).toBe(true);
  });

  it('refuses a webhook or password written inline', () => {
    const text = canonical('    slack: {webhook: https://hooks.example.com/T/B/x}\n    teams: {}');
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.path).toBe('spec.notification.slack.webhook');
  });
});

describe('upstream notification', () => {
  const upstream = (block: string) => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: demo
notification:
${block}
spec:
  crds:
    website:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Website, plural: websites}
      operatorBox:
        status:
          fields:
            - path: phase
              value: Deploying
              when:
                - field: spec.image
                  exists: true
                  notify:
                    teams: [developer]
                    message: "{{ .metadata.name }} is deploying"
`;

  it('moves to spec.notification with its keys unchanged', () => {
    const text = upstream(
      `  enabled: true\n  defaults:\n    interval: 15m\n  slack: {webhook: ${secret}}\n  teams:\n    developer:\n      slack: ["#deployments"]\n      message: "{{ .metadata.name }}"`,
    );
    const result = load(text);
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    expect(result.katalog.spec.notification?.teams['developer']?.slack).toEqual(['#deployments']);
    const migrated = migrateKatalog(text);
    expect(migrated.changes.map((c) => `${c.path}: ${c.message}`)).toEqual(
      expect.arrayContaining(['notification: moved to spec.notification']),
    );
  });

  it('refuses an inline webhook URL at its line, and drops a disabled block', () => {
    const text = upstream('  slack:\n    webhook: https://hooks.example.com/services/x\n  teams: {}');
    const result = load(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = text.split('\n').findIndex((l) => l.includes('hooks.example.com')) + 1;
    expect(result.errors[0]).toMatchObject({ line });
    expect(result.errors[0]?.message).toMatch(/credential/);
    const off = load(upstream('  enabled: false\n  teams: {}'));
    expect(off.ok && off.katalog.spec.notification).toBeUndefined();
  });
});

describe('spec.rollout.notify (ADR 0066)', () => {
  const withRollout = (notify: string) =>
    canonical('    teams: {ops: {email: [ops@example.com]}}').replace(
      '  crds:\n',
      `  rollout:\n    notify: ${notify}\n  crds:\n`,
    );

  it('takes both spellings of notify, with `on` defaulting to complete and gateFailed', () => {
    const short = load(withRollout('[ops]'));
    if (!short.ok) throw new Error(JSON.stringify(short.errors));
    expect(short.katalog.spec.rollout?.notify).toEqual({ teams: ['ops'], on: ['complete', 'gateFailed'] });
    const long = load(withRollout('{teams: [ops], on: [rolledBack], message: "{{ .rollout.outcome }}"}'));
    if (!long.ok) throw new Error(JSON.stringify(long.errors));
    expect(long.katalog.spec.rollout?.notify).toEqual({
      teams: ['ops'],
      on: ['rolledBack'],
      message: '{{ .rollout.outcome }}',
    });
  });

  it('refuses an unknown outcome at its position', () => {
    const result = load(withRollout('{teams: [ops], on: [exploded]}'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ path: 'spec.rollout.notify.on[0]' });
    expect(result.errors[0]?.line).toBeGreaterThan(0);
  });
});
