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

// Upstream's `mutation.external` made at every reconcile (docs/reference/katalog.md §11, ADR 0114)
// on the real local control plane. The operator runs as `ork run` without a webhook endpoint, so
// only the reconcile mutates: before step 7 it asks the registry (a real HTTP server in this
// test), the mutation rule writes the answer into the spec, and the child reads the same answer as
// `external.registry`. When the registry answers otherwise, the next reconcile writes the new
// value; when it fails, the CR shows Ready=False ExternalCallFailed and keeps what it had.

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

/** The registry: resolves an image to the digest of its current `release`; 0 answers 503. */
let release = 1;
const asked: string[] = [];
const registry = createServer((req, res) => {
  const image = new URL(req.url ?? '/', 'http://x').searchParams.get('image') ?? '';
  asked.push(image);
  if (release === 0) {
    res.writeHead(503);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ digest: `sha256:${image.length}-${release}` }));
});
await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
cleanup.push(() => new Promise((resolve) => registry.close(resolve)));
const registryPort = (registry.address() as AddressInfo).port;

type Condition = { type: string; status: string; reason?: string; message?: string };
const conditionsOf = (body: Record<string, unknown>): Condition[] =>
  (body['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? [];

describe('mutation.external at every reconcile on the local control plane', () => {
  it('the reconcile asks before mutating, writes the answer, and re-asks on the next reconcile', async () => {
    const suffix = randomBytes(3).toString('hex');
    const group = `m${suffix}.mutext.example.com`;
    const dir = mkdtempSync(join(tmpdir(), 'orkestra-mutation-external-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'katalog.yaml');
    writeFileSync(
      file,
      `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: mutext-${suffix} }
spec:
  crds:
    release:
      apiTypes: { group: ${group}, version: v1, kind: Release, plural: releases }
      mutation:
        external:
          - name: registry
            url: "http://127.0.0.1:${registryPort}/resolve?image={{ .spec.image }}"
        rules:
          - { field: spec.digest, override: "{{ .external.registry.json.digest }}" }
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-release"
              data: { answer: "{{ .external.registry.json.digest }}", spec: "{{ .spec.digest }}" }
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
    const configMap = () =>
      kubeRequest(env.kubeConfig, 'GET', `/api/v1/namespaces/${env.namespace}/configmaps/app-release`);
    const readRelease = () => kubeRequest(env.kubeConfig, 'GET', `${releases}/app`);
    const touch = (note: string) =>
      kubeRequest(env.kubeConfig, 'PATCH', `${releases}/app`, { spec: { note } });

    const operator = await startInProcessOperator({
      katalogFile: file,
      cwd: dir,
      kubeConfig: env.kubeConfig,
      namespace: env.namespace,
      args: ['--allow-private-addresses', '127.0.0.1/32'],
      options: { watchNamespace: env.namespace },
    });
    cleanup.push(() => operator.shutdown('test'));
    await operator.synced;
    const created = await kubeRequest(env.kubeConfig, 'POST', releases, {
      apiVersion: `${group}/v1`,
      kind: 'Release',
      metadata: { name: 'app' },
      spec: { image: 'r/app:1.0' },
    });
    expect(created.status).toBe(201);
    // No webhook: the object was stored as sent; the reconcile asked and wrote the answer.
    expect(created.body['spec']).toEqual({ image: 'r/app:1.0' });
    const first = await until(
      'the reconcile wrote app-release from the answer',
      configMap,
      (r) => r.status === 200 && (r.body['data'] as Record<string, string>)['spec'] === 'sha256:9-1',
    );
    expect(first.body['data']).toEqual({ answer: 'sha256:9-1', spec: 'sha256:9-1' });
    expect((await readRelease()).body['spec']).toEqual({ image: 'r/app:1.0', digest: 'sha256:9-1' });
    expect(asked).toContain('r/app:1.0');

    // The registry answers otherwise: the next reconcile writes the new answer over the old.
    release = 2;
    expect((await touch('second')).status).toBe(200);
    await until(
      'the next reconcile wrote the new answer',
      readRelease,
      (r) => (r.body['spec'] as Record<string, unknown>)['digest'] === 'sha256:9-2',
    );
    await until(
      'the child follows',
      configMap,
      (r) => (r.body['data'] as Record<string, string>)['spec'] === 'sha256:9-2',
    );

    // The registry fails: Ready=False ExternalCallFailed, naming the call; the spec keeps what it had.
    release = 0;
    expect((await touch('third')).status).toBe(200);
    const failed = await until('the failed call is shown', readRelease, (r) =>
      conditionsOf(r.body).some((c) => c.type === 'Ready' && c.reason === 'ExternalCallFailed'),
    );
    const ready = conditionsOf(failed.body).find((c) => c.type === 'Ready');
    expect(ready?.status).toBe('False');
    expect(ready?.message).toMatch(/mutation\.external\[0\].*registry failed/);
    expect((failed.body['spec'] as Record<string, unknown>)['digest']).toBe('sha256:9-2');
  }, 180_000);
});
