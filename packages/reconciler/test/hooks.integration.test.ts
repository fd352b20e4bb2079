import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS, createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import {
  crClient,
  installCrd,
  katalogFrom,
  quietLogger,
  syncedOf,
  uniqueGroup,
  waitFor,
} from './runtime-helpers.js';
import type { CrClient } from './runtime-helpers.js';

const env = useControlPlane();
const group = uniqueGroup('hooks');
const apis = {
  probe: { group, version: 'v1', kind: 'Probe', plural: 'probes' },
  database: { group, version: 'v1', kind: 'Database', plural: 'databases' },
  app: { group, version: 'v1', kind: 'App', plural: 'apps' },
  site: { group, version: 'v1', kind: 'Site', plural: 'sites' },
  image: { group, version: 'v1', kind: 'Image', plural: 'images' },
  quota: { group, version: 'v1', kind: 'Quota', plural: 'quotas' },
  fleet: { group, version: 'v1', kind: 'Fleet', plural: 'fleets' },
};

// A local repository may only be named literally in the Katalog (docs/reference/runtime.md §14.3).
const gitRoot = mkdtempSync(join(tmpdir(), 'orkestra-hooks-git-'));
const bareRepo = join(gitRoot, 'repo.git');
/** The test's scratch directory: the docker context is a literal inside its work dir (katalog.md §16.2). */
const ROOT = mkdtempSync(join(tmpdir(), 'orkestra-hooks-it-'));
const CONTEXT = join(ROOT, 'git-work', 'ctx');

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: hooks-test}
spec:
  crds:
    probe:
      apiTypes: {group: ${group}, version: v1, kind: Probe, plural: probes}
      resync: "0"
      operatorBox:
        external:
          - name: health
            url: "{{ spec.url }}"
            continueOnError: true
          - name: required
            url: "{{ spec.requiredUrl }}"
            when: [{field: spec.requiredUrl, exists: true}]
        onReconcile:
          deployments:
            - name: "{{ metadata.name }}-web"
              image: nginx:1.27
              when: [{field: external.health.ok, equals: "true"}]
        status:
          fields:
            - {path: version, value: "{{ external.health.json.version }}"}
            # upstream's form: a JSON object's fields directly under the result
            - {path: versionShort, value: "{{ external.health.version }}"}
            - {path: okShown, value: "{{ external.health.ok }}"}
            - path: healthError
              value: "{{ external.health.error }}"
              when: [{field: external.health.ok, equals: "false"}]
    database:
      apiTypes: {group: ${group}, version: v1, kind: Database, plural: databases}
      resync: "0"
      operatorBox:
        status:
          fields:
            - {path: phase, value: "{{ spec.host }}-ready"}
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      resync: "0"
      operatorBox:
        cross:
          - {crd: database, selector: {name: "{{ spec.db }}"}, as: db}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-db"
              data:
                host: "{{ cross.db.spec.host }}"
                phase: "{{ cross.db.status.phase }}"
                found: "{{ cross.db.found }}"
    fleet:
      apiTypes: {group: ${group}, version: v1, kind: Fleet, plural: fleets}
      resync: "0"
      operatorBox:
        cross:
          # upstream's strategy: all — every match, oldest first, as a list
          - {crd: database, selector: {matchLabels: {pool: "{{ spec.pool }}"}}, strategy: all, as: dbs}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-fleet"
              data:
                count: "{{ len .cross.dbs }}"
                hosts: "{{ range .cross.dbs }}{{ .spec.host }},{{ end }}"
                first: "{{ cross.dbs.0.name }}"
    site:
      apiTypes: {group: ${group}, version: v1, kind: Site, plural: sites}
      resync: "0"
      operatorBox:
        git: {repo: "${bareRepo}", branch: main, path: services/web, pollInterval: 1s}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-git"
              data: {commit: "{{ git.commit }}", short: "{{ git.shortCommit }}"}
        status:
          fields:
            - path: lastChange
              value: "{{ git.commit }}"
              when: [{field: git.changed, equals: "true"}]
    quota:
      apiTypes: {group: ${group}, version: v1, kind: Quota, plural: quotas}
      resync: "0"
      validation:
        external:
          # upstream's admission-only call (ADR 0104): the admission webhook makes it, the reconcile never
          - {name: admission, url: "{{ spec.url }}/admission", fires: {reconcile: false}}
          - {name: quota, url: "{{ spec.url }}/quota/{{ spec.team }}"}
        rules:
          - field: external.quota.json.allowed
            equals: "true"
            message: "team {{ spec.team }} is over its quota ({{ external.quota.json.used }} used)"
          # Judged at admission only: one reads the admission-only call's answer (absent here), one
          # says so itself; were either judged at reconcile time, every CR would be denied.
          - field: external.admission.status
            equals: "200"
            message: "admission said no"
          - field: spec.team
            equals: nobody
            message: "only at admission"
            fires: {reconcile: false}
      operatorBox:
        external:
          - {name: echo, url: "{{ spec.url }}/echo/{{ metadata.name }}"}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-quota"
              data: {used: "{{ external.quota.json.used }}", version: "{{ external.echo.json.version }}"}
    image:
      apiTypes: {group: ${group}, version: v1, kind: Image, plural: images}
      resync: "0"
      operatorBox:
        docker: {image: "registry.local/app:{{ spec.tag }}", workingDirectory: "${CONTEXT}"}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-image"
              data: {image: "{{ docker.image }}", built: "{{ docker.buildSucceeded }}"}
