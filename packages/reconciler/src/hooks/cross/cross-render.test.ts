import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine, renderTemplate } from '@orkestra/template';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { isPending } from '../hook-unit.js';
import type { HookInput } from '../hook-unit.js';
import { compileKatalog } from '../../runtime/compile-katalog.js';
import { KatalogHooks } from '../../runtime/katalog-hooks.js';
import type { CrossTargetCache } from '../cross.js';

const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };
const engine = createTemplateEngine({ clock });
const katalog = loadKatalogOrThrow({
  text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    database:
      apiTypes: {group: a.example.com, version: v1, kind: Database, plural: databases}
    fleet:
      apiTypes: {group: a.example.com, version: v1, kind: Fleet, plural: fleets}
      operatorBox:
        cross:
          - {crd: database, selector: {matchLabels: {pool: "{{ b64dec spec.pool }}"}}, strategy: all, as: dbs}
          - {crd: database, selector: {name: "{{ b64dec spec.primary }}"}, as: primary}
          - {crd: database, selector: {name: bb}, endpoint: "http://peer:8082", protocol: cr, as: live}
          - {crd: database, selector: {matchLabels: {pool: blue}}, strategy: all, endpoint: "http://peer:8082", protocol: cr, as: liveAll}
`,
});
const crds = compileKatalog(katalog, { engine }).crds;

const database = (name: string, pool: string): KubeObject => ({
  apiVersion: 'a.example.com/v1',
  kind: 'Database',
  metadata: {
    name,
    namespace: 'web',
    labels: { pool },
    creationTimestamp: `2026-12-0${name.length}T00:00:00Z`,
  },
  spec: { host: `${name}.db` },
});
const databases = [database('a', 'blue'), database('bb', 'blue'), database('ccc', 'green')];
const cache = {
  namespaced: true,
  cache: {
    list: () => databases,
    listByNamespace: (ns: string) => databases.filter((d) => d.metadata.namespace === ns),
    getByName: (ns: string | undefined, name: string) =>
      databases.find((d) => d.metadata.namespace === ns && d.metadata.name === name),
  },
} as unknown as CrossTargetCache;

/** run reads the fleet's cross declarations for a CR with `spec`, returning `cross` and the condition messages reported. */
async function run(spec: Record<string, unknown>): Promise<{
  cross: Record<string, unknown>;
  reported: (readonly string[])[];
}> {
  const reported: (readonly string[])[] = [];
  const hooks = new KatalogHooks({
    conditions: { renderTemplate, now: () => new Date(0) },
    external: { runAll: async () => ({ results: {} }) },
    crossHttp: { read: async () => ({ result: {} as never, url: '' }) },
    crossReaders: { record: () => undefined, forget: () => undefined },
    lookup: (crd: string) => (crd === 'database' ? cache : undefined),
    // The Live API's CR answer, built in process: children by kind with readiness (ADR 0101).
    liveAnswer: (crd: string, protocol: string, namespace: string | undefined, name: string) =>
      crd === 'database' && protocol === 'cr'
        ? {
            found: true,
            name,
            namespace,
            spec: { overwritten: true },
            children: { deployment: { kind: 'Deployment', ready: name === 'bb' } },
          }
        : undefined,
  } as unknown as ConstructorParameters<typeof KatalogHooks>[0]);
  const compiled = crds.get('fleet');
  if (compiled == null) throw new Error('fleet');
  const cr: KubeObject = {
    apiVersion: 'a.example.com/v1',
    kind: 'Fleet',
    metadata: { name: 'f', namespace: 'web' },
    spec,
  };
  const input: HookInput = {
    crd: compiled,
    cr,
    context: { spec, metadata: cr.metadata },
    signal: new AbortController().signal,
    logger: {} as never,
    effects: {
      requeueAt: () => undefined,
      annotate: () => undefined,
      recordProviders: () => undefined,
      crossUnavailable: (messages) => void reported.push(messages),
      writeStatus: () => undefined,
    },
  };
  const cross = (await hooks.hooksFor(compiled).cross?.(input)) as Record<string, unknown>;
  return { cross, reported };
}

describe('cross reads whose selector does not render (ADR 0083)', () => {
  it('lists every match under strategy: all when the selector renders, and reports no failure', async () => {
    const { cross, reported } = await run({ pool: 'Ymx1ZQ==', primary: 'YQ==' });
    expect((cross['dbs'] as { name: string }[]).map((d) => d.name)).toEqual(['a', 'bb']);
    expect(cross['dbs']).not.toHaveProperty('error');
    expect(cross['primary']).toMatchObject({ found: true, name: 'a' });
    expect(reported).toEqual([[]]);
  });

  it('answers strategy: all with an empty list carrying `error`, and names it on the reader’s condition', async () => {
    const { cross, reported } = await run({ pool: '!!!', primary: 'YQ==' });
    const dbs = cross['dbs'] as unknown[] & { error?: string };
    expect(dbs).toHaveLength(0);
    expect(dbs.error).toBe(
      'fleet.operatorBox.cross[0].selector.matchLabels.pool: render failed: b64dec: invalid base64 input "!!!"',
    );
    expect(reported).toHaveLength(1);
    expect(reported[0]).toEqual([`cross.dbs: ${dbs.error}`]);
    // A template reads the failure as it reads any field of the answer.
    expect(engine.compileTemplate('{{ cross.dbs.error }}', { path: 't' }).render({ cross })).toBe(dbs.error);
    expect(engine.compileTemplate('{{ len .cross.dbs }}', { path: 't' }).render({ cross })).toBe(0);
  });

  it('reports a first read’s selector failure on the condition too, beside its error field', async () => {
    const { cross, reported } = await run({ pool: 'Ymx1ZQ==', primary: '!' });
    expect(cross['primary']).toMatchObject({ found: false });
    expect(String((cross['primary'] as { error: string }).error)).toContain('b64dec');
    expect(reported[0]).toEqual([
      'cross.primary: fleet.operatorBox.cross[1].selector.name: render failed: b64dec: invalid base64 input "!"',
    ]);
  });
});

describe('protocol: cr of a kind this operator serves (ADR 0101)', () => {
  it('reads the cached CR plus the Live API answer’s children, as a peer would answer it', async () => {
    const { cross } = await run({ pool: 'Ymx1ZQ==', primary: 'YQ==' });
    // The cache's CR wins over the answer's keys; `children` comes from the answer.
    expect(cross['live']).toMatchObject({
      found: true,
      name: 'bb',
      spec: { host: 'bb.db' },
      children: { deployment: { ready: true } },
    });
    expect(
      (cross['liveAll'] as { name: string; children: { deployment: { ready: boolean } } }[]).map((d) => [
        d.name,
        d.children.deployment.ready,
      ]),
    ).toEqual([
      ['a', false],
      ['bb', true],
    ]);
    // A read without `protocol` stays the cached CR alone.
    expect(cross['primary']).not.toHaveProperty('children');
  });
});

describe('the operator’s environment in a cross read’s address (ADR 0098)', () => {
  const peerKatalog = loadKatalogOrThrow({
    text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    app:
      apiTypes: {group: a.example.com, version: v1, kind: App, plural: apps}
      operatorBox:
        cross:
          - {crd: database, url: "http://$PEER_URL/katalog/database/cr/{{ metadata.namespace }}/{{ spec.db }}", as: byUrl}
          - {crd: database, endpoint: "https://\${PEER_URL}", protocol: health, as: byEndpoint}
`,
  });
  const app = compileKatalog(peerKatalog, { engine }).crds.get('app');

  /** read runs the app's reads for a CR with `spec` in `env`; returns the URLs asked for and the condition messages. */
  async function read(
    spec: Record<string, unknown>,
    env: Record<string, string> | undefined,
  ): Promise<{
    asked: { url?: string | undefined; endpoint?: string | undefined; sendToken?: boolean | undefined }[];
    reported: string[];
  }> {
    const asked: {
      url?: string | undefined;
      endpoint?: string | undefined;
      sendToken?: boolean | undefined;
    }[] = [];
    const reported: string[] = [];
    const hooks = new KatalogHooks({
      conditions: { renderTemplate, now: () => new Date(0) },
      external: { runAll: async () => ({ results: {} }) },
      crossHttp: {
        read: async (declaration: { url?: string; endpoint?: string; sendToken?: boolean }) => {
          asked.push({
            url: declaration.url,
            endpoint: declaration.endpoint,
            sendToken: declaration.sendToken,
          });
          return { result: { found: true } as never, url: '' };
        },
      },
      crossReaders: { record: () => undefined, forget: () => undefined },
      lookup: () => undefined,
      env,
    } as unknown as ConstructorParameters<typeof KatalogHooks>[0]);
    if (app == null) throw new Error('app');
    const cr: KubeObject = {
      apiVersion: 'a.example.com/v1',
      kind: 'App',
      metadata: { name: 'x', namespace: 'web' },
      spec,
    };
    await hooks.hooksFor(app).cross?.({
      crd: app,
      cr,
      context: { spec, metadata: cr.metadata },
      signal: new AbortController().signal,
      logger: {} as never,
      effects: {
        requeueAt: () => undefined,
        annotate: () => undefined,
        recordProviders: () => undefined,
        crossUnavailable: (messages) => void reported.push(...messages),
        writeStatus: () => undefined,
      },
    } as HookInput);
    return { asked, reported };
  }

  it('expands $NAME and ${NAME} in the address the Katalog writes, and the operator’s token may go there', async () => {
    const { asked, reported } = await read({ db: 'orders' }, { PEER_URL: 'db.cluster-a:30080' });
    expect(asked).toEqual([
      {
        url: 'http://db.cluster-a:30080/katalog/database/cr/web/orders',
        endpoint: undefined,
        sendToken: true,
      },
      { url: undefined, endpoint: 'https://db.cluster-a:30080', sendToken: true },
    ]);
    expect(reported).toEqual([]);
  });

  it('never expands a variable that CR data renders into the address', async () => {
    const { asked } = await read({ db: '$PEER_URL' }, { PEER_URL: 'db.cluster-a:30080' });
    expect(asked[0]?.url).toBe('http://db.cluster-a:30080/katalog/database/cr/web/$PEER_URL');
  });

  it('reads nothing and names the variable on the condition when it is not set', async () => {
    const { asked, reported } = await read({ db: 'orders' }, {});
    expect(asked).toEqual([]);
    expect(reported).toEqual([
      'cross.byUrl: app.operatorBox.cross[0].url: environment variable PEER_URL is not set (the address names $PEER_URL)',
      'cross.byEndpoint: app.operatorBox.cross[1].endpoint: environment variable PEER_URL is not set (the address names $PEER_URL)',
    ]);
  });
});

