import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { startInProcessOperator } from './in-process-operator.js';
import { kubeRequest } from './kube-raw.js';
import { until } from './until.js';

// Upstream's admission-only mutation on the real local control plane (docs/reference/katalog.md
// §11, ADR 0112). The operator runs as `ork run` without a webhook endpoint, so nothing admits: a
// CR is reconciled (its ConfigMap written, Ready), the rule without `fires` is applied by the
// reconcile, and neither the rule marked `fires: {reconcile: false}` nor the one reading a
// `mutation.external` answer is — the stored spec keeps what the client sent there, and the
// registry is never called. Then the operator runs as `ork dev` runs it (the webhook on loopback):
// a CR created over the API is stored with both, from the registry's answer.

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

/** The registry: resolves an image to a digest. */
const asked: string[] = [];
const registry = createServer((req, res) => {
  const image = new URL(req.url ?? '/', 'http://x').searchParams.get('image') ?? '';
  asked.push(image);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ digest: `sha256:${image.length}` }));
});
await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
cleanup.push(() => new Promise((resolve) => registry.close(resolve)));
const registryPort = (registry.address() as AddressInfo).port;

describe('admission-only mutation rules on the local control plane', () => {
  it('the reconcile applies the other rules and not these; the mutating webhook applies them', async () => {
    const suffix = randomBytes(3).toString('hex');
    const group = `a${suffix}.only.example.com`;
    const dir = mkdtempSync(join(tmpdir(), 'orkestra-admission-only-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'katalog.yaml');
    writeFileSync(
      file,
      `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: only-${suffix} }
spec:
  crds:
    release:
      apiTypes: { group: ${group}, version: v1, kind: Release, plural: releases }
      mutation:
        external:
          - name: registry
            url: "http://127.0.0.1:${registryPort}/resolve?image={{ .spec.image }}"
            fires: { reconcile: false }
        rules:
          - { field: spec.digest, override: "{{ .external.registry.json.digest }}" }
          - { field: spec.owner, override: "{{ .metadata.namespace }}-team", fires: { reconcile: false } }
          - { field: spec.track, default: "{{ .spec.image }}" }
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-release"
              data: { owner: "{{ .spec.owner }}", track: "{{ .spec.track }}" }
`,
    );
    const releases = `/apis/${group}/v1/namespaces/${env.namespace}/releases`;
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/releases.${group}`;
    cleanup.push(async () => {
      await kubeRequest(env.kubeConfig, 'PATCH', crdPath, {
        metadata: { annotations: { 'orkestra.konductor.io/allow-delete': 'true' } },
      });
      await kubeRequest(env.kubeConfig, 'DELETE', crdPath);
    });
    const create = (name: string) =>
      kubeRequest(env.kubeConfig, 'POST', releases, {
        apiVersion: `${group}/v1`,
        kind: 'Release',
        metadata: { name },
        spec: { image: 'r/app:1.0', owner: 'me' },
      });
    const configMap = (name: string) =>
      kubeRequest(env.kubeConfig, 'GET', `/api/v1/namespaces/${env.namespace}/configmaps/${name}-release`);

    // `ork run` without a webhook endpoint: only the reconcile mutates.
    const plain = await startInProcessOperator({
      katalogFile: file,
      cwd: dir,
      kubeConfig: env.kubeConfig,
      namespace: env.namespace,
      args: ['--allow-private-addresses', '127.0.0.1/32'],
      options: { watchNamespace: env.namespace },
    });
    let plainDown = false;
    cleanup.push(() => (plainDown ? Promise.resolve() : plain.shutdown('test')));
    await plain.synced;
    expect((await create('plain')).status).toBe(201);
    const cm = await until(
      'the reconcile wrote plain-release',
      () => configMap('plain'),
      (r) => r.status === 200,
    );
    expect(cm.body['data']).toEqual({ owner: 'me', track: 'r/app:1.0' });
    const stored = await until(
      'plain is Ready',
      () => kubeRequest(env.kubeConfig, 'GET', `${releases}/plain`),
      (r) =>
        (
          (r.body['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ??
          []
        ).some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    // The reconcile set track; owner is what the client sent and digest is absent; nobody asked the registry.
    expect(stored.body['spec']).toEqual({ image: 'r/app:1.0', owner: 'me', track: 'r/app:1.0' });
    expect(asked).toEqual([]);
    await plain.shutdown('test');
    plainDown = true;

    // As `ork dev` runs it: the mutating webhook makes the call and applies both.
    const dev = await startInProcessOperator({
      katalogFile: file,
      cwd: dir,
      kubeConfig: env.kubeConfig,
      namespace: env.namespace,
      args: [
        '--webhook-bind-address',
        '127.0.0.1:0',
        '--webhook-service',
        'loopback',
        '--allow-private-addresses',
        '127.0.0.1/32',
      ],
      options: { watchNamespace: env.namespace },
    });
    cleanup.push(() => dev.shutdown('test'));
    await dev.synced;
    const created = await until(
      'the mutating webhook answers',
      () => create('admitted'),
      (r) => r.status === 201,
    );
    expect(created.body['spec']).toEqual({
      image: 'r/app:1.0',
      owner: `${env.namespace}-team`,
      digest: 'sha256:9',
      track: 'r/app:1.0',
    });
    expect(asked).toContain('r/app:1.0');
    const admitted = await until(
      'the reconcile wrote admitted-release',
      () => configMap('admitted'),
      (r) => r.status === 200,
    );
    expect(admitted.body['data']).toEqual({ owner: `${env.namespace}-team`, track: 'r/app:1.0' });
  }, 180_000);
});
