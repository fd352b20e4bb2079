import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, VersionApi } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, expect, it } from 'vitest';
import type { Operator } from '../src/process/operator.js';
import { OperatorStartError } from '../src/process/start/errors.js';
import { startInProcessOperator } from './in-process-operator.js';

// lifecycle.compatibility at start (docs/reference/katalog.md §2.5, ADR 0063), against the local
// control plane's real API server: outside the range the operator refuses to start before it
// installs anything; inside it starts and `/katalog` answers with the lifecycle block.

const env = useControlPlane();
const dir = mkdtempSync(join(tmpdir(), 'orkestra-lifecycle-'));
let running: Operator | undefined;
afterAll(async () => {
  await running?.shutdown('test done');
});

function katalog(name: string, group: string, kubernetes: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: ${name}, version: 1.0.0 }
lifecycle:
  maturity: beta
  compatibility:
    kubernetes: "${kubernetes}"
spec:
  crds:
    gadget:
      apiTypes: { group: ${group}, version: v1, kind: Gadget, plural: gadgets }
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`,
  );
  return file;
}

function start(file: string): Promise<Operator> {
  return startInProcessOperator({
    katalogFile: file,
    cwd: dir,
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    args: ['--metrics-bind-address', '127.0.0.1:0', '--log-level', 'error'],
    options: { watchNamespace: env.namespace },
  });
}

it('refuses to start on an API server outside compatibility.kubernetes, installing nothing', async () => {
  const server = (await env.kubeConfig.makeApiClient(VersionApi).getCode()).gitVersion;
  const error = await start(katalog('too-new', 'toonew.example.com', '>=99')).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OperatorStartError);
  expect((error as OperatorStartError).details).toEqual([
    `lifecycle.compatibility.kubernetes: the API server is ${server}; the Katalog requires >=99`,
  ]);
  await expect(
    env.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: 'gadgets.toonew.example.com' }),
  ).rejects.toThrow();
}, 120_000);

it('starts inside the range and serves lifecycle on /katalog', async () => {
  running = await start(katalog('verified', 'verified.example.com', '>=1.20'));
  await running.synced;
  const response = await fetch(`http://127.0.0.1:${running.metricsAddress?.port ?? 0}/katalog`);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body['lifecycle']).toEqual({ maturity: 'beta', compatibility: { kubernetes: '>=1.20' } });
}, 120_000);
