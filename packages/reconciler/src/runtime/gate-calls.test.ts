import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { PreReconcile } from '@orkestra/types';
import type { EvaluateConditionsOptions } from '@orkestra/types';
import { CacheChangeType } from '../cache.js';
import { ManualClock } from '../clock.js';
import { LOOPBACK_CIDRS } from '../hooks/address-guard.js';
import { ExternalCaller } from '../hooks/external.js';
import type { CompiledCrd } from './compile-katalog.js';
import { createGateCalls } from './gate-calls.js';
import { PreReconcileGates } from './gates.js';
import { noopObserver } from './runtime-observer.js';

/**
 * The external calls of pre-reconcile gates (docs/reference/katalog.md §20.3, ADR 0070), made
 * through a real ExternalCaller (address guard, timeouts) against a local HTTP server whose answer
 * each test sets: open, closed, an error status, or down.
 */

const clock = new ManualClock(Date.parse('2026-12-07T10:00:00Z'));
const engine = createTemplateEngine({ clock });
const conditions: EvaluateConditionsOptions = {
  renderTemplate: (source, context) => engine.renderTemplate(source, context),
  now: () => new Date(clock.now()),
};
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };

let answer: { status: number; body: string } = { status: 200, body: '{"open":true}' };
let hits = 0;
let authorization: string | undefined;
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    authorization = req.headers.authorization;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const cr = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'demo.example.io/v1',
  kind: 'Gadget',
  metadata: { name: 'g', namespace: 'default', uid: 'u1', resourceVersion: '1', generation: 1 },
  spec,
});

/** setup builds an entry's gates over a real caller; `guarded` leaves loopback blocked by the address guard. */
function setup(preReconcile: unknown, options: { guarded?: boolean; secrets?: Record<string, string> } = {}) {
  const pre = PreReconcile.parse(preReconcile);
  const crd = {
    name: 'gadget',
    katalogPath: 'spec.crds.gadget',
    entry: { preReconcile: pre },
  } as unknown as CompiledCrd;
  const caller = new ExternalCaller({
    clock,
    ...(options.guarded === true ? {} : { allowAddresses: LOOPBACK_CIDRS }),
    readSecret: (namespace, name, key) => Promise.resolve(options.secrets?.[`${namespace}/${name}/${key}`]),
  });
  const calls = createGateCalls({ crd, engine, services: { external: caller, conditions } });
  const gated: string[] = [];
  const queued: string[] = [];
  const notified: Record<string, unknown>[] = [];
  const gates = new PreReconcileGates({
    controller: 'gadget',
    preReconcile: pre,
    conditions,
    observer: { ...noopObserver, reconcileGated: (_c, gate, reason) => gated.push(`${gate} ${reason}`) },
    client: { patchStatus: (_ref, status) => Promise.resolve({ ...cr(), status }) },
    primary: { upsertFromWrite: () => true },
    apiVersion: 'demo.example.io/v1',
    clock,
    logger: silent,
    calls,
    requeue: (key) => queued.push(key),
    gated: (_gate, _verdict, context) => notified.push(context as Record<string, unknown>),
  });
  return { gates, gated, queued, notified, calls };
}

const gateCall = (failPolicy: 'open' | 'closed', url = '/window') => ({
  reconcileGate: {
    failPolicy,
    external: [{ name: 'window', url: `${base}${url}`, timeout: '2s' }],
    when: [{ field: 'external.window.json.open', equals: 'true' }],
  },
});

