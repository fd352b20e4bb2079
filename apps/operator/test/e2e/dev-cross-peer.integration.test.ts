import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildOrk, spawnDev, spawnOrk, waitFor } from './ork-process.js';
import type { OrkProcess } from './ork-process.js';

// Issue 40's acceptance, as a user coming from upstream runs it: a Katalog written as upstream's
// users write it (our own fixture, from upstream's ONCOP documentation and cross types) reads a CR
// of another Orkestra instance through `cross[].source: {host, protocol: cr, cacheFor}` under
// `ork dev`. The peer is a second `ork` process (`ork run` against the dev control plane, its
// Live API on a loopback port with `--cross-auth none`, as runtime.md §18.5 allows on loopback)
// running an upstream "provider" Katalog. Checked: the peer's start line says why its port is
// not open while no entry has `crossAccess: true` (upstream serves every entry by default); the
// reader renders its child and status from the peer's CR; a change on the peer reaches the reader
// at its next read; a stopped peer holds the reader at Ready=False (CrossSourceUnavailable, naming
// the read and the address) with its child untouched, and the reader renders the change made while
// the peer was down once it is back on the same address.

const dir = mkdtempSync(join(tmpdir(), 'orkestra-dev-cross-peer-'));
const kubeconfig = join(dir, 'dev.kubeconfig');
const providerGroup = 'loaders.peer.example.org';
const readerGroup = 'processors.dev.example.org';

/** The peer's Katalog in upstream's dialect (orkestra.orkspace.io/v1), as its team runs it today. */
const PROVIDER = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: loader-runtime
spec:
  crds:
    loader:
      apiTypes:
        group: ${providerGroup}
        version: v1
        kind: Loader
        plural: loaders
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-settings"
              data:
                batch: "{{ .spec.batch }}"
        status:
          fields:
            - path: batch
              value: "{{ .spec.batch }}"
`;

/** The reader's Katalog: upstream's ONCOP form, the peer named by host and protocol. */
function readerKatalog(port: number): string {
  return `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: processor-runtime
spec:
  crds:
    processor:
      apiTypes:
        group: ${readerGroup}
        version: v1
        kind: Processor
        plural: processors
      operatorBox:
        cross:
          - crd: loader
            selector:
              name: "{{ .spec.loader }}"
              namespace: default
            source:
              host: "http://127.0.0.1:${port}"
              protocol: cr
              cacheFor: 2s
            as: loader
          # Upstream's raw form: a whole endpoint, read as it answers.
          - crd: loader
            source:
              endpoint: "http://127.0.0.1:${port}/katalog/loader/cr/default/{{ .spec.loader }}"
              cacheFor: 2s
            as: loaderRaw
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-from-loader"
              data:
                batch: "{{ .cross.loader.spec.batch }}"
                rawBatch: "{{ .cross.loaderRaw.spec.batch }}"
                loaderReady: "{{ .cross.loader.ready }}"
        status:
          fields:
            - path: loaderBatch
              value: "{{ .cross.loader.status.batch }}"
