import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Autoscale, CrossRead } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from '../clock.js';
import { CrossHttpClient } from '../hooks/cross-http.js';
import { Autoscaler } from './autoscaler.js';
import { autoscaleCrossReader, crossNames } from './cross-sources.js';
import { resolveAutoscaleConfig } from './decide.js';
import type { AutoscaleInputs } from './decide.js';

const NOON = Date.UTC(2024, 5, 3, 12, 0, 0);
const quiet: AutoscaleInputs = { depth: 0, workers: 2, busyPercent: 10, p95Ms: 10, errorRatePercent: 0 };

// A real peer: a Live API `info` answer whose queue depth the test sets.
let peerDepth = 0;
let requests: string[] = [];
let authorizations: (string | undefined)[] = [];
const server = createServer((request, response) => {
  requests.push(request.url ?? '');
  authorizations.push(request.headers.authorization);
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ name: 'db', metrics: { queueDepth: peerDepth } }));
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

function configFor(sources: unknown[], field = 'cross.db.metrics.queueDepth') {
  return resolveAutoscaleConfig(
    Autoscale.parse({
      interval: '10s',
      cooldown: '1m',
      sources,
      conditions: { when: [{ field, greaterThan: 60 }] },
      do: { workers: 8 },
    }),
    { workers: 2, resync: '10m', queue: { maxDepth: 0 } },
  );
}

