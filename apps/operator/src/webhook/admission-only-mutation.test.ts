import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExternalCaller } from '@orkestra/reconciler';
import { refOf } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import { reconcileOnce } from '@orkestra/reconciler/offline';
import { loadKatalogOrThrow } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mechanismText, planAdmission, unmadeAdmissionCalls } from '../generate/admission.js';
import { createAdmissionHandler } from './admission.js';

// Upstream's admission-only mutation (ADR 0112): the mutating webhook makes the `mutation.external`
// calls and applies the rules that read them, and the rules marked `fires.reconcile: false`; the
// reconcile makes no such call and applies neither.

const NOW = Date.parse('2026-12-06T10:00:00Z');
const clock = { now: () => NOW, setTimeout: () => ({}), clearTimeout: () => undefined };

/** The registry: resolves an image to its digest; `broken/…` images answer 503. */
let server: Server;
let port = 0;
const asked: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const image = new URL(req.url ?? '/', 'http://x').searchParams.get('image') ?? '';
    asked.push(image);
    if (image.startsWith('broken/')) {
      res.writeHead(503);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ digest: `sha256:${image.length.toString(16).padStart(4, '0')}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const katalogText = (): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: ship }
spec:
  crds:
    release:
      apiTypes: { group: ship.example.com, version: v1, kind: Release, plural: releases }
      mutation:
        external:
          - name: registry
            url: "http://127.0.0.1:${port}/resolve?image={{ .spec.image }}"
            fires: { reconcile: false }
        rules:
          - { field: spec.digest, override: "{{ .external.registry.json.digest }}" }
          - { field: spec.owner, override: "{{ .metadata.namespace }}-team", fires: { reconcile: false } }
          - { field: spec.track, default: "{{ .spec.image }}" }
`;
const katalog = (): Katalog => loadKatalogOrThrow({ file: 'katalog.yaml', text: katalogText() });
const MUTATE = '/mutate/releases.ship.example.com';
const cr = (image: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'ship.example.com/v1',
  kind: 'Release',
  metadata: { name: 'app', namespace: 'prod', uid: 'uid-app' },
  spec: { image, ...spec },
});
const review = (object: KubeObject) => ({ request: { uid: 'r', operation: 'CREATE', object } });
const noList = { list: () => Promise.reject(new Error('no list')) };
type Answer = { allowed: boolean; patch?: string; status?: { code: number; message: string } };
const opsOf = (answer: Answer): unknown =>
  answer.patch == null ? [] : JSON.parse(Buffer.from(answer.patch, 'base64').toString('utf8'));

describe('admission-only mutation (fires.reconcile: false, mutation.external)', () => {
  it('plans the rules on the mutating webhook and says the reconcile skips them', () => {
    const entry = katalog().spec.crds['release'];
    if (entry == null) throw new Error('no entry');
    const plan = planAdmission(entry);
    expect(plan.rules.map((r) => [r.rule, r.mechanism, r.admissionOnly])).toEqual([
      [
        'mutation.rules[0]',
        'webhook-mutate',
        'it reads external.registry, a call made at admission only (fires.reconcile: false)',
      ],
      ['mutation.rules[1]', 'webhook-mutate', 'fires.reconcile: false'],
      ['mutation.rules[2]', 'webhook-mutate', undefined],
    ]);
    expect(plan.webhook.mutate).toEqual([0, 1, 2]);
    expect(mechanismText(entry, plan.rules[0]!)).toMatch(
      /^operator mutating webhook \/mutate\/releases\.ship\.example\.com .*; at admission only, the reconcile skips it \(it reads external\.registry/,
    );
    expect(mechanismText(entry, plan.rules[2]!)).not.toMatch(/admission only/);
    expect(unmadeAdmissionCalls(entry)).toEqual([]);
  });

  it('makes the call at admission and sets what the rules read from its answer', async () => {
    const handler = createAdmissionHandler(katalog(), noList, {
      calls: { caller: new ExternalCaller({ allowAddresses: ['127.0.0.1/32'] }) },
    });
    asked.length = 0;
    const answer = (await handler(MUTATE, review(cr('r/app:1.0'))))?.['response'] as Answer;
    expect(answer.allowed).toBe(true);
    expect(opsOf(answer)).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/spec/digest', value: 'sha256:0009' },
        { op: 'add', path: '/spec/owner', value: 'prod-team' },
        { op: 'add', path: '/spec/track', value: 'r/app:1.0' },
      ]),
    );
    expect(asked).toEqual(['r/app:1.0']);
  });

  it('refuses the object (500, the call named) when the call fails, rather than store it unmutated', async () => {
    const handler = createAdmissionHandler(katalog(), noList, {
      calls: { caller: new ExternalCaller({ allowAddresses: ['127.0.0.1/32'] }) },
    });
    const answer = (await handler(MUTATE, review(cr('broken/app:1.0'))))?.['response'] as Answer;
    expect(answer.allowed).toBe(false);
    expect(answer.status?.code).toBe(500);
    expect(answer.status?.message).toMatch(/cannot apply release's mutation rules: .*registry/);
  });

  it('the address guard refuses the call as at reconcile time: the object is refused', async () => {
    const handler = createAdmissionHandler(katalog(), noList, { calls: { caller: new ExternalCaller() } });
    asked.length = 0;
    const answer = (await handler(MUTATE, review(cr('r/app:1.0'))))?.['response'] as Answer;
    expect(answer.allowed).toBe(false);
    expect(asked).toEqual([]);
  });

  it('applies neither rule at reconcile time, and makes no call', async () => {
    asked.length = 0;
    const { run, cluster } = await reconcileOnce(katalog(), cr('r/app:1.0'), [], {}, { clock });
    expect(run.error).toBeUndefined();
    const stored = cluster.get(refOf(cr('r/app:1.0')));
    // The rule without fires is still the reconcile's; the other two were admission's.
    expect(stored?.['spec']).toEqual({ image: 'r/app:1.0', track: 'r/app:1.0' });
    expect(asked).toEqual([]);
    // What admission set stays as set: the reconcile does not override it back.
    const admitted = cr('r/app:1.0', { digest: 'sha256:0009', owner: 'prod-team', track: 'r/app:1.0' });
    const again = await reconcileOnce(katalog(), admitted, [], {}, { clock });
    expect(again.cluster.get(refOf(admitted))?.['spec']).toEqual(admitted['spec']);
  });

  it('warns of an admission-only call no admission path makes', () => {
    const text = katalogText()
      .replace('override: "{{ .external.registry.json.digest }}"', 'override: fixed')
      .replace(
        '      mutation:',
        `      validation:
        external:
          - { name: unread, url: "http://127.0.0.1:${port}/x", fires: { reconcile: false } }
      operatorBox:
        external:
          - { name: boxed, url: "http://127.0.0.1:${port}/y", fires: { reconcile: false } }
          - { name: kept, url: "http://127.0.0.1:${port}/z" }
      mutation:`,
      );
    const entry = loadKatalogOrThrow({ file: 'k.yaml', text }).spec.crds['release'];
    if (entry == null) throw new Error('no entry');
    expect(unmadeAdmissionCalls(entry).map((c) => [c.path, c.message])).toEqual([
      [
        'mutation.external[0]',
        expect.stringMatching(/^registry .* no mutation rule the mutating webhook applies reads/),
      ],
      ['validation.external[0]', expect.stringMatching(/^unread is made at admission only .* never made/)],
      [
        'operatorBox.external[0]',
        expect.stringMatching(
          /^boxed .* admission makes only validation\.external and mutation\.external calls/,
        ),
      ],
    ]);
  });
});