`;
}

/** freePort is a loopback port nothing listens on now (the peer is restarted on it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

beforeAll(() => {
  buildOrk();
}, 600_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('reads a peer’s CR through upstream’s cross[].source under ork dev, waits while the peer is down and follows it back', async () => {
  const port = await freePort();
  const providerFile = join(dir, 'provider.yaml');
  const readerFile = join(dir, 'reader.yaml');
  writeFileSync(providerFile, PROVIDER);
  writeFileSync(readerFile, readerKatalog(port));
  const { dev, kubectlOk: kubectl } = spawnDev(readerFile, kubeconfig, join(dir, 'work'));
  let peer: OrkProcess | undefined;
  /** startPeer runs the provider Katalog as a second operator against the dev control plane. */
  const startPeer = async (): Promise<OrkProcess> => {
    const started = spawnOrk([
      'run',
      providerFile,
      '--kubeconfig',
      kubeconfig,
      '--install-crds',
      '--leader-elect=false',
      '--cross-bind-address',
      `127.0.0.1:${port}`,
      '--cross-auth',
      'none',
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      '--work-dir',
      join(dir, 'peer-work'),
    ]);
    await started.waitForLog('the peer ready', (l) => l.msg === 'operator ready', 60_000);
    return started;
  };
  const stopPeer = async (): Promise<void> => {
    peer?.child.kill('SIGINT');
    expect(await peer?.exited).toBe(0);
    peer = undefined;
  };
  const get = (resource: string, name: string, path: string) =>
    kubectl('get', resource, name, '-n', 'default', '-o', `jsonpath={${path}}`);
  const readyOf = async () => {
    const text = await get(`processors.${readerGroup}`, 'proc', '.status.conditions');
    const conditions = text === '' ? [] : (JSON.parse(text) as Record<string, string>[]);
    return {
      ready: conditions.find((c) => c['type'] === 'Ready'),
      cross: conditions.find((c) => c['type'] === 'CrossSourceUnavailable'),
    };
  };
  const childBatch = async () => {
    const run = await get('configmap', 'proc-from-loader', '.data.batch').catch(() => undefined);
    return run === undefined || run === '' ? undefined : run;
  };
  const address = `127.0.0.1:${port}`;
  try {
    await waitFor('the dev kubeconfig', () => (existsSync(kubeconfig) ? true : undefined), 180_000);
    await waitFor(
      'the Processor CRD to be served',
      async () =>
        (await kubectl('get', 'crd', `processors.${readerGroup}`)).includes('processors') ? true : undefined,
      60_000,
    );

    // 1. The provider Katalog as upstream's users write it: no `crossAccess`, so no port, and the
    //    start line says why; the reader has no answer and waits without rendering its child.
    peer = await startPeer();
    const closed = await peer.waitForLog('the peer starting line', (l) => l.msg === 'operator starting');
    expect(closed['cross']).toBe('not opened: no entry has crossAccess: true');
    const crs = join(dir, 'crs.yaml');
    writeFileSync(
      crs,
      `apiVersion: ${providerGroup}/v1\nkind: Loader\nmetadata: {name: ingest, namespace: default}\nspec: {batch: "50"}\n---\n` +
        `apiVersion: ${readerGroup}/v1\nkind: Processor\nmetadata: {name: proc, namespace: default}\nspec: {loader: ingest}\n`,
    );
    await kubectl('apply', '-f', crs);
    const waiting = await waitFor(
      'the reader waiting for the peer',
      async () => {
        const { ready } = await readyOf();
        return ready?.['status'] === 'False' ? ready : undefined;
      },
      60_000,
    );
    expect(waiting['reason']).toBe('CrossSourceUnavailable');
    expect(waiting['message']).toContain('cross.loader');
    expect(waiting['message']).toContain(`http://${address}/katalog/loader/cr/default/ingest`);
    expect(await childBatch()).toBeUndefined();
    await stopPeer();

    // 2. `crossAccess: true` on the entry peers read: the port opens and the reader renders the peer's CR.
    writeFileSync(providerFile, PROVIDER.replace('    loader:\n', '    loader:\n      crossAccess: true\n'));
    peer = await startPeer();
    const open = await peer.waitForLog('the peer starting line', (l) => l.msg === 'operator starting');
    expect(open['cross']).toBe(address);
    await waitFor(
      'the child rendered from the peer’s CR',
      async () => ((await childBatch()) === '50' ? true : undefined),
      60_000,
    );
    await waitFor(
      'the reader Ready with the peer answering',
      async () => {
        const { ready, cross } = await readyOf();
        return ready?.['status'] === 'True' && cross?.['status'] === 'False' ? true : undefined;
      },
      60_000,
    );
    expect((await readyOf()).cross?.['reason']).toBe('CrossSourcesAvailable');
    expect(await get(`processors.${readerGroup}`, 'proc', '.status.loaderBatch')).toBe('50');
    expect(await get('configmap', 'proc-from-loader', '.data.loaderReady')).toBe('true');
    expect(await get('configmap', 'proc-from-loader', '.data.rawBatch')).toBe('50');

    /** setBatch changes the peer CR's `spec.batch`, as a user does with kubectl. */
    const setBatch = (batch: string) =>
      kubectl(
        'patch',
        `loaders.${providerGroup}`,
        'ingest',
        '-n',
        'default',
        '--type',
        'merge',
        '-p',
        JSON.stringify({ spec: { batch } }),
      );

    // 3. A change on the peer's side reaches the reader at its next read (cacheFor: 2s).
    await setBatch('75');
    await waitFor(
      'the peer’s change at the reader',
      async () => ((await childBatch()) === '75' ? true : undefined),
      60_000,
    );
    await waitFor(
      'the reader’s status following the peer',
      async () =>
        (await get(`processors.${readerGroup}`, 'proc', '.status.loaderBatch')) === '75' ? true : undefined,
      30_000,
    );

    // 4. The peer stops: once its last answer expires the reader waits, Ready=False with the reason
    //    and the address, and its child keeps the last data (not rendered from nothing).
    await stopPeer();
    const down = await waitFor(
      'the reader waiting for the stopped peer',
      async () => {
        const { ready } = await readyOf();
        return ready?.['status'] === 'False' ? ready : undefined;
      },
      60_000,
    );
    expect(down['reason']).toBe('CrossSourceUnavailable');
    expect(down['message']).toContain('cross.loaderRaw');
    expect(down['message']).toMatch(
      new RegExp(`cross\\.loader: .*GET http://${address}/katalog/loader/cr/default/ingest`),
    );
    const { cross } = await readyOf();
    expect(cross?.['status']).toBe('True');
    expect(cross?.['message']).toContain(address);
    expect(await childBatch()).toBe('75');
    expect(await get(`processors.${readerGroup}`, 'proc', '.status.loaderBatch')).toBe('75');
    expect(await get('configmap', 'proc-from-loader', '.data.rawBatch')).toBe('75');

    // 5. A change made while the peer was down; the peer comes back on the same address.
    await setBatch('90');
    peer = await startPeer();
    await waitFor(
      'the change made while the peer was down',
      async () => ((await childBatch()) === '90' ? true : undefined),
      60_000,
    );
    await waitFor(
      'the reader Ready again',
      async () => {
        const { ready, cross: again } = await readyOf();
        return ready?.['status'] === 'True' && again?.['reason'] === 'CrossSourcesAvailable'
          ? true
          : undefined;
      },
      60_000,
    );
    await waitFor(
      'the raw endpoint read back too',
      async () =>
        (await get('configmap', 'proc-from-loader', '.data.rawBatch')) === '90' ? true : undefined,
      30_000,
    );
    // The reader's operator shows no failed reconcile for the wait (a pending outcome, not an error).
    expect(dev.logs.filter((l) => l.level === 'error')).toEqual([]);
  } finally {
    peer?.child.kill('SIGINT');
    dev.child.kill('SIGINT');
  }
  expect(await dev.exited).toBe(0);
}, 600_000);
