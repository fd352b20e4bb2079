import { loadKatalog } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import type { ApiTransport } from '../api-transport.js';
import { parseRunConfig } from '../config.js';
import type { OperatorLogger } from '../logger.js';
import { startWebhook } from './webhook.js';

const katalog = (() => {
  const loaded = loadKatalog({
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: shop}
spec:
  crds:
    app:
      apiTypes: {group: shop.example.com, version: v1, kind: App, plural: apps}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}"
              data: {a: "1"}
`,
  });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.katalog;
})();

/** An API transport that records every use: opening the endpoint reads or creates its certificate Secret. */
function recordingApi(): { api: ApiTransport; used: string[] } {
  const used: string[] = [];
  const client = new Proxy(
    {},
    {
      get: (_, verb) => () => {
        used.push(String(verb));
        return Promise.reject(new Error('no API server here'));
      },
    },
  );
  return { api: { client, userAgent: 'test', onRequest: () => undefined } as unknown as ApiTransport, used };
}

function silentLogger(warnings: string[]): OperatorLogger {
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (_: unknown, message: string) => warnings.push(message),
    error: () => undefined,
    child: () => logger,
  };
  return logger as unknown as OperatorLogger;
}

function config(args: string[]) {
  const parsed = parseRunConfig(['--katalog', 'k.yaml', '--namespace', 'ops', ...args], { env: {} });
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.config;
}

describe('startWebhook with --sharding (ADR 0089, ADR 0110)', () => {
  it('opens no port it was not asked for: without --webhook-bind-address the sharder labels every CR', async () => {
    const { api, used } = recordingApi();
    const warnings: string[] = [];
    const shards = { live: () => ['a'], namespace: undefined } as never;
    const webhook = await startWebhook({
      config: config(['--sharding']),
      api,
      katalog,
      logger: silentLogger(warnings),
      shards,
    });
    expect(webhook).toBeUndefined();
    expect(used).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('tries to open it when --webhook-bind-address asks (here it cannot: a warning, not a failed start)', async () => {
    const { api, used } = recordingApi();
    const warnings: string[] = [];
    const webhook = await startWebhook({
      config: config(['--sharding', '--webhook-bind-address', '127.0.0.1:0']),
      api,
      katalog,
      logger: silentLogger(warnings),
      shards: { live: () => ['a'], namespace: undefined } as never,
    });
    expect(webhook).toBeUndefined();
    expect(used.length).toBeGreaterThan(0);
    expect(warnings).toEqual([
      'cannot serve the shard-assignment webhook; the sharder labels new CRs instead',
    ]);
  });
});
