import { createFakeKubeReader, createSilentLogger, createTestRequest } from '@orkestra/provider-kit';
import { describeProviderConformance } from '@orkestra/provider-kit/conformance';
import { describe, expect, it } from 'vitest';
import * as hello from './index.js';

describe('@orkestra/provider-hello', () => {
  describeProviderConformance({
    module: hello,
    config: { greeting: 'Hi' },
    name: 'hello',
    cases: [
      { kind: 'greeting', spec: (id) => ({ to: id }), invalid: { spec: { to: 'Not OK' }, field: 'to' } },
    ],
  });

  it('greets with the word from a ConfigMap, read in the owner namespace', async () => {
    const provider = await hello.createProvider({
      name: 'hello',
      config: { greeting: 'Hi' },
      logger: createSilentLogger(),
      signal: new AbortController().signal,
    });
    const kube = createFakeKubeReader({ configMaps: { 'shop/words': { en: 'Howdy' } } });
    const spec = { to: 'shop', wordFrom: { configMap: 'words', key: 'en' } };
    const result = await provider.reconcile(
      createTestRequest({ kind: 'greeting', spec, namespace: 'shop', kube: kube.reader }),
    );
    expect(result).toEqual({ state: 'ready', outputs: { text: 'Howdy, shop!' } });
    expect(kube.reads).toEqual([{ kind: 'ConfigMap', namespace: 'shop', name: 'words', found: true }]);
    const missing = await provider.reconcile(
      createTestRequest({
        kind: 'greeting',
        spec: { ...spec, wordFrom: { configMap: 'words', key: 'fr' } },
        namespace: 'shop',
        kube: kube.reader,
      }),
    );
    expect(missing.state).toBe('pending');
  });
});
