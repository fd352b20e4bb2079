import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { admissionWebhookName, mutatingWebhookName } from '../src/generate/admission-webhook.js';
import { createApiTransport } from '../src/process/api-transport.js';
import { installCrds } from '../src/process/install-crds.js';
import { startWebhookEndpoint } from '../src/webhook/endpoint.js';
import { kubeRequest } from './kube-raw.js';

// The operator's mutating admission webhook on the real local control plane
// (docs/reference/katalog.md §11–§12, ADR 0092), wired as `ork dev` wires it: the endpoint on
// loopback, the CRDs and both webhook configurations installed by installCrds, the caBundle written
// by the endpoint's patch. A CR created over the API comes back stored with its templated default
// and override applied (a key with `/` among them), a default leaves a value the client sent, an
// update gets the override again, the deny rule judges the mutated object, and with the endpoint
// down the write is refused (failurePolicy Fail). A deny rule on a `validation.external` answer
// (ADR 0093) refuses a CR over its quota, the webhook calling a real HTTP server through the
// address guard (loopback allowed as `--allow-private-addresses` allows it).

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

/** The quota service: a CR named `greedy` is over its quota. */
const quota = createServer((req, res) => {
  const name = new URL(req.url ?? '/', 'http://x').searchParams.get('name');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ allowed: String(name !== 'greedy') }));
});
await new Promise<void>((resolve) => quota.listen(0, '127.0.0.1', resolve));
cleanup.push(() => new Promise((resolve) => quota.close(resolve)));
const quotaPort = (quota.address() as AddressInfo).port;

const suffix = randomBytes(3).toString('hex');
const group = `m${suffix}.hook.example.com`;
const katalog = loadKatalogOrThrow({
  file: 'katalog.yaml',
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: mutate-${suffix} }
spec:
  crds:
    widget:
      apiTypes: { group: ${group}, version: v1, kind: Widget, plural: widgets }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
                replicas: { type: integer }
      mutation:
        rules:
          - { field: spec.replicas, default: "1", valueType: int }
          - { field: spec.owner, default: "{{ .metadata.name }}-team" }
          - { field: spec.labels.app/name, override: "{{ .metadata.name }}" }
          - { field: spec.image, override: "registry.internal/{{ .spec.app }}", when: [{ field: spec.app, exists: true }] }
      validation:
        external:
          - { name: quota, url: "http://127.0.0.1:${quotaPort}/quota?name={{ .metadata.name }}" }
        rules:
          - { field: spec.image, prefix: "registry.internal/", message: "{{ .metadata.name }}: images must come from registry.internal/" }
          - { field: external.quota.json.allowed, equals: "true", message: "{{ .metadata.name }} is over its quota" }
`,
});

const widgets = (): string => `/apis/${group}/v1/namespaces/${env.namespace}/widgets`;
const create = (name: string, spec: Record<string, unknown>) =>
  kubeRequest(env.kubeConfig, 'POST', widgets(), {
    apiVersion: `${group}/v1`,
    kind: 'Widget',
    metadata: { name },
    spec,
  });
const configPath = (kind: 'mutating' | 'validating', name: string): string =>
  `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations/${name}`;

describe('mutating admission webhook on the local control plane', () => {
  it('stores the templated default and the override before validation, and refuses writes while down', async () => {
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
      tls: { secretName: `mutate-${suffix}-tls` },
      allowPrivateAddresses: ['127.0.0.1/32'],
    });
    let closed = false;
    cleanup.push(() => (closed ? Promise.resolve() : endpoint.close()));
    // Installed without the bundle: the endpoint's patch writes it, as it does after a rotation.
    const crds = await installCrds(api.client, katalog, {
      namespace: env.namespace,
      crds: { webhook: endpoint.clientConfig },
    });
    cleanup.push(() =>
      kubeRequest(env.kubeConfig, 'DELETE', configPath('mutating', mutatingWebhookName(katalog))),
    );
    cleanup.push(() =>
      kubeRequest(env.kubeConfig, 'DELETE', configPath('validating', admissionWebhookName(katalog))),
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
    // Both configurations get the bundle.
    expect(await endpoint.patchCaBundles()).toBe(2);
    const config = await kubeRequest(
      env.kubeConfig,
      'GET',
      configPath('mutating', mutatingWebhookName(katalog)),
    );
    const webhooks = config.body['webhooks'] as {
      name: string;
      failurePolicy: string;
      timeoutSeconds: number;
      clientConfig: { caBundle?: string; url?: string };
    }[];
    expect(webhooks.map((w) => [w.name, w.failurePolicy, w.timeoutSeconds])).toEqual([
      [`mutate.widgets.${group}`, 'Fail', 5],
    ]);
    expect(webhooks[0]?.clientConfig.url).toMatch(
      new RegExp(`/mutate/widgets\\.${group.replaceAll('.', '\\.')}$`),
    );
    expect(Buffer.from(webhooks[0]?.clientConfig.caBundle ?? '', 'base64').toString()).toBe(
      endpoint.caBundle(),
    );

    // The API server learns a new configuration shortly after it is written: retry until it calls.
    let first = await create('one', { app: 'web', image: 'docker.io/nginx', labels: { keep: 'x' } });
    for (let i = 0; i < 100 && (first.body['spec'] as { owner?: string } | undefined)?.owner == null; i++) {
      await kubeRequest(env.kubeConfig, 'DELETE', `${widgets()}/one`);
      await new Promise((r) => setTimeout(r, 200));
      first = await create('one', { app: 'web', image: 'docker.io/nginx', labels: { keep: 'x' } });
    }
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const expected = {
      app: 'web',
      // The override made the image pass the deny rule: validation judged the mutated object.
      image: 'registry.internal/web',
      labels: { keep: 'x', 'app/name': 'one' },
      owner: 'one-team',
      replicas: 1,
    };
    expect(first.body['spec']).toEqual(expected);
    const stored = await kubeRequest(env.kubeConfig, 'GET', `${widgets()}/one`);
    expect(stored.body['spec']).toEqual(expected);

    // A default leaves a value the client sent; an override replaces it.
    const sent = await create('two', {
      owner: 'me',
      image: 'registry.internal/app',
      labels: { 'app/name': 'x' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body['spec']).toEqual({
      owner: 'me',
      image: 'registry.internal/app',
      labels: { 'app/name': 'two' },
      replicas: 1,
    });
    // An update that changes the spec gets the override again.
    const updated = await kubeRequest(env.kubeConfig, 'PATCH', `${widgets()}/two`, {
      spec: { labels: { 'app/name': 'changed', more: 'y' } },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect((updated.body['spec'] as { labels?: unknown }).labels).toEqual({ 'app/name': 'two', more: 'y' });

    // Without the override's gate the image stays and the deny rule refuses it, with its message.
    const refused = await create('bad', { image: 'docker.io/nginx' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(String(refused.body['message'])).toContain(
      `denied the request: bad: images must come from registry.internal/`,
    );

    // The deny rule on the quota service's answer, called by the webhook at admission.
    const greedy = await create('greedy', { image: 'registry.internal/app' });
    expect(greedy.status, JSON.stringify(greedy.body)).toBe(403);
    expect(String(greedy.body['message'])).toContain('denied the request: greedy is over its quota');

    // Down: the mutating webhook fails closed.
    await endpoint.close();
    closed = true;
    const down = await create('while-down', { app: 'web' });
    expect(down.status).not.toBe(201);
    expect(String(down.body['message'])).toContain(`failed calling webhook "mutate.widgets.${group}"`);
  });
});
