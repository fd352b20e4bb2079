/**
 * A remote reconciler on the local control plane (docs/reference/katalog.md §15.3, ADR 0046): a
 * small HTTP server in this test decides each CR's children and status from the PreparedRequest it
 * receives. The runtime applies the ConfigMap it returns, writes its status, honours `requeue`,
 * sends the cached children back on the next call, and writes `RemoteReconcileFailed` when the
 * server misbehaves (a kind outside managedResources, a body that is not JSON, 503 after retries).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { katalogFrom, readConfigMap, readyOf, syncedOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'rr', kind: 'App', plural: 'apps' });

/** The requests the server received, by CR name. */
const received = new Map<string, Record<string, unknown>[]>();
let server: Server;

/** answerFor is the server's decision for one request, by the CR's `spec.mode`. */
function answerFor(request: Record<string, unknown>): { status: number; body: string } {
  const object = request['object'] as { metadata: { name: string }; spec: { mode: string; size?: number } };
  const name = object.metadata.name;
  const json = (value: unknown): { status: number; body: string } => ({
    status: 200,
    body: JSON.stringify(value),
  });
  switch (object.spec.mode) {
    case 'ok':
      return json({
        result: 'ok',
        status: { phase: 'Ready', size: object.spec.size ?? 0 },
        resources: [
          {
            type: 'configmap',
            fields: { name: `${name}-config`, data: { size: String(object.spec.size ?? 0) } },
          },
        ],
      });
    case 'requeue':
      return json({ result: 'requeue', requeueAfter: '1s', status: { phase: 'Waiting' } });
    case 'bad-kind':
      return json({ result: 'ok', resources: [{ type: 'secret', fields: { name: `${name}-secret` } }] });
    case 'bad-json':
      return { status: 200, body: '<html>oops</html>' };
    default:
      return { status: 503, body: 'down' };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(text) as Record<string, unknown>;
      const name = (request['object'] as { metadata: { name: string } }).metadata.name;
      received.set(name, [...(received.get(name) ?? []), request]);
      const answer = answerFor(request);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: remote}
spec:
  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      resync: 1h
      queue:
        retryBackoff: {initial: 5s, max: 10s, multiplier: 2, maxAttempts: 3}
      operatorBox:
        reconcile:
          default: false
          remote:
            endpoint: "http://127.0.0.1:${port}/reconcile"
            timeout: 2s
            args: {owner: "{{ .metadata.name }}"}
            payload:
              object: {exclude: [metadata.managedFields]}
              children: {enabled: true}
            managedResources:
              - {group: "", plural: configmaps}
`),
    // The test's HTTP server is on loopback, which the address guard allows only explicitly.
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('a remote reconciler on a control plane', () => {
  it('applies the resources it returns, writes its status, and sends the PreparedRequest', async () => {
    await crs.create(env.namespace, 'web', { mode: 'ok', size: 2 });
    await waitFor(
      'the returned ConfigMap',
      async () => (await readConfigMap(env.kubeConfig, env.namespace, 'web-config')) != null,
    );
    const configMap = await readConfigMap(env.kubeConfig, env.namespace, 'web-config');
    expect(configMap).toEqual({ size: '2' });
    await waitFor('status from the service', async () => {
      const cr = await crs.get(env.namespace, 'web');
      return (
        (cr?.status as Record<string, unknown> | undefined)?.['phase'] === 'Ready' &&
        readyOf(cr!)?.status === 'True'
      );
    });
    const cr = await crs.get(env.namespace, 'web');
    expect(cr?.status).toMatchObject({
      phase: 'Ready',
      size: 2,
      inventory: [{ kind: 'ConfigMap', name: 'web-config' }],
    });
    const [first] = received.get('web') ?? [];
    expect(first).toMatchObject({
      key: `${env.namespace}/web`,
      gvk: { Group: group, Version: 'v1', Kind: 'App' },
      args: { owner: 'web' },
      object: { spec: { mode: 'ok', size: 2 } },
    });
    expect(
      (first?.['object'] as { metadata: Record<string, unknown> }).metadata['managedFields'],
    ).toBeUndefined();
    // A spec change: the service sees the child it returned last time under prepared.children.
    await crs.patchSpec(env.namespace, 'web', { mode: 'ok', size: 3 });
    await waitFor('the ConfigMap follows the service', async () => {
      const cm = await readConfigMap(env.kubeConfig, env.namespace, 'web-config');
      return cm?.['size'] === '3';
    });
    const last = (received.get('web') ?? []).at(-1);
    expect(
      (last?.['prepared'] as { children?: Record<string, Record<string, unknown>> }).children?.['configmap'],
    ).toHaveProperty('web-config');
  });

  it('honours requeue: requeueAfter', async () => {
    await crs.create(env.namespace, 'later', { mode: 'requeue' });
    await waitFor('three calls a second apart', () => (received.get('later')?.length ?? 0) >= 3, 15_000);
    const cr = await crs.get(env.namespace, 'later');
    expect((cr?.status as Record<string, unknown>)['phase']).toBe('Waiting');
  });

  it.each([
    ['bad-kind', /resources\[0\]: Secret is not in managedResources \(configmaps\)/],
    ['bad-json', /answered a body that is not JSON/],
    ['down', /answered status 503 \(3 attempts\)/],
  ])('a service answering %s leaves RemoteReconcileFailed with the reason', async (mode, message) => {
    await crs.create(env.namespace, mode, { mode });
    await waitFor(`RemoteReconcileFailed on ${mode}`, async () => {
      const cr = await crs.get(env.namespace, mode);
      return cr != null && syncedOf(cr)?.reason === 'RemoteReconcileFailed';
    });
    const cr = await crs.get(env.namespace, mode);
    expect(syncedOf(cr!)?.message).toMatch(message);
    expect(readyOf(cr!)?.status).toBe('False');
    // Nothing was written for it: the answer is refused before any apply.
    expect((cr?.status as { inventory?: unknown[] }).inventory ?? []).toEqual([]);
  });
});
