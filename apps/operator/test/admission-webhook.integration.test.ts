import { randomBytes } from 'node:crypto';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { admissionWebhookName } from '../src/generate/admission-webhook.js';
import { createApiTransport } from '../src/process/api-transport.js';
import { installCrds } from '../src/process/install-crds.js';
import { startWebhookEndpoint } from '../src/webhook/endpoint.js';
import { kubeRequest } from './kube-raw.js';

// The operator's own admission webhook on the real local control plane (docs/reference/katalog.md
// §12, ADR 0089), wired as `ork dev` wires it: the endpoint on loopback, the CRDs and the
// ValidatingWebhookConfiguration installed by installCrds, the caBundle written by the endpoint's
// patch, and rewritten after a CA renewal. A CR that breaks a templated deny rule is refused with the rule's message; a templated
// warn rule admits with a Warning header; with the endpoint down, the deny webhook (Fail) refuses
// and the warn-only one (Ignore) admits.

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

const suffix = randomBytes(3).toString('hex');
const group = `w${suffix}.hook.example.com`;
/** katalogOf loads the Katalog (inside the test: it names the test's namespace). */
const katalogOf = () =>
  loadKatalogOrThrow({
    file: 'katalog.yaml',
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: hook-${suffix} }
spec:
  crds:
    gadget:
      apiTypes: { group: ${group}, version: v1, kind: Gadget, plural: gadgets }
      restrictedNamespaces: ["kube-*", "*-blocked"]
      validation:
        rules:
          - { field: spec.image, prefix: "registry.internal/", message: "{{ .metadata.name }}: images must come from registry.internal/" }
          - { field: spec.tier, exists: true, action: warn, message: "{{ .metadata.name }} has no tier" }
    note:
      apiTypes: { group: ${group}, version: v1, kind: Note, plural: notes }
      validation:
        rules:
          - { field: spec.text, exists: true, action: warn, message: "{{ .metadata.name }} says nothing" }
    memo:
      apiTypes: { group: ${group}, version: v1, kind: Memo, plural: memos }
      restrictedNamespaces: ["${env.namespace}"]
      validation:
        rules:
          - { field: spec.text, exists: true, action: warn, message: "{{ .metadata.name }} says nothing" }
`,
  });

const path = (plural: string): string => `/apis/${group}/v1/namespaces/${env.namespace}/${plural}`;
const create = (plural: string, kind: string, name: string, spec: Record<string, unknown>) =>
  kubeRequest(env.kubeConfig, 'POST', path(plural), {
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name },
    spec,
  });

describe('admission webhook on the local control plane', () => {
  it('refuses a templated deny rule with its message, warns for a warn rule, and fails as its failurePolicy says when down', async () => {
    const katalog = katalogOf();
    const api = createApiTransport({
      kubeConfig: env.kubeConfig,
      katalogName: katalog.metadata.name,
      restRequest: () => undefined,
    });
    const endpoint = await startWebhookEndpoint({
      client: api.client,
      katalog,
      namespace: env.namespace,
      bindAddress: '127.0.0.1:0',
      service: 'loopback',
      tls: { secretName: `hook-${suffix}-tls` },
    });
    let closed = false;
    cleanup.push(() => (closed ? Promise.resolve() : endpoint.close()));
    // Installed without the bundle: the endpoint's patch writes it, as it does after a rotation.
    const crds = await installCrds(api.client, katalog, {
      namespace: env.namespace,
      crds: { webhook: endpoint.clientConfig },
    });
    const name = admissionWebhookName(katalog);
    cleanup.push(() =>
      kubeRequest(
        env.kubeConfig,
        'DELETE',
        `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
      ),
    );
    for (const crd of crds) {
      cleanup.push(async () => {
        const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`;
        await kubeRequest(env.kubeConfig, 'PATCH', crdPath, {
          metadata: { annotations: { 'orkestra.konductor.io/allow-delete': 'true' } },
        });
        await kubeRequest(env.kubeConfig, 'DELETE', crdPath);
      });
    }
    expect(await endpoint.patchCaBundles()).toBe(1);
    const config = await kubeRequest(
      env.kubeConfig,
      'GET',
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
    );
    const webhooks = config.body['webhooks'] as {
      name: string;
      failurePolicy: string;
      clientConfig: { caBundle?: string; url?: string };
    }[];
    expect(webhooks.map((w) => [w.name, w.failurePolicy])).toEqual([
      [`deny.gadgets.${group}`, 'Fail'],
      [`warn.gadgets.${group}`, 'Ignore'],
      [`warn.notes.${group}`, 'Ignore'],
      [`warn.memos.${group}`, 'Ignore'],
    ]);
    for (const w of webhooks)
      expect(Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString()).toBe(endpoint.caBundle());

    // The API server learns a new configuration shortly after it is written: retry until it calls.
    let refused = await create('gadgets', 'Gadget', 'bad', { image: 'docker.io/nginx', tier: 'gold' });
    for (let i = 0; i < 100 && refused.status === 201; i++) {
      await kubeRequest(env.kubeConfig, 'DELETE', `${path('gadgets')}/bad`);
      await new Promise((r) => setTimeout(r, 200));
      refused = await create('gadgets', 'Gadget', 'bad', { image: 'docker.io/nginx', tier: 'gold' });
    }
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(String(refused.body['message'])).toContain(
      `admission webhook "deny.gadgets.${group}" denied the request: bad: images must come from registry.internal/`,
    );

    const warned = await create('gadgets', 'Gadget', 'plain', { image: 'registry.internal/app' });
    expect(warned.status, JSON.stringify(warned.body)).toBe(201);
    expect(warned.warnings).toContain('plain has no tier');
    const clean = await create('gadgets', 'Gadget', 'clean', {
      image: 'registry.internal/app',
      tier: 'gold',
    });
    expect(clean.status).toBe(201);
    expect(clean.warnings).toEqual([]);
    const said = await create('notes', 'Note', 'loud', {});
    expect(said.warnings).toContain('loud says nothing');
    // Not judged in a namespace the entry's restrictedNamespaces block (the reconcile refuses it first).
    const memo = await create('memos', 'Memo', 'blocked', {});
    expect(memo.status).toBe(201);
    expect(memo.warnings).toEqual([]);
    // An update that leaves spec alone is not sent to the webhook (matchConditions).
    const labelled = await kubeRequest(env.kubeConfig, 'PATCH', `${path('gadgets')}/plain`, {
      metadata: { labels: { seen: 'yes' } },
    });
    expect(labelled.status).toBe(200);
    expect(labelled.warnings).toEqual([]);

    // A new CA (here: the Secret is gone, so the next check issues one) is written into the
    // configuration by the endpoint's check, as into the converting CRDs.
    const firstBundle = endpoint.caBundle();
    await kubeRequest(
      env.kubeConfig,
      'DELETE',
      `/api/v1/namespaces/${env.namespace}/secrets/hook-${suffix}-tls`,
    );
    await endpoint.checkNow();
    expect(endpoint.caBundle()).not.toBe(firstBundle);
    const renewed = await kubeRequest(
      env.kubeConfig,
      'GET',
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
    );
    for (const w of renewed.body['webhooks'] as { clientConfig: { caBundle?: string } }[])
      expect(Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString()).toBe(endpoint.caBundle());

    // Down: the deny webhook fails closed, the warn-only kind is admitted without its warning.
    await endpoint.close();
    closed = true;
    const down = await create('gadgets', 'Gadget', 'while-down', { image: 'registry.internal/app' });
    expect(down.status).not.toBe(201);
    expect(String(down.body['message'])).toContain(`failed calling webhook "deny.gadgets.${group}"`);
    const note = await create('notes', 'Note', 'quiet', {});
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    expect(note.warnings).toEqual([]);
  });
});
