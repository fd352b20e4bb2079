/**
 * Security: (1) no generated secret value (a `once` password, a `rotateAfter` token, a TLS key)
 * appears in the operator's log (debug level), in Events or in any CR status, across successes and
 * failures; (2) the metadata-address guard of external calls refuses the cloud metadata endpoints
 * and link-local addresses in every spelling tried (decimal, hex, octal, IPv4-mapped IPv6, a name
 * resolving there, a redirect there), while an ordinary loopback call still works.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { AddressGuard, BlockedAddressError, ExternalCaller, LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { crClient, installCrd, isReadyAtGeneration, readyOf, uniqueSuffix } from '../src/custom-resources.js';
import { reportClaim, reportFigure } from '../src/figures.js';
import { spawnOperator } from '../src/operator-process.js';
import type { OperatorProcess } from '../src/operator-process.js';
import { waitFor } from '../src/wait-for.js';

const SCENARIO = 'security';
const env = useControlPlane();
const dir = mkdtempSync(join(tmpdir(), 'orkestra-chaos-security-'));
const cleanups: (() => Promise<void>)[] = [];
let operator: OperatorProcess | undefined;

afterAll(async () => {
  operator?.kill('SIGKILL');
  await operator?.exited;
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** secretKatalog generates a once password, a rotating token and TLS material, and has a deny rule. */
function secretKatalog(group: string): string {
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: chaos-secrets}
spec:
  crds:
    vault:
      apiTypes: {group: ${group}, version: v1, kind: Vault, plural: vaults}
      validation:
        rules:
          - {field: spec.owner, notPrefix: "bad", message: "owner {{ spec.owner }} is not allowed"}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-info"
              data: {owner: "{{ spec.owner }}"}
          secrets:
            - name: "{{ metadata.name }}-password"
              once: true
              data: {password: "{{ randomAlphanumeric 40 }}"}
            - name: "{{ metadata.name }}-token"
              rotateAfter: 1h
              data: {token: "{{ randomHex 32 }}"}
            - name: "{{ metadata.name }}-tls"
              tls: {dnsNames: ["{{ metadata.name }}.{{ metadata.namespace }}.svc"], validFor: 30d}
        status:
          fields:
            - {path: owner, value: "{{ spec.owner }}"}