// ADR 0114: a `mutation.external` call without `fires.reconcile: false` is made at admission and
// again at every reconcile, before step 7; the rules reading it apply at both.
describe('mutation.external made at reconcile too (ADR 0114)', () => {
  const both = (): Katalog =>
    loadKatalogOrThrow({
      file: 'katalog.yaml',
      text: katalogText().replace('            fires: { reconcile: false }\n', ''),
    });

  it('ork validate says the rule reading it applies at admission and at every reconcile after the call', () => {
    const entry = both().spec.crds['release'];
    if (entry == null) throw new Error('no entry');
    const plan = planAdmission(entry);
    expect(plan.rules.map((r) => [r.rule, r.mechanism, r.admissionOnly])).toEqual([
      ['mutation.rules[0]', 'webhook-mutate', undefined],
      ['mutation.rules[1]', 'webhook-mutate', 'fires.reconcile: false'],
      ['mutation.rules[2]', 'webhook-mutate', undefined],
    ]);
    expect(mechanismText(entry, plan.rules[0]!)).toMatch(
      /^operator mutating webhook \/mutate\/releases\.ship\.example\.com \(set at admission: .*\); and again at every reconcile after the mutation\.external call registry, made there too$/,
    );
    expect(mechanismText(entry, plan.rules[2]!)).toMatch(/; and again at every reconcile$/);
    expect(unmadeAdmissionCalls(entry)).toEqual([]);
  });

  it('the mutating webhook still makes the call at admission and sets the answer', async () => {
    const handler = createAdmissionHandler(both(), noList, {
      calls: { caller: new ExternalCaller({ allowAddresses: ['127.0.0.1/32'] }) },
    });
    asked.length = 0;
    const answer = (await handler(MUTATE, review(cr('r/app:2.0'))))?.['response'] as Answer;
    expect(answer.allowed).toBe(true);
    expect(opsOf(answer)).toEqual(
      expect.arrayContaining([{ op: 'add', path: '/spec/digest', value: 'sha256:0009' }]),
    );
    expect(asked).toEqual(['r/app:2.0']);
  });

  it('the reconcile applies the rule with the scripted answer (offline), not the admission-only one', async () => {
    const answers = { external: { registry: { json: { digest: 'sha256:beef' } } } };
    const { run, cluster } = await reconcileOnce(both(), cr('r/app:2.0'), [], answers, { clock });
    expect(run.error).toBeUndefined();
    expect(cluster.get(refOf(cr('r/app:2.0')))?.['spec']).toEqual({
      image: 'r/app:2.0',
      digest: 'sha256:beef',
      track: 'r/app:2.0',
    });
  });
});