describe('autoscale cross sources (katalog.md §18.2)', () => {
  it('collects the names the conditions read', () => {
    expect(crossNames(configFor([]).rules)).toEqual(['db']);
  });

  it('reads a source over HTTP through the cross client and scales when its metric passes; the decision says why', async () => {
    requests = [];
    const clock = new ManualClock(NOON);
    const config = configFor([{ as: 'db', endpoint: base, protocol: 'info', cacheFor: '1s' }]);
    const http = new CrossHttpClient({ clock, allowAddresses: ['127.0.0.0/8'] });
    const sizes: number[] = [];
    const autoscaler = new Autoscaler({
      config,
      target: {
        resizeWorkers: (n) => sizes.push(n),
        setQueueDepthLimit: () => {},
        setResyncInterval: () => {},
      },
      inputs: () => quiet,
      clock,
      readCross: autoscaleCrossReader({
        rules: config.rules,
        sources: Autoscale.parse({ sources: [{ as: 'db', endpoint: base, cacheFor: '1s' }] }).sources,
        entryCross: [],
        local: () => undefined,
        http,
        env: {},
        operatorNamespace: 'orkestra-system',
      }),
    });
    peerDepth = 10;
    await autoscaler.refreshCross();
    autoscaler.tick();
    expect(sizes).toEqual([]);
    expect(autoscaler.last?.why).toBe('no change: no rule passed; signals healthy, idle');
    expect(requests).toEqual(['/katalog/db']);

    peerDepth = 61;
    clock.advance(2000); // past cacheFor
    await autoscaler.refreshCross();
    autoscaler.tick();
    expect(sizes).toEqual([8]);
    expect(autoscaler.last).toMatchObject({
      rule: 'default',
      why: 'workers 2 → 8 (rule default)',
      unavailable: [],
    });
    await flushMacrotask();
  });

  it('a name no source, entry or cross read resolves does not pass and is reported', async () => {
    const config = configFor([], 'cross.nowhere.metrics.queueDepth');
    const read = autoscaleCrossReader({
      rules: config.rules,
      sources: [],
      entryCross: [],
      local: () => undefined,
      http: new CrossHttpClient(),
      env: {},
      operatorNamespace: 'orkestra-system',
    });
    expect(await read()).toEqual({
      values: {},
      unavailable: ['cross.nowhere: no autoscale source, entry or cross read of that name'],
    });
  });

  it('an entry of this Katalog is read in process', async () => {
    const config = configFor([]);
    const read = autoscaleCrossReader({
      rules: config.rules,
      sources: [],
      entryCross: [],
      local: (name) => (name === 'db' ? () => ({ ...quiet, depth: 70 }) : undefined),
      http: new CrossHttpClient(),
      env: {},
      operatorNamespace: 'orkestra-system',
    });
    const { values } = await read();
    expect(values['db']).toMatchObject({ metrics: { queueDepth: 70, workersIdlePercent: 90 } });
  });

  it("the entry's own cross read of that crd is used, one with metrics before health", async () => {
    requests = [];
    peerDepth = 5;
    const config = configFor([], 'cross.loader.metrics.queueDepth');
    const entryCross = CrossRead.array().parse([
      { crd: 'loader', selector: { name: 'one' }, endpoint: base, protocol: 'cr', as: 'loaderCr' },
      { crd: 'loader', endpoint: base, protocol: 'health', as: 'loaderHealth' },
      { crd: 'loader', endpoint: base, protocol: 'metrics', as: 'loaderStats', cacheFor: '1s' },
    ]);
    const read = autoscaleCrossReader({
      rules: config.rules,
      sources: [],
      entryCross,
      local: () => undefined,
      http: new CrossHttpClient({ allowAddresses: ['127.0.0.0/8'] }),
      env: {},
      operatorNamespace: 'orkestra-system',
    });
    const { values } = await read();
    expect(values['loader']).toMatchObject({ metrics: { queueDepth: 5 } });
    expect(requests).toEqual(['/katalog/loader']);
  });

  it('expands $NAME in a source’s and an entry cross read’s address from the operator environment, as cross reads do (ADR 0098)', async () => {
    requests = [];
    peerDepth = 70;
    const host = base.replace(/^http:\/\//, '');
    const config = configFor([], 'cross.db.metrics.queueDepth');
    const rules = [
      ...config.rules,
      ...configFor([], 'cross.loader.metrics.queueDepth').rules,
      ...configFor([], 'cross.gone.metrics.queueDepth').rules,
    ];
    const read = autoscaleCrossReader({
      rules,
      sources: Autoscale.parse({
        sources: [
          { as: 'db', endpoint: 'http://$PEER_HOST', protocol: 'info', cacheFor: '1s' },
          { as: 'gone', url: 'http://${UNSET_PEER}/katalog/gone', cacheFor: '1s' },
        ],
      }).sources,
      entryCross: CrossRead.array().parse([
        { crd: 'loader', endpoint: 'http://${PEER_HOST}', protocol: 'metrics', cacheFor: '1s' },
      ]),
      local: () => undefined,
      http: new CrossHttpClient({ allowAddresses: ['127.0.0.0/8'] }),
      env: { PEER_HOST: host },
      operatorNamespace: 'orkestra-system',
    });
    const { values, unavailable } = await read();
    expect(values['db']).toMatchObject({ metrics: { queueDepth: 70 } });
    expect(values['loader']).toMatchObject({ metrics: { queueDepth: 70 } });
    expect(requests.sort()).toEqual(['/katalog/db', '/katalog/loader']);
    expect(unavailable).toEqual([
      'cross.gone: autoscale.sources[1].url: environment variable UNSET_PEER is not set (the address names $UNSET_PEER)',
    ]);
  });

  it('a peer that does not answer leaves the value absent and names the address', async () => {
    const config = configFor([]);
    const read = autoscaleCrossReader({
      rules: config.rules,
      sources: Autoscale.parse({ sources: [{ as: 'db', url: 'http://127.0.0.1:1/down', timeout: '1s' }] })
        .sources,
      entryCross: [],
      local: () => undefined,
      http: new CrossHttpClient({ allowAddresses: ['127.0.0.0/8'] }),
      env: {},
      operatorNamespace: 'orkestra-system',
    });
    const { values, unavailable } = await read();
    expect(values).toEqual({});
    expect(unavailable).toEqual([expect.stringContaining('http://127.0.0.1:1/down')]);
  });

  describe('auth.secretRef: read for the entry, in the operator namespace unless the ref names one (ADR 0079)', () => {
    const TOKEN = 'autoscale-s3cr3t-token';
    const readerFor = (calls: [unknown, string][], value: string | null = TOKEN) => {
      return async (auth: { secretRef?: { name: string; key: string } }, namespace: string) => {
        calls.push([auth, namespace]);
        const ref = auth.secretRef;
        return value == null || ref == null
          ? { error: `secret ${namespace}/${ref?.name ?? '?'} has no key ${ref?.key ?? '?'}` }
          : { id: `secret:${namespace}/${ref.name}/${ref.key}`, value };
      };
    };
    const autoscalerWith = (sources: unknown[], credential: ReturnType<typeof readerFor>) => {
      const config = configFor([]);
      const sizes: number[] = [];
      const autoscaler = new Autoscaler({
        config,
        target: {
          resizeWorkers: (n) => sizes.push(n),
          setQueueDepthLimit: () => {},
          setResyncInterval: () => {},
        },
        inputs: () => quiet,
        clock: new ManualClock(NOON),
        readCross: autoscaleCrossReader({
          rules: config.rules,
          sources: Autoscale.parse({ sources }).sources,
          entryCross: [],
          local: () => undefined,
          http: new CrossHttpClient({ allowAddresses: ['127.0.0.0/8'] }),
          env: {},
          operatorNamespace: 'ork-ops',
          credential,
        }),
      });
      return { autoscaler, sizes };
    };

    it('a ref without a namespace is read in the operator namespace and sent as a bearer token; the decision holds no secret', async () => {
      requests = [];
      authorizations = [];
      peerDepth = 99;
      const calls: [unknown, string][] = [];
      const { autoscaler, sizes } = autoscalerWith(
        [
          {
            as: 'db',
            endpoint: base,
            cacheFor: '0s',
            auth: { secretRef: { name: 'db-reader', key: 'token' } },
          },
        ],
        readerFor(calls),
      );
      await autoscaler.refreshCross();
      autoscaler.tick();
      expect(calls).toEqual([
        [{ secretRef: { name: 'db-reader', key: 'token', namespace: 'ork-ops' } }, 'ork-ops'],
      ]);
      expect(authorizations).toEqual([`Bearer ${TOKEN}`]);
      expect(sizes).toEqual([8]);
      expect(JSON.stringify(autoscaler.last)).not.toContain(TOKEN);
    });

    it('a ref with a namespace is read there', async () => {
      const calls: [unknown, string][] = [];
      const { autoscaler } = autoscalerWith(
        [
          {
            as: 'db',
            endpoint: base,
            cacheFor: '0s',
            auth: { secretRef: { name: 'db-reader', key: 'token', namespace: 'shared-creds' } },
          },
        ],
        readerFor(calls),
      );
      await autoscaler.refreshCross();
      expect(calls.map(([, namespace]) => namespace)).toEqual(['shared-creds']);
    });

    it("the entry's own cross read it falls back to reads its Secret in the operator namespace too (not a CR's)", async () => {
      authorizations = [];
      peerDepth = 1;
      const calls: [unknown, string][] = [];
      const config = configFor([], 'cross.loader.metrics.queueDepth');
      const read = autoscaleCrossReader({
        rules: config.rules,
        sources: [],
        entryCross: CrossRead.array().parse([
          {
            crd: 'loader',
            endpoint: base,
            protocol: 'metrics',
            cacheFor: '0s',
            auth: { secretRef: { name: 'loader-reader', key: 'token' } },
          },
        ]),
        local: () => undefined,
        http: new CrossHttpClient({ allowAddresses: ['127.0.0.0/8'] }),
        env: {},
        operatorNamespace: 'ork-ops',
        credential: readerFor(calls),
      });
      const { values } = await read();
      expect(values['loader']).toMatchObject({ metrics: { queueDepth: 1 } });
      expect(calls.map(([, namespace]) => namespace)).toEqual(['ork-ops']);
      expect(authorizations).toEqual([`Bearer ${TOKEN}`]);
    });

    it('a missing Secret makes no request and is reported by name, never by value', async () => {
      requests = [];
      peerDepth = 99;
      const calls: [unknown, string][] = [];
      const { autoscaler, sizes } = autoscalerWith(
        [
          {
            as: 'db',
            endpoint: base,
            cacheFor: '0s',
            auth: { secretRef: { name: 'db-reader', key: 'token' } },
          },
        ],
        readerFor(calls, null),
      );
      await autoscaler.refreshCross();
      autoscaler.tick();
      expect(requests).toEqual([]);
      expect(sizes).toEqual([]);
      expect(autoscaler.last?.unavailable).toEqual(['cross.db: secret ork-ops/db-reader has no key token']);
    });
  });
});