`);

/** A fake builder: logs its arguments, waits for $FAKE_GATE during `build` (the same approach as src/hooks/docker.test.ts). */
const FAKE_BUILDER = `#!/bin/sh
{ for a in "$@"; do echo "$a"; done; echo "--"; } >> "$FAKE_LOG"
if [ "$1" = build ] && [ -n "$FAKE_GATE" ]; then while [ ! -f "$FAKE_GATE" ]; do sleep 0.05; done; fi
exit 0
`;

let runtime: KatalogRuntime;
let server: Server;
let baseUrl = '';
/** Requests the test server answered, by path. */
const hits = new Map<string, number>();
let root = '';
const cleanups: (() => Promise<void>)[] = [];
const clients = {} as Record<keyof typeof apis, CrClient>;

function core(): CoreV1Api {
  return env.kubeConfig.makeApiClient(CoreV1Api);
}

async function configMap(name: string): Promise<Record<string, string> | undefined> {
  try {
    return (await core().readNamespacedConfigMap({ namespace: env.namespace, name })).data ?? {};
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

async function deploymentExists(name: string): Promise<boolean> {
  try {
    await env.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ namespace: env.namespace, name });
    return true;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return false;
    throw error;
  }
}

async function readyReason(api: keyof typeof apis, name: string): Promise<string | undefined> {
  const cr = await clients[api].get(env.namespace, name);
  const ready = syncedOf(cr);
  return ready == null ? undefined : `${ready.status}/${ready.reason}`;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e',
    },
  })
    .toString()
    .trim();
}

beforeAll(async () => {
  root = ROOT;
  mkdirSync(join(root, 'bin'));
  writeFileSync(join(root, 'bin', 'docker'), FAKE_BUILDER);
  chmodSync(join(root, 'bin', 'docker'), 0o755);
  mkdirSync(CONTEXT, { recursive: true });
  writeFileSync(join(CONTEXT, 'Dockerfile'), 'FROM scratch\n');
  server = createServer((request, response) => {
    hits.set(request.url ?? '', (hits.get(request.url ?? '') ?? 0) + 1);
    const quota = /^\/quota\/(\w+)$/.exec(request.url ?? '');
    if (request.url?.startsWith('/echo/') === true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ version: '1.2.3' }));
      return;
    }
    if (quota != null) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(quota[1] === 'blue' ? { allowed: true, used: 3 } : { allowed: false, used: 12 }),
      );
    } else if (request.url === '/ok') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ version: '1.2.3', ok: 'shadowed' }));
    } else if (request.url === '/unavailable') {
      response.writeHead(503);
      response.end('down');
    } else {
      response.writeHead(500);
      response.end('boom');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address != null ? address.port : 0}`;
  for (const [name, api] of Object.entries(apis)) {
    cleanups.push(await installCrd(env.kubeConfig, api));
    clients[name as keyof typeof apis] = crClient(env.kubeConfig, api);
  }
  runtime = createKatalogRuntime({
    katalog,
    kubeConfig: env.kubeConfig,
    logger: quietLogger(),
    options: {
      namespace: env.namespace,
      workDir: join(root, 'git-work'),
      // The test's HTTP server is on loopback, which the address guard allows only explicitly.
      allowPrivateAddresses: LOOPBACK_CIDRS,
      env: {
        ...process.env,
        PATH: `${join(root, 'bin')}${delimiter}${process.env['PATH'] ?? ''}`,
        FAKE_LOG: join(root, 'docker.log'),
        FAKE_GATE: join(root, 'gate'),
      },
    },
  });
  await runtime.start();
});

