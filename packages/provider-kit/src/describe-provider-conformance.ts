import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ProviderError } from '@orkestra/types';
import type {
  JsonObject,
  Provider,
  ProviderDeleteResult,
  ProviderInit,
  ProviderRequest,
  ProviderResult,
} from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger, createTestRequest } from './create-test-request.js';
import { createFakeKubeReader } from './fake-kube-reader.js';
import type { FakeKubeReader, FakeKubeReaderContents } from './fake-kube-reader.js';
import { formatPath } from './provider-schema-error.js';

/** ConformanceCase is one kind to exercise, with a valid and an invalid spec. */
export interface ConformanceCase {
  /** Label in test names. Default: the kind. */
  readonly title?: string;
  readonly kind: string;
  /**
   * spec returns a valid spec for something that does not exist yet. `id` is unique per call
   * (6–10 lowercase letters and digits), for names that must not collide between tests.
   */
  readonly spec: (id: string) => unknown;
  /** A spec with one bad field, and that field's dot path (`bucket`, `roles[0].db`). */
  readonly invalid: { readonly spec: unknown; readonly field: string };
  /**
   * snapshot reads the external thing's state (through its own client, not the provider); it
   * must be equal after the first and the second reconcile. Without it only outputs are compared.
   */
  readonly snapshot?: (spec: unknown) => Promise<unknown>;
}

/** ConformanceModule is the part of a `ProviderModule` the suite needs. */
export interface ConformanceModule {
  readonly createProvider: (init: ProviderInit<never>) => Provider | Promise<Provider>;
}

/** ConformanceOptions configures {@link describeProviderConformance}. */
export interface ConformanceOptions {
  /** The provider package's entry module (`import * as module from '…'`) or `defineProvider`'s result. */
  readonly module: ConformanceModule;
  /** The provider config, as a Katalog would give it; a function when it depends on servers started in `beforeAll`. */
  readonly config: unknown;
  readonly cases: readonly ConformanceCase[];
  /** Secrets and ConfigMaps the fake reader serves (keys `namespace/name`); a function for lazy values. */
  readonly kube?: FakeKubeReaderContents | (() => FakeKubeReaderContents);
  /** The owning CR's namespace. Default `conformance`. */
  readonly namespace?: string;
  /** The provider block name. Default: whatever name the provider reports. */
  readonly name?: string;
}

/** ConformanceContext is what each check runs against. */
export interface ConformanceContext {
  readonly provider: Provider;
  readonly kube: FakeKubeReader;
  readonly namespace: string;
  /** A fresh unique id for {@link ConformanceCase.spec}. */
  nextId(): string;
}

/** ConformanceCheck is one property every provider must have, for one case. */
export interface ConformanceCheck {
  readonly title: (kase: ConformanceCase) => string;
  readonly run: (context: ConformanceContext, kase: ConformanceCase) => Promise<void>;
}

const reservedOutputKeys = ['ready', 'message'];

function request(
  context: ConformanceContext,
  kase: ConformanceCase,
  spec: unknown,
  extra: { signal?: AbortSignal; previous?: { spec: unknown; outputs: JsonObject } } = {},
): ProviderRequest {
  return createTestRequest({
    kind: kase.kind,
    spec,
    name: `conformance-${kase.kind}`,
    source: `conformance.operatorBox.providers.${context.provider.name}[0]`,
    namespace: context.namespace,
    ownerName: 'conformance',
    crd: 'conformance',
    kube: context.kube.reader,
    logger: createSilentLogger(),
    ...(extra.signal == null ? {} : { signal: extra.signal }),
    ...(extra.previous == null ? {} : { previous: extra.previous as never }),
  });
}

function expectOnlyReads(context: ConformanceContext): void {
  expect(context.kube.violations, 'the provider tried to write through its KubeReader').toEqual([]);
  for (const read of context.kube.reads) {
    expect(
      read.namespace,
      `${read.kind} ${read.namespace}/${read.name} is outside the owner's namespace`,
    ).toBe(context.namespace);
  }
}

