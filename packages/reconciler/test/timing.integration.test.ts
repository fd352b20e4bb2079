/**
 * Timing on the local control plane (docs/reference/katalog.md §20): the entry's `requeue` reconciles a
 * CR again at its time, and a CR that keeps failing stops at `retryBackoff.maxAttempts` with
 * `RetriesExhausted` until its spec changes. Every reconcile makes one external call to a local
 * server, which records when each CR was reconciled.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { katalogFrom, sleep, syncedOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'tm', kind: 'Ticker', plural: 'tickers' });

/** Times (Date.now()) at which the server saw a call for each CR name. */
const calls = new Map<string, number[]>();
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    const [, mode = '', name = ''] = (req.url ?? '').split('/');
    calls.set(name, [...(calls.get(name) ?? []), Date.now()]);
    res.writeHead(mode === 'fail' ? 503 : 200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: timing}
spec:
  crds:
    ticker:
      apiTypes: {group: ${group}, version: v1, kind: Ticker, plural: tickers}
      resync: 1h
      requeue: 2s
      queue:
        retryBackoff: {initial: 300ms, max: 1s, multiplier: 2, maxAttempts: 3}
      operatorBox:
        external:
          - name: tick
            url: "http://127.0.0.1:${port}/{{ spec.mode }}/{{ metadata.name }}"
`),
    // The test's HTTP server is on loopback, which the address guard allows only explicitly.
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const gaps = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - (times[i] ?? t));

describe('requeue and retryBackoff on a control plane', () => {
  it('a CR with requeue: 2s is reconciled again every 2 s ± 1 s', async () => {
    await crs.create(env.namespace, 'steady', { mode: 'ok' });
    await waitFor('four reconciles of steady', () => (calls.get('steady')?.length ?? 0) >= 4, 20_000);
    const times = calls.get('steady') ?? [];
    // The first reconcile writes the status; its echo may reconcile once more at once (and set
    // the timer again). From then on, every reconcile is the timer's.
    const timed = gaps(times).slice(-2);
    for (const gap of timed) {
      expect(gap).toBeGreaterThanOrEqual(1000);
      expect(gap).toBeLessThanOrEqual(3000);
    }
  });

  it('a failing CR stops at maxAttempts with RetriesExhausted, and starts again when its spec changes', async () => {
    await crs.create(env.namespace, 'broken', { mode: 'fail' });
    await waitFor('RetriesExhausted', async () => {
      const cr = await crs.get(env.namespace, 'broken');
      return cr != null && syncedOf(cr)?.reason === 'RetriesExhausted';
    });
    const times = calls.get('broken') ?? [];
    expect(times).toHaveLength(3);
    const [first = 0, second = 0] = gaps(times);
    expect(first).toBeGreaterThanOrEqual(250);
    expect(first).toBeLessThan(1300);
    expect(second).toBeGreaterThanOrEqual(550);
    expect(second).toBeLessThan(1600);
    const cr = await crs.get(env.namespace, 'broken');
    expect(syncedOf(cr ?? ({} as never))?.message).toMatch(
      /gave up after 3 attempts; last failure ExternalCallFailed/,
    );
    // No more attempts: past the longest backoff and the requeue time, nothing is called.
    await sleep(3500);
    expect(calls.get('broken')).toHaveLength(3);
    // A new generation restarts the budget: three more attempts.
    await crs.patchSpec(env.namespace, 'broken', { mode: 'fail', note: 'try again' });
    await waitFor('three more attempts', () => (calls.get('broken')?.length ?? 0) >= 6, 20_000);
    await sleep(3000);
    expect(calls.get('broken')).toHaveLength(6);
  });
});