afterAll(async () => {
  await runtime?.stop({ timeoutMs: 5000 });
  await new Promise<void>((resolve) => (server == null ? resolve() : server.close(() => resolve())));
  for (const cleanup of cleanups.reverse()) await cleanup();
  if (root !== '') rmSync(root, { recursive: true, force: true });
  rmSync(gitRoot, { recursive: true, force: true });
});

describe('hooks in the reconcile pipeline', () => {
  it('gates a deployment on an external call and copies its JSON into status', async () => {
    await clients.probe.create(env.namespace, 'up', { url: `${baseUrl}/ok` });
    await waitFor(
      'probe up ready',
      async () => (await readyReason('probe', 'up')) === 'True/ReconcileSucceeded',
    );
    const cr = await clients.probe.get(env.namespace, 'up');
    expect(cr.status?.['version']).toBe('1.2.3');
    expect(cr.status?.['versionShort']).toBe('1.2.3');
    // A result key wins over a JSON field of the same name.
    expect(String(cr.status?.['okShown'])).toBe('true');
    expect(cr.status?.['healthError']).toBeUndefined();
    expect(await deploymentExists('up-web')).toBe(true);
  });

  it('makes the validation.external calls before the rules, which deny on the answer; later steps see the results', async () => {
    await clients.quota.create(env.namespace, 'blue', { url: baseUrl, team: 'blue' });
    await clients.quota.create(env.namespace, 'red', { url: baseUrl, team: 'red' });
    await waitFor(
      'quota blue ready',
      async () => (await readyReason('quota', 'blue')) === 'True/ReconcileSucceeded',
    );
    // The children see the validation call's result and the later operatorBox call's.
    expect(await configMap('blue-quota')).toEqual({ used: '3', version: '1.2.3' });
    await waitFor(
      'quota red denied',
      async () => (await readyReason('quota', 'red')) === 'False/ValidationFailed',
    );
    expect(syncedOf(await clients.quota.get(env.namespace, 'red'))?.message).toBe(
      'quota.validation: team red is over its quota (12 used)',
    );
    expect(await configMap('red-quota')).toBeUndefined();
    // Denied before step 11: the operatorBox call is made for blue only; the admission-only call
    // never, and the rules judged at admission only are skipped (blue is Ready, red's message is
    // the quota rule's alone).
    expect(hits.get('/admission')).toBeUndefined();
    expect(hits.get('/echo/blue')).toBeGreaterThan(0);
    expect(hits.get('/echo/red')).toBeUndefined();
    expect(hits.get('/quota/red')).toBeGreaterThan(0);
  });

  it('continues past a failing call with continueOnError and skips the gated deployment', async () => {
    await clients.probe.create(env.namespace, 'down', { url: `${baseUrl}/unavailable` });
    await waitFor(
      'probe down ready',
      async () => (await readyReason('probe', 'down')) === 'True/ReconcileSucceeded',
    );
    const cr = await clients.probe.get(env.namespace, 'down');
    expect(cr.status?.['healthError']).toContain('unexpected status 503');
    expect(await deploymentExists('down-web')).toBe(false);
  });

  it('fails with ExternalCallFailed when a call without continueOnError fails', async () => {
    await clients.probe.create(env.namespace, 'broken', {
      url: `${baseUrl}/ok`,
      requiredUrl: `${baseUrl}/fail`,
    });
    await waitFor(
      'probe broken failed',
      async () => (await readyReason('probe', 'broken')) === 'False/ExternalCallFailed',
    );
    const ready = syncedOf(await clients.probe.get(env.namespace, 'broken'));
    expect(ready?.message).toContain('probe.operatorBox.external[1]');
    expect(ready?.message).toContain('unexpected status 500');
  });

  it('reads cross targets from the cache without API reads and re-queues readers when a target changes', async () => {
    await clients.database.create(env.namespace, 'main', { host: 'db-1' });
    await clients.app.create(env.namespace, 'shop', { db: 'main' });
    await waitFor('app config with db-1', async () => {
      const data = await configMap('shop-db');
      return data?.['host'] === 'db-1' && data['phase'] === 'db-1-ready' && data['found'] === 'true';
    });
    const before = runtime.client.requests.snapshot();
    await clients.database.patchSpec(env.namespace, 'main', { host: 'db-2' });
    // The spec change re-queues the reader; the target's own status write (an echo the informer
    // ignores) re-queues it again, so the reader sees the new status too.
    await waitFor('app config with db-2', async () => {
      const data = await configMap('shop-db');
      return data?.['host'] === 'db-2' && data['phase'] === 'db-2-ready';
    });
    const since = runtime.client.requests.since(before);
    expect(Object.keys(since).filter((key) => key.startsWith('get '))).toEqual([]);
    expect(
      runtime.hookServices.crossReaders.readersOf('database', {
        apiVersion: `${group}/v1`,
        kind: 'Database',
        metadata: { name: 'main', namespace: env.namespace },
      }),
    ).toEqual([`app:${env.namespace}/shop`]);
  });

  it('lists every labelled target with strategy: all, from the cache, and re-reads when one more matches', async () => {
    const labelled = (name: string, pool: string, host: string) =>
      env.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
        ...apis.database,
        namespace: env.namespace,
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Database',
          metadata: { name, labels: { pool } },
          spec: { host },
        },
      });
    // Created in name order, so oldest-first and the name tie-break agree.
    await labelled('pool-a', 'blue', 'a1');
    await labelled('pool-b', 'blue', 'b1');
    await labelled('pool-red', 'red', 'r1');
    await clients.fleet.create(env.namespace, 'f', { pool: 'blue' });
    await waitFor('fleet config with two databases', async () => {
      const data = await configMap('f-fleet');
      return data?.['count'] === '2' && data['hosts'] === 'a1,b1,' && data['first'] === 'pool-a';
    });
    const before = runtime.client.requests.snapshot();
    await labelled('pool-c', 'blue', 'c1');
    await waitFor('fleet config with three databases', async () => {
      const data = await configMap('f-fleet');
      return data?.['count'] === '3' && data['hosts'] === 'a1,b1,c1,';
    });
    const since = runtime.client.requests.since(before);
    expect(Object.keys(since).filter((key) => key.startsWith('get ') || key.startsWith('list '))).toEqual([]);
  });

  it('checks out a git repository, records the commit after success and follows new commits', async () => {
    const bare = bareRepo;
    const work = join(root, 'repo-work');
    execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
    execFileSync('git', ['init', '--quiet', '-b', 'main', work]);
    mkdirSync(join(work, 'services', 'web'), { recursive: true });
    writeFileSync(join(work, 'services', 'web', 'index.html'), 'v1');
    git(work, 'add', '.');
    git(work, 'commit', '--quiet', '-m', 'v1');
    git(work, 'push', '--quiet', bare, 'main');
    const first = git(work, 'rev-parse', 'HEAD');

    await clients.site.create(env.namespace, 'web', { repo: bare });
    await waitFor('git config map', async () => (await configMap('web-git'))?.['commit'] === first);
    await waitFor('last-commit annotation', async () => {
      const cr = (await env.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
        ...apis.site,
        namespace: env.namespace,
        name: 'web',
      })) as { metadata: { annotations?: Record<string, string> }; status?: Record<string, unknown> };
      return (
        cr.metadata.annotations?.['orkestra.konductor.io/last-commit'] === first &&
        cr.status?.['lastChange'] === first
      );
    });
    expect((await configMap('web-git'))?.['short']).toBe(first.slice(0, 7));

    writeFileSync(join(work, 'services', 'web', 'index.html'), 'v2');
    git(work, 'commit', '--quiet', '-am', 'v2');
    git(work, 'push', '--quiet', bare, 'main');
    const second = git(work, 'rev-parse', 'HEAD');
    // The poller (pollInterval 1s, fetches at most every 10 s) notices the commit and enqueues the CR.
    await waitFor(
      'git config map follows the new commit',
      async () => (await configMap('web-git'))?.['commit'] === second,
      45_000,
      200,
    );
    await waitFor('annotation follows', async () => {
      const cr = await env.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
        ...apis.site,
        namespace: env.namespace,
        name: 'web',
      });
      return (
        (cr as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.[
          'orkestra.konductor.io/last-commit'
        ] === second
      );
    });
  }, 90_000);

  it('builds an image in the background: DockerBuildPending, then ready with the last-image annotation', async () => {
    await clients.image.create(env.namespace, 'app', { tag: 'v1' });
    await waitFor(
      'build pending',
      async () => (await readyReason('image', 'app')) === 'False/DockerBuildPending',
    );
    expect(await configMap('app-image')).toBeUndefined();
    writeFileSync(join(root, 'gate'), '');
    await waitFor(
      'image ready',
      async () => (await readyReason('image', 'app')) === 'True/ReconcileSucceeded',
    );
    expect(await configMap('app-image')).toEqual({ image: 'registry.local/app:v1', built: 'true' });
    await waitFor('last-image annotation', async () => {
      const cr = await env.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
        ...apis.image,
        namespace: env.namespace,
        name: 'app',
      });
      return (
        (cr as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.[
          'orkestra.konductor.io/last-image'
        ] === 'registry.local/app:v1'
      );
    });
  });
});
