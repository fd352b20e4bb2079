import { ProviderError } from '@orkestra/types';
import type { Provider, ProviderRequest } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineProvider } from './define-provider.js';
import { conformanceChecks, describeProviderConformance } from './describe-provider-conformance.js';
import type { ConformanceCase, ConformanceContext } from './describe-provider-conformance.js';
import { createFakeKubeReader } from './fake-kube-reader.js';

const Spec = z.object({ name: z.string().regex(/^[a-z0-9]+$/), size: z.number().int().default(1) });

/** An in-memory provider that follows the contract; `store` is its "external system". */
function memoryModule(store: Map<string, number>) {
  return defineProvider({
    name: 'memory',
    configSchema: z.object({}),
    kinds: {
      item: {
        schema: Spec,
        reconcile: async ({ spec, kube, owner }) => {
          await kube.getConfigMap(owner.metadata.namespace ?? '', 'settings');
          store.set(spec.name, spec.size);
          return { state: 'ready', outputs: { name: spec.name } };
        },
        delete: async ({ spec }) => {
          await Promise.resolve();
          store.delete(spec.name);
          return { state: 'deleted' };
        },
      },
    },
  });
}

const store = new Map<string, number>();
const itemCase: ConformanceCase = {
  kind: 'item',
  spec: (id) => ({ name: id }),
  invalid: { spec: { name: 'Not Valid' }, field: 'name' },
  snapshot: async (spec) => {
    await Promise.resolve();
    return store.get((spec as { name: string }).name) ?? null;
  },
};

describe('describeProviderConformance on a conforming provider', () => {
  describeProviderConformance({ module: memoryModule(store), config: {}, name: 'memory', cases: [itemCase] });
});

/** A hand-written provider whose behaviour each negative test breaks in one way. */
function handWritten(overrides: Partial<Pick<Provider, 'reconcile' | 'delete'>>): Provider {
  const items = new Set<string>();
  const base: Provider = {
    name: 'hand',
    kinds: { item: { schema: Spec } },
    reconcile: async (request: ProviderRequest) => {
      if (request.signal.aborted) throw new ProviderError('aborted', { code: 'Aborted', retryable: true });
      const parsed = Spec.safeParse(request.declaration.spec);
      if (!parsed.success)
        throw new ProviderError(`bad ${parsed.error.issues[0]?.path.join('.')}`, {
          code: 'InvalidSpec',
          retryable: false,
        });
      await new Promise((resolve) => setImmediate(resolve));
      if (request.signal.aborted) throw new ProviderError('aborted', { code: 'Aborted', retryable: true });
      items.add(parsed.data.name);
      return { state: 'ready', outputs: { name: parsed.data.name } };
    },
    delete: async (request: ProviderRequest) => {
      if (request.signal.aborted) throw new ProviderError('aborted', { code: 'Aborted', retryable: true });
      await Promise.resolve();
      items.delete((request.declaration.spec as { name: string }).name);
      return { state: 'deleted' };
    },
  };
  return { ...base, ...overrides };
}

function contextFor(provider: Provider): ConformanceContext {
  let n = 0;
  return { provider, kube: createFakeKubeReader(), namespace: 'conformance', nextId: () => `id${(n += 1)}` };
}

const checkNamed = (fragment: string) => {
  const check = conformanceChecks.find((c) => c.title(itemCase).includes(fragment));
  if (check == null) throw new Error(`no check titled …${fragment}…`);
  return check;
};
const plainCase: ConformanceCase = {
  kind: 'item',
  spec: (id) => ({ name: id }),
  invalid: { spec: { name: 'Not Valid' }, field: 'name' },
};

describe('conformanceChecks catch broken providers', () => {
  it('pass for the well-behaved hand-written provider', async () => {
    for (const check of conformanceChecks) await check.run(contextFor(handWritten({})), plainCase);
  });

  it('idempotency fails when the second reconcile returns different outputs', async () => {
    let n = 0;
    const provider = handWritten({
      reconcile: async () => ({ state: 'ready', outputs: { revision: (n += 1) } }),
    });
    await expect(checkNamed('idempotent').run(contextFor(provider), plainCase)).rejects.toThrow();
  });

  it('outputs using a reserved key fail', async () => {
    const provider = handWritten({ reconcile: async () => ({ state: 'ready', outputs: { ready: true } }) });
    await expect(checkNamed('idempotent').run(contextFor(provider), plainCase)).rejects.toThrow(
      /reserved key "ready"/,
    );
  });

  it('delete of something absent fails when delete throws for a missing thing', async () => {
    const provider = handWritten({
      delete: () =>
        Promise.reject(new ProviderError('NoSuchThing', { code: 'NoSuchThing', retryable: false })),
    });
    await expect(checkNamed('never existed').run(contextFor(provider), plainCase)).rejects.toThrow();
  });

  it('the schema check fails when reconcile accepts an invalid spec', async () => {
    const provider = handWritten({ reconcile: async () => ({ state: 'ready' }) });
    await expect(checkNamed('schema error').run(contextFor(provider), plainCase)).rejects.toThrow(
      /accepted the invalid spec/,
    );
  });

  it('the schema check fails when the error does not name the field', async () => {
    const provider = handWritten({
      reconcile: () =>
        Promise.reject(new ProviderError('invalid', { code: 'InvalidSpec', retryable: false })),
    });
    await expect(checkNamed('schema error').run(contextFor(provider), plainCase)).rejects.toThrow();
  });

  it('the abort check fails for a provider that ignores its signal', async () => {
    const provider = handWritten({
      reconcile: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return { state: 'ready' };
      },
    });
    await expect(checkNamed('aborted signal').run(contextFor(provider), plainCase)).rejects.toThrow(
      /ProviderError/,
    );
  });

  it('the read-only check fails for a provider that tries to write through the reader', async () => {
    const provider = handWritten({
      delete: async (request) => {
        const writer = request.kube as unknown as { deleteSecret?: () => Promise<void> };
        await writer.deleteSecret?.();
        return { state: 'deleted' };
      },
    });
    await expect(checkNamed('never existed').run(contextFor(provider), plainCase)).rejects.toThrow(
      /write through its KubeReader/,
    );
  });

  it('the read-only check fails for reads outside the owner namespace', async () => {
    const provider = handWritten({
      delete: async (request) => {
        await request.kube.getSecret('kube-system', 'admin');
        return { state: 'deleted' };
      },
    });
    await expect(checkNamed('never existed').run(contextFor(provider), plainCase)).rejects.toThrow(
      /outside the owner's namespace/,
    );
  });
});
