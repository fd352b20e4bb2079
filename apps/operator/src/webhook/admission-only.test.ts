import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExternalCaller } from '@orkestra/reconciler';
import type { KubeObject } from '@orkestra/registry';
import { reconcileOnce } from '@orkestra/reconciler/offline';
import { loadKatalogOrThrow } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mechanismText, planAdmission } from '../generate/admission.js';
import { createAdmissionHandler } from './admission.js';

// Upstream's admission-only calls and rules (`fires.reconcile: false`, ADR 0104): the admission
// webhook makes the call and judges the rules that read it, and the rules so marked; the
// reconcile makes no such call and skips those rules.

const NOW = Date.parse('2026-12-06T10:00:00Z');
const clock = { now: () => NOW, setTimeout: () => ({}), clearTimeout: () => undefined };

/** The signing service: an image is signed when its tag is not `dev`. */
let server: Server;
let port = 0;
const asked: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const image = new URL(req.url ?? '/', 'http://x').searchParams.get('image') ?? '';
    asked.push(image);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ signed: String(!image.endsWith(':dev')) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const katalog = (): Katalog =>
  loadKatalogOrThrow({
    file: 'katalog.yaml',
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: ship }
spec:
  crds:
    release:
      apiTypes: { group: ship.example.com, version: v1, kind: Release, plural: releases }
      validation:
        external:
          - name: signature
            url: "http://127.0.0.1:${port}/verify?image={{ .spec.image }}"
            fires: { reconcile: false }
        rules:
          - { field: external.signature.json.signed, equals: "true", message: "{{ .spec.image }} is not signed" }
          - { field: spec.image, prefix: "r/", message: "images come from r/", fires: { reconcile: false } }
          - { field: spec.image, notSuffix: ":latest", message: "no latest tag" }
`,
  });
const DENY = '/validate/releases.ship.example.com/deny';
const cr = (image: string): KubeObject => ({
  apiVersion: 'ship.example.com/v1',
  kind: 'Release',
  metadata: { name: 'app', namespace: 'default', uid: 'uid-app' },
  spec: { image },
});
const review = (object: KubeObject) => ({ request: { uid: 'r', operation: 'CREATE', object } });
const noList = { list: () => Promise.reject(new Error('no list')) };
type Answer = { allowed: boolean; status?: { code: number; message: string } };

describe('admission-only calls and rules (fires.reconcile: false)', () => {
  it('plans them at admission and says the reconcile skips them', () => {
    const entry = katalog().spec.crds['release'];
    if (entry == null) throw new Error('no entry');
    const plan = planAdmission(entry);
    expect(plan.rules.map((r) => [r.rule, r.mechanism, r.admissionOnly])).toEqual([
      [
        'validation.rules[0]',
        'webhook-deny',
        'it reads external.signature, a call made at admission only (fires.reconcile: false)',
      ],
      ['validation.rules[1]', expect.stringMatching(/^(crd-rule|policy-deny)$/), 'fires.reconcile: false'],
      ['validation.rules[2]', expect.stringMatching(/^(crd-rule|policy-deny)$/), undefined],
    ]);
    expect(mechanismText(entry, plan.rules[0]!)).toMatch(
      /^operator admission webhook \/validate\/releases\.ship\.example\.com\/deny .*; at admission only, the reconcile skips it \(it reads external\.signature/,
    );
  });

  it('makes the call at admission and denies on its answer', async () => {
    const handler = createAdmissionHandler(katalog(), noList, {
      calls: { caller: new ExternalCaller({ allowAddresses: ['127.0.0.1/32'] }) },
    });
    asked.length = 0;
    const unsigned = (await handler(DENY, review(cr('r/app:dev'))))?.['response'] as Answer;
    expect(unsigned.allowed).toBe(false);
    expect(unsigned.status?.message).toContain('r/app:dev is not signed');
    const signed = (await handler(DENY, review(cr('r/app:1.0'))))?.['response'] as Answer;
    expect(signed.allowed).toBe(true);
    expect(asked).toEqual(['r/app:dev', 'r/app:1.0']);
  });

  it('judges neither rule at reconcile time: an unsigned image from elsewhere is reconciled', async () => {
    const { run } = await reconcileOnce(katalog(), cr('elsewhere/app:dev'), [], {}, { clock });
    expect(run.error).toBeUndefined();
    // The rule without fires is still the reconcile's.
    const latest = await reconcileOnce(katalog(), cr('r/app:latest'), [], {}, { clock });
    expect(latest.run.error?.code).toBe('ValidationFailed');
    expect(latest.run.error?.message).toMatch(/no latest tag$/);
  });
});