describe('gate external calls', () => {
  it('reconcileGate reads the answer: open passes, closed holds (not_met), and the notifier sees the context', async () => {
    const { gates, gated, notified } = setup(gateCall('closed'));
    answer = { status: 200, body: '{"open":true}' };
    expect(await gates.check('default/g', cr(), silent)).toBe(true);
    answer = { status: 200, body: '{"open":false}' };
    expect(await gates.check('default/g', cr(), silent)).toBe(false);
    expect(gated).toEqual(['reconcile not_met']);
    expect(notified[0]).toMatchObject({
      gate: { name: 'reconcile', reason: 'not_met' },
      external: { window: { called: true, ok: true, json: { open: false } } },
    });
  });

  it('a failed call holds under failPolicy closed (external_failed) and passes under open', async () => {
    answer = { status: 503, body: 'down for maintenance' };
    const closed = setup(gateCall('closed'));
    expect(await closed.gates.check('default/g', cr(), silent)).toBe(false);
    expect(closed.gated).toEqual(['reconcile external_failed']);
    const open = setup(gateCall('open'));
    expect(await open.gates.check('default/g', cr(), silent)).toBe(true);
    expect(open.gated).toEqual([]);
  });

  it('a server that is down is a failed call, decided by failPolicy', async () => {
    const down = 'http://127.0.0.1:9'; // discard port: nothing listens
    const pre = (failPolicy: 'open' | 'closed') => ({
      reconcileGate: {
        failPolicy,
        external: [{ name: 'window', url: `${down}/window`, timeout: '2s' }],
        when: [{ field: 'external.window.json.open', equals: 'true' }],
      },
    });
    const closed = setup(pre('closed'));
    expect(await closed.gates.check('default/g', cr(), silent)).toBe(false);
    expect(closed.gated).toEqual(['reconcile external_failed']);
    expect(await setup(pre('open')).gates.check('default/g', cr(), silent)).toBe(true);
  });

  it('the address guard applies to gate calls: a blocked address is a failed call', async () => {
    answer = { status: 200, body: '{"open":true}' };
    const before = hits;
    const { gates, gated } = setup(gateCall('closed'), { guarded: true });
    expect(await gates.check('default/g', cr(), silent)).toBe(false);
    expect(gated).toEqual(['reconcile external_failed']);
    expect(hits).toBe(before); // never reached the server
  });

  it('a failed shared preReconcile.external call is fail-open, whatever the gate failPolicy', async () => {
    const { gates } = setup({
      external: [{ name: 'meta', url: 'http://127.0.0.1:9/meta', timeout: '2s' }],
      reconcileGate: { failPolicy: 'closed', when: [{ field: 'spec.on', equals: 'yes' }] },
    });
    expect(await gates.check('default/g', cr({ on: 'yes' }), silent)).toBe(true);
  });

  it('enqueueGate never waits for a call: it holds the first event, queues the key when the answer passes it, then decides with the last answer', async () => {
    answer = { status: 200, body: '{"open":true}' };
    const { gates, gated, queued } = setup({
      enqueueGate: {
        failPolicy: 'closed',
        external: [{ name: 'window', url: `${base}/window`, timeout: '2s' }],
        when: [{ field: 'external.window.json.open', equals: 'true' }],
      },
    });
    const event = { type: CacheChangeType.Update, key: 'default/g', object: cr(), old: cr() } as const;
    expect(gates.admit(event)).toBe(false); // synchronous: no answer yet
    expect(gated).toEqual(['enqueue awaiting_external']);
    await gates.idle();
    expect(queued).toEqual(['default/g']);
    // The next event is decided at once with the kept answer (and the call is made again).
    expect(gates.admit(event)).toBe(true);
    await gates.idle();
    answer = { status: 200, body: '{"open":false}' };
    expect(gates.admit(event)).toBe(true); // still the last answer (open)
    await gates.idle();
    expect(gates.admit(event)).toBe(false); // now closed
    expect(gated).toEqual(['enqueue awaiting_external', 'enqueue not_met']);
    await gates.idle();
    expect(queued).toEqual(['default/g']); // the held event waits for a newer answer
    answer = { status: 200, body: '{"open":true}' };
    expect(gates.admit(event)).toBe(false); // decided with "closed", asks again
    await gates.idle();
    expect(queued).toEqual(['default/g', 'default/g']); // the new answer passes the held event
  });

  it("a gate call's auth.secretRef credential is read from the CR's namespace and sent; a missing one fails the call", async () => {
    answer = { status: 200, body: '{"open":true}' };
    const pre = {
      reconcileGate: {
        failPolicy: 'closed',
        external: [
          {
            name: 'window',
            url: `${base}/window`,
            timeout: '2s',
            auth: { secretRef: { name: 'api', key: 'token' } },
          },
        ],
        when: [{ field: 'external.window.json.open', equals: 'true' }],
      },
    };
    const withSecret = setup(pre, { secrets: { 'default/api/token': 's3cret' } });
    expect(await withSecret.gates.check('default/g', cr(), silent)).toBe(true);
    expect(authorization).toBe('Bearer s3cret');
    const without = setup(pre);
    expect(await without.gates.check('default/g', cr(), silent)).toBe(false);
    expect(without.gated).toEqual(['reconcile external_failed']);
  });

  it('no calls declared: no GateCalls', () => {
    expect(setup({ reconcileGate: { when: [{ field: 'spec.on', equals: 'yes' }] } }).calls).toBeUndefined();
  });
});
