/**
 * Declarative rollback on the local control plane (docs/reference/katalog.md §20.4): a CR whose new
 * spec keeps failing is rolled back after `consecutiveFailures` failures — Ready=False RolledBack,
 * the entry's templates applied with the previous good spec (a tampered child is put back to it)
 * — until its spec changes. The failing step is an external call to a local server.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { OrkestraAnnotation } from '@orkestra/types';
import { katalogFrom, readConfigMap, readyOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'rb',
  kind: 'Release',
  plural: 'releases',
});
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead((req.url ?? '').startsWith('/fail') ? 503 : 200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await startRuntime({
    // The test's HTTP server is on loopback, which the address guard allows only explicitly.
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: rollback}
spec:
  crds:
    release:
      apiTypes: {group: ${group}, version: v1, kind: Release, plural: releases}
      resync: 1h
      queue:
        retryBackoff: {initial: 200ms, max: 500ms}
      rollback:
        trigger: {consecutiveFailures: 2}
        reapplyPreviousSpec: true
      operatorBox:
        external:
          - name: check
            url: "http://127.0.0.1:${port}/{{ spec.mode }}"
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-cfg"
              data: {version: "{{ spec.version }}"}
`),
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('rollback on a control plane', () => {
  it('rolls a failing spec back to the previous one until the spec changes', async () => {
    const cfg = () => readConfigMap(env.kubeConfig, env.namespace, 'app-cfg');
    await crs.create(env.namespace, 'app', { mode: 'ok', version: 'v1' });
    await waitFor('v1 and its snapshot', async () => {
      const cr = await crs.get(env.namespace, 'app');
      return (
        (await cfg())?.['version'] === 'v1' &&
        cr?.metadata.annotations?.[OrkestraAnnotation.PreviousSpec] != null
      );
    });
    await crs.patchSpec(env.namespace, 'app', { mode: 'fail', version: 'v2' });
    await waitFor('RolledBack', async () => {
      const cr = await crs.get(env.namespace, 'app');
      return cr != null && readyOf(cr)?.reason === 'RolledBack';
    });
    const cr = await crs.get(env.namespace, 'app');
    expect(cr?.metadata.annotations?.[OrkestraAnnotation.RollbackAtGeneration]).toBe(
      String(cr?.metadata.generation),
    );
    expect(readyOf(cr ?? ({} as never))?.message).toMatch(/previous spec is applied/);
    // The previous spec is applied: a tampered child goes back to v1 (a failing v2 never writes).
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const map = await core.readNamespacedConfigMap({ namespace: env.namespace, name: 'app-cfg' });
    await core.replaceNamespacedConfigMap({
      namespace: env.namespace,
      name: 'app-cfg',
      body: { ...map, data: { version: 'tampered' } },
    });
    await waitFor('v1 again', async () => (await cfg())?.['version'] === 'v1');
    // A new spec ends the rollback.
    await crs.patchSpec(env.namespace, 'app', { mode: 'ok', version: 'v3' });
    await waitFor('v3', async () => (await cfg())?.['version'] === 'v3');
    await waitFor('Ready again', async () => {
      const now = await crs.get(env.namespace, 'app');
      return now != null && readyOf(now)?.status === 'True';
    });
  });
});