function expectValidOutputs(result: ProviderResult): void {
  const outputs = result.outputs ?? {};
  expect(JSON.parse(JSON.stringify(outputs)), 'outputs must be plain JSON').toEqual(outputs);
  for (const key of reservedOutputKeys)
    expect(Object.keys(outputs), `outputs must not use the reserved key "${key}"`).not.toContain(key);
}

async function cleanUp(context: ConformanceContext, kase: ConformanceCase, spec: unknown): Promise<void> {
  const result = await context.provider.delete(request(context, kase, spec));
  expect(result.state, `cleanup delete: ${result.message ?? ''}`).toBe('deleted');
}

function expectAbortError(error: unknown): void {
  expect(error, 'an aborted call must reject with a ProviderError').toBeInstanceOf(ProviderError);
  expect((error as ProviderError).retryable, 'an aborted call must be retryable').toBe(true);
}

/** conformanceChecks are the checks {@link describeProviderConformance} runs for every case, in order. */
export const conformanceChecks: readonly ConformanceCheck[] = Object.freeze([
  {
    title: (kase) =>
      `${kase.title ?? kase.kind}: the kind is declared with a schema that accepts the valid spec`,
    run: async (context, kase) => {
      const kind = context.provider.kinds[kase.kind];
      expect(kind, `provider.kinds has no "${kase.kind}"`).toBeDefined();
      const parsed = kind?.schema.safeParse(kase.spec(context.nextId()));
      expect(parsed?.success, parsed?.success === false ? parsed.error.message : '').toBe(true);
      await Promise.resolve();
    },
  },
  {
    title: (kase) =>
      `${kase.title ?? kase.kind}: reconcile is idempotent (the second call changes nothing and returns equal outputs)`,
    run: async (context, kase) => {
      const spec = kase.spec(context.nextId());
      try {
        const first = await context.provider.reconcile(request(context, kase, spec));
        expect(first.state, `first reconcile: ${first.message ?? ''}`).toBe('ready');
        expectValidOutputs(first);
        const before = kase.snapshot == null ? undefined : await kase.snapshot(spec);
        const second = await context.provider.reconcile(
          request(context, kase, spec, { previous: { spec, outputs: first.outputs ?? {} } }),
        );
        expect(second.state, `second reconcile: ${second.message ?? ''}`).toBe('ready');
        expect(second.outputs ?? {}).toEqual(first.outputs ?? {});
        if (kase.snapshot != null) {
          const after = await kase.snapshot(spec);
          expect(isDeepStrictEqual(after, before), 'the second reconcile changed the external state').toBe(
            true,
          );
          expect(after).toEqual(before);
        }
      } finally {
        await cleanUp(context, kase, spec);
      }
      expectOnlyReads(context);
    },
  },
  {
    title: (kase) => `${kase.title ?? kase.kind}: delete removes it, and deleting again succeeds`,
    run: async (context, kase) => {
      const spec = kase.spec(context.nextId());
      const created = await context.provider.reconcile(request(context, kase, spec));
      expect(created.state, created.message ?? '').toBe('ready');
      const before = kase.snapshot == null ? undefined : await kase.snapshot(spec);
      const first: ProviderDeleteResult = await context.provider.delete(request(context, kase, spec));
      expect(first.state, first.message ?? '').toBe('deleted');
      if (kase.snapshot != null)
        expect(await kase.snapshot(spec), 'delete left the external state unchanged').not.toEqual(before);
      const again = await context.provider.delete(request(context, kase, spec));
      expect(again.state, again.message ?? '').toBe('deleted');
      expectOnlyReads(context);
    },
  },
  {
    title: (kase) => `${kase.title ?? kase.kind}: delete of something that never existed succeeds`,
    run: async (context, kase) => {
      const result = await context.provider.delete(request(context, kase, kase.spec(context.nextId())));
      expect(result.state, result.message ?? '').toBe('deleted');
      expectOnlyReads(context);
    },
  },
  {
    title: (kase) =>
      `${kase.title ?? kase.kind}: an invalid declaration is a non-retryable schema error naming ${kase.invalid.field}`,
    run: async (context, kase) => {
      const kind = context.provider.kinds[kase.kind];
      const parsed = kind?.schema.safeParse(kase.invalid.spec);
      expect(parsed?.success, 'the kind schema accepted the invalid spec').toBe(false);
      if (parsed?.success === false) {
        expect(parsed.error.issues.map((i) => formatPath(i.path))).toContain(kase.invalid.field);
      }
      const error: unknown = await context.provider.reconcile(request(context, kase, kase.invalid.spec)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, 'reconcile accepted the invalid spec').toBeInstanceOf(ProviderError);
      expect((error as ProviderError).retryable).toBe(false);
      expect((error as ProviderError).message).toContain(kase.invalid.field);
      expectOnlyReads(context);
    },
  },
  {
    title: (kase) => `${kase.title ?? kase.kind}: an aborted signal ends the call`,
    run: async (context, kase) => {
      const spec = kase.spec(context.nextId());
      try {
        const fired = new AbortController();
        fired.abort(new Error('conformance: aborted before the call'));
        expectAbortError(
          await context.provider.reconcile(request(context, kase, spec, { signal: fired.signal })).then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
        expectAbortError(
          await context.provider.delete(request(context, kase, spec, { signal: fired.signal })).then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
        // Fires while the call is in flight: the call was started and has not yet had a chance to
        // finish any I/O, so a provider that honours its signal must reject.
        const during = new AbortController();
        const call = context.provider.reconcile(request(context, kase, spec, { signal: during.signal }));
        during.abort(new Error('conformance: aborted during the call'));
        expectAbortError(
          await call.then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
      } finally {
        await cleanUp(context, kase, spec);
      }
      expectOnlyReads(context);
    },
  },
]);

/**
 * describeProviderConformance registers a vitest `describe` block that checks a provider
 * against the contract of docs/reference/runtime.md §14.7, for every case: reconcile is idempotent (equal
 * outputs, and an unchanged `snapshot` when given), delete removes and is idempotent, delete of
 * something absent succeeds, an invalid declaration is a non-retryable `ProviderError` whose
 * message names the field, an aborted signal ends the call with a retryable `ProviderError`,
 * and the provider only ever reads through the KubeReader it is given, in the owner's namespace.
 * The provider is created in `beforeAll` and closed in `afterAll`.
 *
 * @example
 * import { describeProviderConformance } from '@orkestra/provider-kit/conformance';
 * import * as hello from '../src/index.js';
 *
 * describeProviderConformance({
 *   module: hello,
 *   config: {},
 *   cases: [{ kind: 'greeting', spec: (id) => ({ to: id }), invalid: { spec: { to: '' }, field: 'to' } }],
 * });
 */
export function describeProviderConformance(options: ConformanceOptions): void {
  const namespace = options.namespace ?? 'conformance';
  const prefix = randomBytes(3).toString('hex');
  let counter = 0;
  let context: ConformanceContext | undefined;

  describe('provider conformance', () => {
    beforeAll(async () => {
      const config: unknown =
        typeof options.config === 'function' ? (options.config as () => unknown)() : options.config;
      const contents = typeof options.kube === 'function' ? options.kube() : (options.kube ?? {});
      const provider = await options.module.createProvider({
        name: options.name ?? 'conformance',
        config: config as never,
        logger: createSilentLogger(),
        signal: new AbortController().signal,
      });
      context = {
        provider,
        kube: createFakeKubeReader(contents),
        namespace,
        nextId: () => `${prefix}${(counter += 1)}`,
      };
    });
    afterAll(async () => {
      await context?.provider.close?.();
    });

    const current = (): ConformanceContext => {
      if (context == null) throw new Error('the provider was not created (see the beforeAll error)');
      return context;
    };

    it('reports a name and every kind it is tested with', () => {
      const { provider } = current();
      if (options.name != null) expect(provider.name).toBe(options.name);
      expect(provider.name).not.toBe('');
      for (const kase of options.cases) expect(Object.keys(provider.kinds)).toContain(kase.kind);
    });

    for (const kase of options.cases) {
      for (const check of conformanceChecks) {
        it(check.title(kase), async () => {
          await check.run(current(), kase);
        });
      }
    }
  });
}
