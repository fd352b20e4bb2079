import type {
  JsonObject,
  KubeReader,
  Logger,
  OwnerSnapshot,
  Ownership,
  ProviderRecord,
  ProviderRequest,
} from '@orkestra/types';
import { createFakeKubeReader } from './fake-kube-reader.js';

/** TestRequestOptions configures {@link createTestRequest}; everything but `kind` and `spec` has a default. */
export interface TestRequestOptions {
  readonly kind: string;
  readonly spec: unknown;
  /** Declaration name. Default: the kind. */
  readonly name?: string;
  /** Katalog path. Default `test.operatorBox.providers.test[0]`. */
  readonly source?: string;
  readonly previous?: ProviderRecord;
  /** The owning CR's namespace. Default `default`. */
  readonly namespace?: string;
  /** The owning CR's name. Default `test`. */
  readonly ownerName?: string;
  /** The owning CR's UID. Default `00000000-0000-4000-8000-000000000001`. */
  readonly ownerUid?: string;
  /** The CRD entry name. Default `test`. */
  readonly crd?: string;
  /** Default: an empty fake reader. */
  readonly kube?: KubeReader;
  /** Default: {@link createSilentLogger}. */
  readonly logger?: Logger;
  /** Default: a signal that never fires. */
  readonly signal?: AbortSignal;
}

/**
 * createTestRequest builds a complete `ProviderRequest` for unit tests and the conformance
 * suite, as the reconciler would: a frozen owner snapshot, ownership, a reader, a logger and a
 * signal.
 *
 * @example
 * const result = await provider.reconcile(createTestRequest({ kind: 'greeting', spec: { to: 'world' } }));
 */
export function createTestRequest(options: TestRequestOptions): ProviderRequest {
  const namespace = options.namespace ?? 'default';
  const ownerName = options.ownerName ?? 'test';
  const ownerUid = options.ownerUid ?? '00000000-0000-4000-8000-000000000001';
  const crd = options.crd ?? 'test';
  const owner: OwnerSnapshot = Object.freeze({
    apiVersion: 'example.com/v1',
    kind: 'Test',
    metadata: Object.freeze({
      name: ownerName,
      namespace,
      uid: ownerUid,
      generation: 1,
      labels: {},
      annotations: {},
    }),
    spec: {} satisfies JsonObject,
    status: {} satisfies JsonObject,
  });
  const ownership: Ownership = Object.freeze({
    katalog: 'test',
    crd,
    ownerUid,
    ownerName,
    ownerNamespace: namespace,
  });
  return {
    declaration: Object.freeze({
      name: options.name ?? options.kind,
      kind: options.kind,
      spec: options.spec,
      source: options.source ?? 'test.operatorBox.providers.test[0]',
    }),
    ...(options.previous == null ? {} : { previous: options.previous }),
    owner,
    ownership,
    kube: options.kube ?? createFakeKubeReader().reader,
    logger: options.logger ?? createSilentLogger(),
    signal: options.signal ?? new AbortController().signal,
  };
}

/** createSilentLogger returns a `Logger` that drops everything. */
export function createSilentLogger(): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}