`;
}

/** needles returns the strings that must never be seen for a Secret value: decoded, base64, and PEM body lines. */
function needles(base64Value: string): string[] {
  const decoded = Buffer.from(base64Value, 'base64').toString('utf8');
  const out = [base64Value, decoded];
  for (const line of decoded.split('\n')) {
    if (line.length >= 40 && !line.startsWith('-----')) out.push(line);
  }
  return out.filter((s) => s.length >= 16);
}

describe('security', () => {
  it('no generated secret value appears in logs, events or status', async () => {
    const api = {
      group: `secrets${uniqueSuffix()}.example.com`,
      version: 'v1',
      kind: 'Vault',
      plural: 'vaults',
    };
    cleanups.push(await installCrd(env.kubeConfig, api));
    const katalogPath = join(dir, 'katalog.yaml');
    writeFileSync(katalogPath, secretKatalog(api.group));
    operator = spawnOperator({
      katalogPath,
      kubeconfigPath: env.kubeconfigPath,
      namespace: env.namespace,
      args: ['--leader-elect=false'],
      logLevel: 'debug',
    });
    const running = operator;
    const ns = env.namespace;
    const crs = crClient(env.kubeConfig, api);
    await waitFor('the operator ready', () => running.logs().some((l) => l.msg === 'operator ready'));
    const names = ['alpha', 'beta', 'gamma'];
    await Promise.all(names.map((name) => crs.create(ns, name, { owner: `team-${name}` })));
    for (const name of names)
      await waitFor(`${name} Ready`, async () => isReadyAtGeneration(await crs.get(ns, name)));
    // A failure path too: a spec change that the deny rule rejects, then back.
    await crs.patchSpec(ns, 'beta', { owner: 'bad-actor' });
    await waitFor(
      'beta ValidationFailed',
      async () => readyOf(await crs.get(ns, 'beta'))?.reason === 'ValidationFailed',
    );
    await crs.patchSpec(ns, 'beta', { owner: 'team-beta' });
    await waitFor('beta Ready again', async () => isReadyAtGeneration(await crs.get(ns, 'beta')));

    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const secrets = (await core.listNamespacedSecret({ namespace: ns })).items.filter((s) =>
      names.some((n) => s.metadata?.name?.startsWith(`${n}-`)),
    );
    expect(secrets).toHaveLength(names.length * 3);
    const values = secrets.flatMap((s) =>
      Object.entries(s.data ?? {}).flatMap(([key, value]) =>
        needles(value).map((needle) => ({ secret: `${s.metadata?.name}/${key}`, needle })),
      ),
    );
    const events = JSON.stringify((await core.listNamespacedEvent({ namespace: ns })).items);
    const statuses = JSON.stringify((await crs.list(ns)).map((cr) => cr.status));
    const haystacks = { log: running.output(), events, status: statuses };
    const leaks: string[] = [];
    for (const { secret, needle } of values) {
      for (const [where, text] of Object.entries(haystacks)) {
        if (text.includes(needle)) leaks.push(`${secret} in ${where}`);
      }
    }
    expect(running.logs().some((l) => l.msg === 'reconciled')).toBe(true);
    expect(events).toContain('ValidationFailed');
    expect(leaks).toEqual([]);
    reportFigure(SCENARIO, 'secret values checked (decoded, base64, PEM lines)', values.length);
    reportFigure(SCENARIO, 'log lines searched (debug level)', running.logs().length);
    reportClaim(SCENARIO, 'secret values found in logs, events or status', leaks.length);
  });

  describe('the metadata-address guard', () => {
    let server: Server | undefined;
    afterAll(async () => {
      await new Promise<void>((resolve) => (server == null ? resolve() : server.close(() => resolve())));
    });

    // Hostnames resolve through this fake only, so no test input can reach a real address.
    const names: Record<string, string> = {
      'loopback.test': '127.0.0.1',
      'metadata.test': '169.254.169.254',
      'linklocal.test': '169.254.10.10',
      'alibaba.test': '100.100.100.200',
      'v6meta.test': 'fd00:ec2::254',
      'mapped.test': '::ffff:a9fe:a9fe',
      'v6link.test': 'fe80::1',
    };
    const resolve = async (hostname: string): Promise<{ address: string; family: number }[]> => {
      const address = names[hostname];
      if (address == null)
        throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    };

    it('refuses every spelling of the metadata endpoints and link-local addresses, without connecting', async () => {
      // Checked with the guard itself (precheck for literals, check with resolution): a bypass must
      // not turn into a request to a real metadata service on a cloud CI machine.
      const guard = new AddressGuard({ resolve });
      const blocked = [
        'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
        'http://169.254.169.254:80/',
        'http://2852039166/',
        'http://0xa9fea9fe/',
        'http://0251.0376.0251.0376/',
        'http://169.254.43518/',
        'http://[::ffff:169.254.169.254]/',
        'http://[::ffff:a9fe:a9fe]/',
        'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
        'http://[fd00:ec2::254]/',
        'http://[fe80::1]/',
        'http://100.100.100.200/',
        'http://metadata.google.internal/computeMetadata/v1/',
        'http://METADATA.GOOGLE.INTERNAL./',
        'http://metadata.test/',
        'http://linklocal.test/',
        'http://alibaba.test/',
        'http://v6meta.test/',
        'http://mapped.test/',
      ];
      const notRefused: string[] = [];
      for (const url of blocked) {
        const parsed = new URL(url);
        let refused = false;
        try {
          guard.precheck(parsed);
          await guard.check(parsed);
        } catch (error) {
          refused = error instanceof BlockedAddressError;
        }
        if (!refused) notRefused.push(`${url} (parsed host ${parsed.hostname})`);
      }
      expect(notRefused).toEqual([]);
      reportFigure(SCENARIO, 'metadata/link-local URL spellings checked', blocked.length);
      reportClaim(SCENARIO, 'metadata/link-local URL spellings not refused by the guard', notRefused.length);
    });

    it('refuses redirects to metadata hosts in external calls, and still makes ordinary loopback calls', async () => {
      let hits = 0;
      server = createServer((req, res) => {
        hits++;
        const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
        if (to != null) {
          res.writeHead(302, { location: to });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
      await new Promise<void>((done) => server?.listen(0, '127.0.0.1', () => done()));
      const port = (server.address() as AddressInfo).port;
      // Loopback is refused by default (ADR 0031); the control call to the local server allows it
      // explicitly, as `ork dev` does. The redirect targets stay refused: none is loopback.
      const caller = new ExternalCaller({ resolve, allowAddresses: LOOPBACK_CIDRS });
      const call = (url: string) =>
        caller.call({ name: 'probe', url, timeout: '3s' }, { entry: 'chaos', namespace: 'default' });

      expect((await call(`http://loopback.test:${port}/`)).ok).toBe(true);
      // Only targets that cannot reach a real service even if the guard regressed: a name the fake
      // resolver does not know, and an IPv6 link-local address without a zone.
      const redirects = ['http://metadata.google.internal/computeMetadata/v1/', 'http://v6link.test/'];
      const notRefused: string[] = [];
      for (const target of redirects) {
        const result = await call(`http://loopback.test:${port}/?to=${encodeURIComponent(target)}`);
        if (result.ok || !/refused/.test(result.error))
          notRefused.push(`${target}: ${result.ok ? 'ok' : result.error}`);
      }
      expect(notRefused).toEqual([]);
      // The control call and the redirects reached the loopback server; nothing went further.
      expect(hits).toBe(1 + redirects.length);
    });
  });
});
