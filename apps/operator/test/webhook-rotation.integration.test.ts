import { X509Certificate, randomBytes } from 'node:crypto';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { loadKatalogOrThrow } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSIONED_KATALOG } from '../src/conversion/fixture.test-support.js';
import { generateCrds } from '../src/generate/generate-crds.js';
import { createApiTransport } from '../src/process/api-transport.js';
import { startWebhookEndpoint } from '../src/webhook/endpoint.js';
import { kubeRequest } from './kube-raw.js';

// Certificate rotation by the operator's own endpoint, on the real local control plane
// (docs/reference/runtime.md §26, ADR 0057, ADR 0085): startWebhookEndpoint as `ork dev` runs it
// (loopback), with short lifetimes (CA 45 s, serving certificate 30 s) and a check every 2 s, so
// its timer renews the serving certificate and then the CA within the test. Meanwhile:
// - the API server reads a CR at a version it converts through the endpoint, every 100 ms;
// - a probe opens a new TLS connection to the endpoint every 100 ms and verifies it with the
//   bundle the CRD carried 1 s earlier. The API server learns a patched bundle some time after the
//   patch (its webhook client is rebuilt from the CRD); the probe is such a client, 1 s late (less
//   than one check). Serving a certificate of a new CA right after patching the bundle fails it.
// No read and no probe may fail.

const env = useControlPlane();
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** probe opens a fresh TLS connection to the endpoint, trusting `caPem` only; it resolves to an error text or ''. */
function probe(port: number, caPem: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/healthz', method: 'GET', ca: caPem, agent: false, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 ? '' : `status ${res.statusCode ?? 0}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve(error.message));
    req.end();
  });
}

describe('webhook certificate rotation by the endpoint', () => {
  it('renews the serving certificate and the CA with no failed conversion and no connection a 1 s old bundle refuses', async () => {
    const group = `t${randomBytes(3).toString('hex')}.rot.example.com`;
    const katalog = loadKatalogOrThrow({
      text: VERSIONED_KATALOG.replaceAll('demo.example.io', group),
      file: 'v.yaml',
    });
    const api = createApiTransport({
      kubeConfig: env.kubeConfig,
      katalogName: 'versioned',
      restRequest: () => undefined,
    });
    const logs: string[] = [];
    const endpoint = await startWebhookEndpoint({
      client: api.client,
      katalog,
      namespace: env.namespace,
      bindAddress: '127.0.0.1:0',
      service: 'loopback',
      checkEveryMs: 2_000,
      tls: { secretName: 'rotation-tls', caValidForMs: 45_000, certValidForMs: 30_000 },
      log: (message) => logs.push(message),
    });
    cleanup.push(() => endpoint.close());
    const firstCa = new X509Certificate(endpoint.caBundle());
    const crdName = `databases.${group}`;
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;
    const [crd] = generateCrds(katalog, { webhook: endpoint.clientConfig, caBundle: endpoint.caBundle() });
    const created = await kubeRequest(
      env.kubeConfig,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    cleanup.push(() => kubeRequest(env.kubeConfig, 'DELETE', crdPath));
    const path = (version: string, name = ''): string =>
      `/apis/${group}/${version}/namespaces/${env.namespace}/databases${name === '' ? '' : `/${name}`}`;
    const body = {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Database',
      metadata: { name: 'db' },
      spec: { size: 2, databaseEngine: 'pg', image: 'pg:16' },
    };
    let write = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), body);
    for (let i = 0; i < 100 && write.status !== 201; i++) {
      await sleep(200); // the CRD is established and its webhook client built shortly after the create
      write = await kubeRequest(env.kubeConfig, 'POST', path('v1alpha1'), body);
    }
    expect(write.status, JSON.stringify(write.body)).toBe(201);

    // The bundle the CRD carried over time.
    const history: { at: number; pem: string }[] = [];
    const sample = async (): Promise<void> => {
      const read = await kubeRequest(env.kubeConfig, 'GET', crdPath);
      const encoded = (
        read.body as { spec?: { conversion?: { webhook?: { clientConfig?: { caBundle?: string } } } } }
      ).spec?.conversion?.webhook?.clientConfig?.caBundle;
      if (encoded != null)
        history.push({ at: Date.now(), pem: Buffer.from(encoded, 'base64').toString('utf8') });
    };
    await sample();
    let running = true;
    // A request that fails or gets no answer (kubeRequest's own timeout) is recorded, so a stuck
    // request fails the test with its message instead of holding the loops to the test's limit.
    const loopErrors: string[] = [];
    const guarded = async (name: string, step: () => Promise<void>): Promise<void> => {
      try {
        await step();
      } catch (error) {
        loopErrors.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    const readFailures: string[] = [];
    const probeFailures: string[] = [];
    let reads = 0;
    let unrouted = 0;
    let probes = 0;
    const loops = [
      (async () => {
        while (running) {
          await guarded('bundle sample', sample);
          await sleep(100);
        }
      })(),
      (async () => {
        while (running) {
          await guarded('converted read', async () => {
            const read = await kubeRequest(env.kubeConfig, 'GET', path('v2', 'db'));
            reads++;
            // The API server answers a path it does not route at that moment (its CRD handler is
            // being rebuilt after the caBundle patch) with a text 404 before any conversion runs:
            // counted apart, not as a failed conversion.
            if (read.status === 404 && read.body['text'] != null) unrouted++;
            else if (read.status !== 200) readFailures.push(JSON.stringify(read.body));
          });
          await sleep(100);
        }
      })(),
      (async () => {
        while (running) {
          const lagged = history.filter((h) => h.at <= Date.now() - 1_000).at(-1) ?? history[0];
          if (lagged != null) {
            const failure = await probe(endpoint.server.port, lagged.pem);
            probes++;
            if (failure !== '') probeFailures.push(`${new Date().toISOString()} ${failure}`);
          }
          await sleep(100);
        }
      })(),
    ];
    // Until the endpoint serves a certificate of a CA other than the first, and a few checks more.
    const servesNewCa = async (): Promise<boolean> => {
      const pem = await new Promise<string>((resolve) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: endpoint.server.port,
            path: '/healthz',
            rejectUnauthorized: false,
            agent: false,
            timeout: 10_000,
          },
          (res) => {
            const cert = (res.socket as TLSSocket).getPeerX509Certificate();
            res.resume();
            resolve(cert?.toString() ?? '');
          },
        );
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => resolve(''));
        req.end();
      });
      return pem !== '' && !new X509Certificate(pem).checkIssued(firstCa);
    };
    let rotated = false;
    const rotationDeadline = Date.now() + 150_000;
    while (!rotated && Date.now() < rotationDeadline) {
      await sleep(250);
      rotated = await servesNewCa();
    }
    await sleep(5_000);
    running = false;
    await Promise.all(loops);
    console.log(
      `[figures] ${reads} converted reads, ${unrouted} answered 404 before routing, ${probes} probes`,
    );
    expect(loopErrors).toEqual([]);
    expect(rotated).toBe(true);
    expect(logs).toContain('webhook certificate renewed');
    expect(probeFailures).toEqual([]);
    expect(readFailures).toEqual([]);
    expect(reads).toBeGreaterThan(100);
    expect(probes).toBeGreaterThan(100);
  }, 240_000);
});
