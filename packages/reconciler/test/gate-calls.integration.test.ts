/**
 * Pre-reconcile gates that make external calls, on the local control plane (docs/reference/katalog.md
 * §20.3, ADR 0070). A local HTTP server answers both gates: the reconcileGate (failPolicy closed)
 * passes while its answer says open, holds on closed, and holds when the server is down; the
 * enqueueGate (failPolicy open) passes while its answer says not frozen and when its server is down.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { katalogFrom, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'gc',
  kind: 'Gadget',
  plural: 'gadgets',
});

/** What each path answers: a JSON body, or `down` (the connection is dropped). */
const answers: Record<string, Record<string, unknown> | 'down'> = {
  '/window': { open: 'true' },
  '/freeze': { frozen: 'false' },
};
const gated: string[] = [];
/** The team notifications posted to the server's webhook path. */
const posts: Record<string, unknown>[] = [];
let server: Server;
let core: CoreV1Api;

const conditionOf = (cr: { status?: unknown } | undefined, type: string) =>
  (
    (cr?.status as { conditions?: { type: string; status: string; message: string }[] } | undefined)
      ?.conditions ?? []
  ).find((c) => c.type === type);

async function valueOf(name: string): Promise<string | undefined> {
  try {
    const cm = await core.readNamespacedConfigMap({ namespace: env.namespace, name: `${name}-cfg` });
    return cm.data?.['value'];
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  core = env.kubeConfig.makeApiClient(CoreV1Api);
  server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/hook') {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        posts.push(JSON.parse(text) as Record<string, unknown>);
        response.writeHead(200);
        response.end('ok');
      });
      return;
    }
    const answer = answers[request.url ?? ''];
    if (answer === 'down' || answer == null) {
      request.socket.destroy();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  await core.createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'notify' }, stringData: { webhook: `${base}/hook` } },
  });
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: gate-calls}
spec:
  notification:
    defaults: {interval: 1h}
    slack:
      webhook: {secretRef: {name: notify, key: webhook, namespace: ${env.namespace}}}
    teams:
      ops: {slack: ['#ops']}
  crds:
    gadget:
      apiTypes: {group: ${group}, version: v1, kind: Gadget, plural: gadgets}
      resync: 1h
      preReconcile:
        enqueueGate:
          failPolicy: open
          external:
            - {name: freeze, url: "${base}/freeze", timeout: 2s}
          when: [{field: external.freeze.json.frozen, equals: "false"}]
        reconcileGate:
          failPolicy: closed
          external:
            - {name: window, url: "${base}/window", timeout: 2s}
          when:
            - field: external.window.json.open
              equals: "true"
              notify: {teams: [ops], message: "{{ .metadata.name }} held: {{ .gate.reason }}"}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-cfg"
              data: {value: "{{ spec.value }}"}
`),
    // The test's server is on loopback, which the address guard allows only explicitly.
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
    observer: { reconcileGated: (_c, gate, reason) => gated.push(`${gate} ${reason}`) },
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('gate external calls on a control plane', () => {
  it('reconcileGate (failPolicy closed): open reconciles, closed holds, down holds; enqueueGate (open) passes when down', async () => {
    await crs.create(env.namespace, 'g1', { value: 'a' });
    await waitFor('g1-cfg = a', async () => (await valueOf('g1')) === 'a', 30_000);
    // The first event waited for the enqueueGate's first answer, then was queued.
    expect(gated).toContain('enqueue awaiting_external');

    answers['/window'] = { open: 'false' };
    await crs.patchSpec(env.namespace, 'g1', { value: 'b' });
    await waitFor('Gated: not met', async () =>
      /^reconcileGate: when\[0\]/.test(
        conditionOf(await crs.get(env.namespace, 'g1'), 'Gated')?.message ?? '',
      ),
    );
    expect(await valueOf('g1')).toBe('a');
    expect(gated).toContain('reconcile not_met');
    // The held reconcile tells the team of the condition that held it (once per interval).
    await waitFor('gate notification', () => posts.length > 0);
    expect(JSON.stringify(posts[0])).toContain('g1 held: not_met');

    answers['/window'] = 'down';
    await crs.patchSpec(env.namespace, 'g1', { value: 'c' });
    await waitFor('Gated: external call failed', async () =>
      (conditionOf(await crs.get(env.namespace, 'g1'), 'Gated')?.message ?? '').startsWith(
        'reconcileGate: external call failed (failPolicy: closed)',
      ),
    );
    expect(await valueOf('g1')).toBe('a');
    expect(gated).toContain('reconcile external_failed');

    answers['/window'] = { open: 'true' };
    answers['/freeze'] = 'down';
    await crs.patchSpec(env.namespace, 'g1', { value: 'd' });
    // The enqueueGate's server is down and its failPolicy is open: the events pass.
    await waitFor('g1-cfg = d', async () => (await valueOf('g1')) === 'd', 30_000);
    await crs.patchSpec(env.namespace, 'g1', { value: 'e' });
    await waitFor('g1-cfg = e', async () => (await valueOf('g1')) === 'e', 30_000);
    await waitFor(
      'Gated removed',
      async () => conditionOf(await crs.get(env.namespace, 'g1'), 'Gated') == null,
    );
    expect(gated.filter((g) => g.startsWith('enqueue') && g !== 'enqueue awaiting_external')).toEqual([]);
    // Only the held reconcile notified: a reconcile the gate passed tells nobody.
    expect(posts).toHaveLength(1);
  });
});
