import { randomBytes } from 'node:crypto';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { admissionWebhookName } from '../src/generate/admission-webhook.js';
import { createApiTransport } from '../src/process/api-transport.js';
import { installCrds } from '../src/process/install-crds.js';
import { startWebhookEndpoint } from '../src/webhook/endpoint.js';
import { kubeRequest } from './kube-raw.js';

// Deny rules of one version judge requests made at another (docs/reference/katalog.md §12,
// ADR 0102) on the real local control plane, wired as `ork dev` wires it. The API server judges a
// version's `x-kubernetes-validations` only on requests made at that version: a rule written for
// v2 on a field v1alpha1 calls by another name is copied into v1alpha1's schema under that name; a
// rule on a field the conversion wraps has no one-to-one home at v1alpha1, so the operator's
// webhook judges v1alpha1 requests on the object converted to v2.

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

const suffix = randomBytes(3).toString('hex');
const group = `r${suffix}.versions.example.com`;
const katalogOf = () =>
  loadKatalogOrThrow({
    file: 'katalog.yaml',
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: versions-${suffix} }
spec:
  crds:
    widget:
      apiTypes: { group: ${group}, version: v2, kind: Widget, plural: widgets }
      versions:
        - name: v1alpha1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec: { type: object, properties: { size: { type: integer }, image: { type: string } } }
        - name: v2
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    replicas: { type: integer }
                    image: { type: object, properties: { name: { type: string } } }
      conversion:
        storageVersion: v2
        paths:
          - from: v1alpha1
            to: v2
            rules:
              - rename: { from: spec.size, to: spec.replicas }
              - wrap: { field: spec.image, key: name }
      validation:
        rules:
          - { field: spec.replicas, lte: 5, message: at most 5 replicas }
          - { field: spec.image.name, prefix: "registry.internal/", message: "images come from registry.internal/" }
`,
  });

const path = (version: string): string => `/apis/${group}/${version}/namespaces/${env.namespace}/widgets`;
const create = (version: string, name: string, spec: Record<string, unknown>) =>
  kubeRequest(env.kubeConfig, 'POST', path(version), {
    apiVersion: `${group}/${version}`,
    kind: 'Widget',
    metadata: { name },
    spec,
  });

describe('deny rules at every served version on the local control plane', () => {
  it('refuses a v1alpha1 write that breaks a v2 rule, by the translated CRD rule or the webhook, and admits valid writes at both', async () => {
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
      tls: { secretName: `versions-${suffix}-tls` },
    });
    cleanup.push(() => endpoint.close());
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
    await endpoint.patchCaBundles();
    const config = await kubeRequest(
      env.kubeConfig,
      'GET',
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
    );
    const webhooks = config.body['webhooks'] as { name: string; failurePolicy: string }[];
    expect(webhooks.map((w) => [w.name, w.failurePolicy])).toEqual([
      [`deny-versions.widgets.${group}`, 'Fail'],
    ]);

    // The API server learns the conversion webhook's and the configuration's bundle shortly after
    // they are written: retry until the webhook refuses.
    const badImage = { size: 2, image: 'docker.io/nginx' };
    let byWebhook = await create('v1alpha1', 'bad-image', badImage);
    for (let i = 0; i < 100 && byWebhook.status !== 403; i++) {
      if (byWebhook.status === 201) await kubeRequest(env.kubeConfig, 'DELETE', `${path('v2')}/bad-image`);
      await new Promise((r) => setTimeout(r, 200));
      byWebhook = await create('v1alpha1', 'bad-image', badImage);
    }
    expect(byWebhook.status, JSON.stringify(byWebhook.body)).toBe(403);
    expect(String(byWebhook.body['message'])).toContain(
      `admission webhook "deny-versions.widgets.${group}" denied the request: images come from registry.internal/`,
    );

    // The renamed field: v2's rule on spec.replicas judges spec.size at v1alpha1, in the CRD.
    const tooMany = await create('v1alpha1', 'too-many', { size: 9, image: 'registry.internal/app' });
    expect(tooMany.status, JSON.stringify(tooMany.body)).toBe(422);
    expect(String(tooMany.body['message'])).toContain('at most 5 replicas');

    // At v2 the rules are the CRD's own.
    const tooManyV2 = await create('v2', 'too-many-v2', {
      replicas: 9,
      image: { name: 'registry.internal/app' },
    });
    expect(tooManyV2.status, JSON.stringify(tooManyV2.body)).toBe(422);
    expect(String(tooManyV2.body['message'])).toContain('at most 5 replicas');
    const badImageV2 = await create('v2', 'bad-image-v2', {
      replicas: 1,
      image: { name: 'docker.io/nginx' },
    });
    expect(badImageV2.status, JSON.stringify(badImageV2.body)).toBe(422);
    expect(String(badImageV2.body['message'])).toContain('images come from registry.internal/');

    // Valid writes pass at either version and read at the other.
    const good = await create('v1alpha1', 'good', { size: 5, image: 'registry.internal/app' });
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    const goodV2 = await create('v2', 'good-v2', { replicas: 3, image: { name: 'registry.internal/db' } });
    expect(goodV2.status, JSON.stringify(goodV2.body)).toBe(201);
    const read = await kubeRequest(env.kubeConfig, 'GET', `${path('v2')}/good`);
    expect(read.body['spec']).toEqual({ replicas: 5, image: { name: 'registry.internal/app' } });
    const readBack = await kubeRequest(env.kubeConfig, 'GET', `${path('v1alpha1')}/good-v2`);
    expect(readBack.body['spec']).toEqual({ size: 3, image: 'registry.internal/db' });
  });
});
