/**
 * An autoscale source behind bearer auth on the local control plane (docs/reference/katalog.md
 * §18.2, ADR 0079): the worker autoscaler reads a peer's metrics from a local HTTP server that
 * answers only with the right token, the token coming from a Secret named by `auth.secretRef`
 * without a namespace — read in the operator's namespace, not a CR's. A decoy Secret of the same
 * name with another token sits in the CRs' namespace. The decision follows the metric and never
 * shows the token.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, katalogFrom, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, startRuntime, onCleanup } = useRuntimeTest({
  prefix: 'ass',
  kind: 'Shop',
  plural: 'shops',
});

const TOKEN = `peer-token-${Math.random().toString(36).slice(2, 10)}`;
const operatorNamespace = `ork-ops-${Math.random().toString(36).slice(2, 8)}`;
/** What the peer saw: the Authorization header of each request. */
const seen: (string | undefined)[] = [];
let server: Server;
let runtime: KatalogRuntime;

async function secret(namespace: string, token: string): Promise<void> {
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'billing-reader' }, stringData: { token } },
  });
}

beforeAll(async () => {
  onCleanup(await createNamespace(env.kubeConfig, operatorNamespace));
  await secret(operatorNamespace, TOKEN);
  await secret(env.namespace, 'the-crs-namespace-token');
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"unauthorized"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name: 'billing', metrics: { queueDepth: 500 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  runtime = await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: autoscale-source-secret}
spec:
  crds:
    shop:
      apiTypes: {group: ${group}, version: v1, kind: Shop, plural: shops}
      workers: 2
      autoscale:
        interval: 250ms
        cooldown: 1h
        sources:
          - as: billing
            endpoint: "http://127.0.0.1:${port}"
            protocol: metrics
            cacheFor: 1s
            auth:
              secretRef: {name: billing-reader, key: token}
        conditions:
          when:
            - field: cross.billing.metrics.queueDepth
              greaterThan: 100
        do: {workers: 6}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-cm"
              data: {a: b}
`),
    options: { allowPrivateAddresses: LOOPBACK_CIDRS, operatorNamespace },
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('an autoscale source behind bearer auth', () => {
  it("reads the token from the operator namespace's Secret and scales on the peer's metric; the decision shows no token", async () => {
    const entry = runtime.entries.get('shop');
    if (entry?.autoscaler == null) throw new Error('the shop entry has no autoscaler');
    await waitFor('workers at 6', () => entry.dispatcher.capacity === 6, 60_000, 50);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([`Bearer ${TOKEN}`]));
    const last = entry.autoscaler.last;
    expect(last).toMatchObject({ rule: 'default', unavailable: [] });
    expect(last?.why).toMatch(/workers 2 → 6/);
    expect(JSON.stringify(last)).not.toContain(TOKEN);
  }, 90_000);
});