describe('a peer that does not answer (ADR 0043, amended)', () => {
  const peerKatalog = loadKatalogOrThrow({
    text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    app:
      apiTypes: {group: a.example.com, version: v1, kind: App, plural: apps}
      operatorBox:
        cross:
          - {crd: loader, selector: {name: ingest}, endpoint: "http://127.0.0.1:1", protocol: cr, as: loader}
`,
  });
  const app = compileKatalog(peerKatalog, { engine }).crds.get('app');

  /** read runs the app's read against a peer client answering `answer`; returns the slot's outcome and the condition messages. */
  async function read(answer: Record<string, unknown>): Promise<{ outcome: unknown; reported: string[] }> {
    const reported: string[] = [];
    const hooks = new KatalogHooks({
      conditions: { renderTemplate, now: () => new Date(0) },
      external: { runAll: async () => ({ results: {} }) },
      crossHttp: { read: async () => answer },
      crossReaders: { record: () => undefined, forget: () => undefined },
      lookup: () => undefined,
    } as unknown as ConstructorParameters<typeof KatalogHooks>[0]);
    if (app == null) throw new Error('app');
    const cr: KubeObject = {
      apiVersion: 'a.example.com/v1',
      kind: 'App',
      metadata: { name: 'x', namespace: 'web' },
    };
    const outcome = await hooks.hooksFor(app).cross?.({
      crd: app,
      cr,
      context: { metadata: cr.metadata },
      signal: new AbortController().signal,
      logger: {} as never,
      effects: {
        requeueAt: () => undefined,
        annotate: () => undefined,
        recordProviders: () => undefined,
        crossUnavailable: (messages) => void reported.push(...messages),
        writeStatus: () => undefined,
      },
    } as HookInput);
    return { outcome, reported };
  }

  const refused = 'connect ECONNREFUSED 127.0.0.1:1 (GET http://127.0.0.1:1/katalog/loader/cr/web/ingest)';

  it('waits (Ready=False, CrossSourceUnavailable, asked again in 5 s) when no answer is left, instead of rendering from nothing', async () => {
    const { outcome, reported } = await read({
      result: { found: false, name: 'ingest', namespace: 'web', error: refused },
      url: 'http://127.0.0.1:1/katalog/loader/cr/web/ingest',
      unavailable: refused,
      noAnswer: true,
    });
    expect(isPending(outcome)).toBe(true);
    expect(outcome).toMatchObject({
      reason: 'CrossSourceUnavailable',
      message: `waiting for cross.loader: ${refused}`,
      requeueAfterMs: 5000,
      shown: { result: { loader: { found: false, error: refused } } },
    });
    expect(reported).toEqual([`cross.loader: ${refused}`]);
  });

  it('renders from the last good answer while it is kept, reporting the peer on the condition only', async () => {
    const kept = `${refused}; the last answer is used until the peer answers again`;
    const { outcome, reported } = await read({
      result: { found: true, name: 'ingest', namespace: 'web', spec: { batch: '50' } },
      url: 'http://127.0.0.1:1/katalog/loader/cr/web/ingest',
      unavailable: kept,
    });
    expect(isPending(outcome)).toBe(false);
    expect(outcome).toEqual({
      loader: { found: true, name: 'ingest', namespace: 'web', spec: { batch: '50' } },
    });
    expect(reported).toEqual([`cross.loader: ${kept}`]);
  });
});
