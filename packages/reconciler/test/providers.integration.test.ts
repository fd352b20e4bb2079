import { createProvider } from '@orkestra/provider-hello';
import type { Provider, ProviderRequest } from '@orkestra/types';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import {
  katalogFrom,
  quietLogger,
  readConfigMap,
  syncedOf,
  useRuntimeTest,
  waitFor,
} from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'prov',
  kind: 'Greeter',
  plural: 'greeters',
});

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: providers-test}
spec:
  providers:
    - {name: hello, package: "@orkestra/provider-hello", config: {greeting: Hi}}
  crds:
    greeter:
      apiTypes: {group: ${group}, version: v1, kind: Greeter, plural: greeters}
      resync: "0"
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-greeting"
              data: {text: "{{ providers.hello.welcome.text }}"}
        providers:
          hello:
            - name: welcome
              greeting:
                to: "{{ spec.to }}"
                wordFrom: "{{ spec.wordFrom }}"
        status:
          fields:
            - {path: text, value: "{{ providers.hello.welcome.text }}"}
`);

/** Calls the provider saw, by operation. */
const calls: { reconcile: ProviderRequest[]; delete: ProviderRequest[] } = { reconcile: [], delete: [] };

function spied(inner: Provider): Provider {
  return {
    name: inner.name,
    kinds: inner.kinds,
    reconcile: (request) => {
      calls.reconcile.push(request);
      return inner.reconcile(request);
    },
    delete: (request) => {
      calls.delete.push(request);
      return inner.delete(request);
    },
  };
}

function callsFor(operation: 'reconcile' | 'delete', owner: string): ProviderRequest[] {
  return calls[operation].filter((r) => r.owner.metadata.name === owner);
}

let runtime: KatalogRuntime;

function configMap(name: string): Promise<Record<string, string> | undefined> {
  return readConfigMap(env.kubeConfig, env.namespace, name);
}

beforeAll(async () => {
  const hello = await createProvider({
    name: 'hello',
    config: { greeting: 'Hi' },
    logger: quietLogger(),
    signal: new AbortController().signal,
  });
  runtime = await startRuntime({
    katalog,
    providers: new Map([['hello', spied(hello)]]),
    options: { namespace: env.namespace },
  });
});

describe('provider dispatch', () => {
  it('records a ready result in status, shows fresh outputs to status fields and recorded ones to children', async () => {
    await crs.create(env.namespace, 'shop', { to: 'shop' });
    await waitFor(
      'greeting config map',
      async () => (await configMap('shop-greeting'))?.['text'] === 'Hi, shop!',
    );
    const cr = await crs.get(env.namespace, 'shop');
    expect(syncedOf(cr)?.reason).toBe('ReconcileSucceeded');
    expect(cr.status?.['text']).toBe('Hi, shop!');
    const record = (cr.status?.['providers'] as Record<string, Record<string, Record<string, unknown>>>)[
      'hello'
    ]?.['welcome'];
    expect(record).toMatchObject({
      kind: 'greeting',
      ready: true,
      message: '',
      outputs: { text: 'Hi, shop!' },
      spec: { to: 'shop' },
    });
    expect(record?.['specHash']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(typeof record?.['lastSuccessTime']).toBe('string');
    const request = callsFor('reconcile', 'shop')[0];
    expect(request?.declaration).toEqual({
      name: 'welcome',
      kind: 'greeting',
      spec: { to: 'shop' },
      source: 'greeter.operatorBox.providers.hello[0]',
    });
    expect(request?.ownership).toEqual({
      katalog: 'providers-test',
      crd: 'greeter',
      ownerUid: cr.metadata.uid,
      ownerName: 'shop',
      ownerNamespace: env.namespace,
    });
  });

  it('skips the call when the spec is unchanged, the last result was ready and recent', async () => {
    expect(callsFor('reconcile', 'shop')).toHaveLength(1);
    const controller = runtime.entries.get('greeter')?.controller;
    const before = controller?.stats().reconciles ?? 0;
    // A spec change the declaration does not read enqueues the CR without changing the rendered spec.
    await crs.patchSpec(env.namespace, 'shop', { to: 'shop', unrelated: 'x' });
    await waitFor('another reconcile', () => (controller?.stats().reconciles ?? 0) > before);
    await waitFor('observed', async () => {
      const cr = await crs.get(env.namespace, 'shop');
      return syncedOf(cr)?.observedGeneration === cr.metadata.generation;
    });
    expect(callsFor('reconcile', 'shop')).toHaveLength(1);
    await crs.patchSpec(env.namespace, 'shop', { to: 'shop-two' });
    await waitFor(
      'new greeting',
      async () => (await configMap('shop-greeting'))?.['text'] === 'Hi, shop-two!',
    );
    expect(callsFor('reconcile', 'shop')).toHaveLength(2);
    expect(callsFor('reconcile', 'shop')[1]?.previous).toEqual({
      spec: { to: 'shop' },
      outputs: { text: 'Hi, shop!' },
    });
  });

  it('reports a pending result as ProviderPending and records it', async () => {
    await crs.create(env.namespace, 'waiting', {
      to: 'waiting',
      wordFrom: { configMap: 'words', key: 'en' },
    });
    await waitFor(
      'pending',
      async () => syncedOf(await crs.get(env.namespace, 'waiting'))?.reason === 'ProviderPending',
    );
    const cr = await crs.get(env.namespace, 'waiting');
    expect(syncedOf(cr)?.message).toContain('greeter.operatorBox.providers.hello[0]');
    expect(syncedOf(cr)?.message).toContain('ConfigMap words has no key en');
    const providers = cr.status?.['providers'] as Record<string, Record<string, Record<string, unknown>>>;
    expect(providers['hello']?.['welcome']).toMatchObject({ ready: false, kind: 'greeting' });
    // No recorded outputs yet: the whole-expression value is absent, so the key is not set.
    expect(await configMap('waiting-greeting')).toEqual({});
  });

  it('fails terminally with ProviderFailed naming the Katalog path and schema path when the spec is invalid', async () => {
    await crs.create(env.namespace, 'bad', { to: 'Not OK' });
    await waitFor(
      'failed',
      async () => syncedOf(await crs.get(env.namespace, 'bad'))?.reason === 'ProviderFailed',
    );
    const ready = syncedOf(await crs.get(env.namespace, 'bad'));
    expect(ready?.message).toMatch(/^greeter\.operatorBox\.providers\.hello\[0\]: greeting\.to: /);
    expect(callsFor('reconcile', 'bad')).toHaveLength(0);
  });

  it('calls delete for the declaration before removing the finalizer', async () => {
    await crs.remove(env.namespace, 'shop');
    await waitFor('shop gone', async () => !(await crs.exists(env.namespace, 'shop')));
    const deletes = callsFor('delete', 'shop');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.declaration.spec).toEqual({ to: 'shop-two' });
  });
});
