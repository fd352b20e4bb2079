/**
 * Upstream's declarative rollback with `onRollback` templates on the local control plane
 * (docs/reference/katalog.md §20.4): after `consecutiveFailures` failed reconciles the CR is rolled
 * back — its `onRollback` children are applied over `.previous` (the last spec that reconciled),
 * nothing else runs (the entry's own child keeps the good version), Ready=False RolledBack — until
 * the spec changes; the next normal reconcile prunes the rollback's children. The failing step is
 * an external call to a local server.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { katalogFrom, readConfigMap, readyOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'rbt',
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
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: rollback-templates}
spec:
  crds:
    release:
      apiTypes: {group: ${group}, version: v1, kind: Release, plural: releases}
      resync: 1h
      queue:
        retryBackoff: {initial: 200ms, max: 500ms}
      rollback:
        trigger: {consecutiveFailures: 2, withinDuration: 5m}
        onRollback:
          configMaps:
            - name: "{{ .previous.metadata.name }}-fallback"
              data:
                version: "{{ .previous.spec.version }}"
                failed: "{{ spec.version }}"
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

describe('onRollback templates on a control plane', () => {
  it('applies the onRollback children over .previous after N failures, until the spec changes', async () => {
    const cfg = () => readConfigMap(env.kubeConfig, env.namespace, 'app-cfg');
    const fallback = () => readConfigMap(env.kubeConfig, env.namespace, 'app-fallback');
    await crs.create(env.namespace, 'app', { mode: 'ok', version: 'v1' });
    await waitFor('v1', async () => (await cfg())?.['version'] === 'v1');
    await crs.patchSpec(env.namespace, 'app', { mode: 'fail', version: 'v2' });
    await waitFor('the fallback child', async () => (await fallback()) != null);
    expect(await fallback()).toEqual({ version: 'v1', failed: 'v2' });
    // The status is written after the rollback's children are applied: wait for it, then read it.
    await waitFor('Ready=False RolledBack', async () => {
      const now = await crs.get(env.namespace, 'app');
      return now != null && readyOf(now)?.reason === 'RolledBack';
    });
    const cr = await crs.get(env.namespace, 'app');
    expect(readyOf(cr ?? ({} as never))?.reason).toBe('RolledBack');
    expect(readyOf(cr ?? ({} as never))?.message).toMatch(/onRollback children are applied/);
    // Only the rollback's children ran: the entry's own child keeps the last good version.
    expect(await cfg()).toEqual({ version: 'v1' });
    // A new spec ends the rollback; the normal reconcile prunes the rollback's child.
    await crs.patchSpec(env.namespace, 'app', { mode: 'ok', version: 'v3' });
    await waitFor('v3', async () => (await cfg())?.['version'] === 'v3');
    await waitFor('fallback pruned', async () => (await fallback()) == null);
    await waitFor('Ready again', async () => {
      const now = await crs.get(env.namespace, 'app');
      return now != null && readyOf(now)?.status === 'True';
    });
  });
});
