import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { ExternalCall, OrkestraError } from '@orkestra/types';
import type { EvaluateConditionsOptions } from '@orkestra/types';
import { ManualClock } from '../../clock.js';
import { LOOPBACK_CIDRS } from '../address-guard.js';
import { ExternalCaller, callAddress } from '../external.js';
import type { HookServices } from '../hook-unit.js';
import { compileExternalCalls, runExternalCalls } from './index.js';

/**
 * A failed external call names the server it went to (docs/reference/runtime.md §14.4), so the
 * `ExternalCallFailed` condition of a CR whose peer is down says which source, whatever the error
 * text (a timeout names none) — without the URL's user-info, path or query.
 */

const clock = new ManualClock(Date.parse('2026-12-06T12:00:00Z'));
const engine = createTemplateEngine({ clock });
const conditions: EvaluateConditionsOptions = {
  renderTemplate: (source, context) => engine.renderTemplate(source, context),
  now: () => new Date(clock.now()),
};

/** closedPort is a loopback port nothing listens on (opened, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const cr: KubeObject = {
  apiVersion: 'peer.example.io/v1',
  kind: 'Gauge',
  metadata: { name: 'g1', namespace: 'default', uid: 'u1', resourceVersion: '1', generation: 1 },
  spec: { entry: 'loader' },
};

describe('callAddress', () => {
  it.each([
    ['http://127.0.0.1:9090/api/v1/query?query=up', 'http://127.0.0.1:9090'],
    ['https://bot:s3cret@peer.shop:8082/katalog?token=t', 'https://peer.shop:8082'],
    ['postgres://reader@db.shop:5432/orders', 'postgres://db.shop:5432'],
    ['kafka://b1:9092,b2:9092', 'kafka://b1:9092,b2:9092'],
    ['http://[::1]:8082', 'http://[::1]:8082'],
    // A password written with a raw `/`: nothing of it may show.
    ['postgres://reader:pa/ss@db.shop:5432/orders', 'postgres://db.shop:5432'],
    ['not a url', ''],
  ])('%s → %s', (url, address) => {
    expect(callAddress(url)).toBe(address);
  });
});

describe('a failed external call', () => {
  it('names the server it went to in the ExternalCallFailed message, without credentials', async () => {
    const port = await closedPort();
    const declaration = ExternalCall.parse({
      name: 'peer',
      protocol: 'prometheus',
      url: `http://127.0.0.1:${port}/api/v1/query`,
      query: 'controller_runtime_max_concurrent_reconciles{controller="{{ spec.entry }}"}',
      auth: { secretRef: { name: 'peer-token', key: 'token' } },
      timeout: '2s',
    });
    const compiled = compileExternalCalls([declaration], 'spec.crds.gauge.operatorBox.external', engine);
    const caller = new ExternalCaller({
      allowAddresses: LOOPBACK_CIDRS,
      readSecret: () => Promise.resolve('tok-123'),
    });
    const services = { external: caller, conditions } as unknown as HookServices;
    const run = runExternalCalls(
      services,
      compiled,
      {
        crd: { name: 'gauge', katalogPath: 'spec.crds.gauge' } as never,
        cr,
        context: { spec: cr['spec'] },
        signal: new AbortController().signal,
      },
      {},
    );
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OrkestraError);
    const message = (error as OrkestraError).message;
    expect(message).toMatch(
      new RegExp(
        `^spec\\.crds\\.gauge\\.operatorBox\\.external\\[0\\]: external call peer failed: .+ \\(http://127\\.0\\.0\\.1:${port}\\)$`,
      ),
    );
    expect(message).not.toContain('tok-123');
    expect(message).not.toContain('max_concurrent');
  });
});
