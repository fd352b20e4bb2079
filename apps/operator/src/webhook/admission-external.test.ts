import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExternalCaller } from '@orkestra/reconciler';
import type { KubeObject } from '@orkestra/registry';
import { reconcileOnce } from '@orkestra/reconciler/offline';
import { loadKatalogOrThrow } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planAdmission } from '../generate/admission.js';
import { createAdmissionHandler } from './admission.js';

// `validation.external` at admission (docs/reference/katalog.md §12, ADR 0093): the webhook makes
// the entry's calls with the reconcile's code and caller (its address guard), bounded well under
// the webhook's timeout, and judges the rules reading their results as the reconcile does.

const NOW = Date.parse('2026-12-06T10:00:00Z');
const clock = { now: () => NOW, setTimeout: () => ({}), clearTimeout: () => undefined };

/** The quota service: `allowed` is "true" for names shorter than 5 characters; /slow never answers. */
let server: Server;
let port = 0;
let requests = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/slow') return; // never answers
    const name = url.searchParams.get('name') ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ allowed: String(name.length < 5) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const katalogOf = (path: string): Katalog =>
  loadKatalogOrThrow({
    file: 'katalog.yaml',
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      validation:
        external:
          - { name: quota, url: "http://127.0.0.1:${port}${path}?name={{ .metadata.name }}" }
        rules:
          - { field: external.quota.json.allowed, equals: "true", message: "{{ .metadata.name }} is over its quota" }
          - { field: spec.size, exists: true, action: warn, message: "{{ .metadata.name }} has no size ({{ .external.quota.json.allowed }})" }
`,
  });
const DENY = '/validate/shops.shop.example.com/deny';
const WARN = '/validate/shops.shop.example.com/warn';
const cr = (name: string): KubeObject => ({
  apiVersion: 'shop.example.com/v1',
  kind: 'Shop',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: {},
});
const review = (object: KubeObject) => ({ request: { uid: 'r', operation: 'CREATE', object } });
const noList = { list: () => Promise.reject(new Error('no list')) };
type Answer = { allowed: boolean; status?: { code: number; message: string }; warnings?: string[] };

describe('validation.external at admission', () => {
  it('sends the rules that read the calls’ results to the webhook', () => {
    const entry = katalogOf('/quota').spec.crds['shop'];
    if (entry == null) throw new Error('no entry');
    expect(planAdmission(entry).webhook).toEqual({
      deny: [0],
      warn: [1],
      mutate: [],
      denyAt: [],
      denyAtVersions: [],
    });
  });

  it('judges with the answers as the reconcile does with the same answers', async () => {
    const katalog = katalogOf('/quota');
    const handler = createAdmissionHandler(katalog, noList, {
      calls: { caller: new ExternalCaller({ allowAddresses: ['127.0.0.1/32'] }) },
    });
    for (const name of ['web', 'shop-big', 'a', 'abcdefgh']) {
      const deny = (await handler(DENY, review(cr(name))))?.['response'] as Answer;
      const warn = (await handler(WARN, review(cr(name))))?.['response'] as Answer;
      const allowed = String(name.length < 5);
      const { run } = await reconcileOnce(
        katalog,
        cr(name),
        [],
        { external: { quota: { json: { allowed } } } },
        { clock },
      );
      const failed = run.error?.code === 'ValidationFailed';
      expect(deny.allowed).toBe(!failed);
      if (failed) expect(run.error?.message.endsWith(deny.status?.message ?? '?')).toBe(true);
      else expect(warn.warnings).toEqual([`${name} has no size (${allowed})`]);
    }
  });

  it('refuses a call the address guard refuses, and the deny webhook fails closed', async () => {
    const before = requests;
    const handler = createAdmissionHandler(katalogOf('/quota'), noList, {
      calls: { caller: new ExternalCaller() },
    });
    const deny = (await handler(DENY, review(cr('web'))))?.['response'] as Answer;
    expect(deny.allowed).toBe(false);
    expect(deny.status?.code).toBe(500);
    expect(deny.status?.message).toMatch(/external call quota failed/);
    const warn = (await handler(WARN, review(cr('web'))))?.['response'] as Answer;
    expect(warn.allowed).toBe(true);
    expect(warn.warnings?.[0]).toMatch(/cannot judge shop's validation rules/);
    expect(requests).toBe(before);
  });

  it('gives up on a call at the bound, under the webhook’s timeout', async () => {
    const handler = createAdmissionHandler(katalogOf('/slow'), noList, {
      calls: { caller: new ExternalCaller({ allowAddresses: ['127.0.0.1/32'] }), timeoutMs: 200 },
    });
    const deny = (await handler(DENY, review(cr('web'))))?.['response'] as Answer;
    expect(deny.allowed).toBe(false);
    // Ended by the review's bound, not by the call's own 10 s timeout.
    expect(deny.status?.message).toMatch(/external call quota failed: aborted/);
  });
});
