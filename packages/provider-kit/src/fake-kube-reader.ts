import type { KubeReader } from '@orkestra/types';

/** FakeSecretData is Secret data for the fake reader: strings are UTF-8 encoded on read. */
export type FakeSecretData = Readonly<Record<string, string | Uint8Array>>;

/** FakeKubeReaderContents seeds a fake reader; keys are `namespace/name`. */
export interface FakeKubeReaderContents {
  readonly secrets?: Readonly<Record<string, FakeSecretData>>;
  readonly configMaps?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** KubeRead is one recorded read. */
export interface KubeRead {
  readonly kind: 'Secret' | 'ConfigMap';
  readonly namespace: string;
  readonly name: string;
  /** False when the object did not exist (the read returned undefined). */
  readonly found: boolean;
}

/**
 * FakeKubeReader is an in-memory `KubeReader` for unit tests that records every read. Hand
 * providers `reader` (a read-only view); the other members are for the test.
 */
export interface FakeKubeReader extends KubeReader {
  /** A view with only `getSecret` and `getConfigMap`; any attempt to reach a write-like member is recorded in `violations`. */
  readonly reader: KubeReader;
  /** Every read so far, in order. */
  readonly reads: readonly KubeRead[];
  /** Names of write-like members (`create*`, `update*`, `delete*`, …) something tried to use on `reader`. */
  readonly violations: readonly string[];
  /** setSecret replaces a Secret's data; `undefined` removes it. */
  setSecret(namespace: string, name: string, data: FakeSecretData | undefined): void;
  /** setConfigMap replaces a ConfigMap's data; `undefined` removes it. */
  setConfigMap(namespace: string, name: string, data: Readonly<Record<string, string>> | undefined): void;
  /** clearReads forgets the recorded reads and violations. */
  clearReads(): void;
}

const writeLike = /^(create|update|patch|delete|remove|put|set|apply|replace|write|post)/i;

/**
 * createFakeKubeReader builds a {@link FakeKubeReader} from `namespace/name` keyed contents.
 * Every read returns a fresh copy, so a provider mutating what it got changes nothing.
 *
 * @example
 * const kube = createFakeKubeReader({ secrets: { 'shop/db': { password: 's3cret' } } });
 * await kube.getSecret('shop', 'db'); // { password: Uint8Array [ … ] }
 * kube.reads; // [{ kind: 'Secret', namespace: 'shop', name: 'db', found: true }]
 */
export function createFakeKubeReader(contents: FakeKubeReaderContents = {}): FakeKubeReader {
  const secrets = new Map<string, FakeSecretData>(Object.entries(contents.secrets ?? {}));
  const configMaps = new Map<string, Readonly<Record<string, string>>>(
    Object.entries(contents.configMaps ?? {}),
  );
  const reads: KubeRead[] = [];
  const violations: string[] = [];
  const encoder = new TextEncoder();

  const getSecret = async (
    namespace: string,
    name: string,
  ): Promise<Readonly<Record<string, Uint8Array>> | undefined> => {
    await Promise.resolve();
    const data = secrets.get(`${namespace}/${name}`);
    reads.push({ kind: 'Secret', namespace, name, found: data != null });
    if (data == null) return undefined;
    const out: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(data))
      out[key] = typeof value === 'string' ? encoder.encode(value) : new Uint8Array(value);
    return Object.freeze(out);
  };
  const getConfigMap = async (
    namespace: string,
    name: string,
  ): Promise<Readonly<Record<string, string>> | undefined> => {
    await Promise.resolve();
    const data = configMaps.get(`${namespace}/${name}`);
    reads.push({ kind: 'ConfigMap', namespace, name, found: data != null });
    return data == null ? undefined : Object.freeze({ ...data });
  };

  const view: KubeReader = { getSecret, getConfigMap };
  const reader = new Proxy(view, {
    get(target, property, receiver) {
      if (typeof property === 'string' && !Object.hasOwn(target, property) && writeLike.test(property))
        violations.push(property);
      return Reflect.get(target, property, receiver) as unknown;
    },
    set(_target, property) {
      violations.push(`set ${String(property)}`);
      return false;
    },
    defineProperty(_target, property) {
      violations.push(`define ${String(property)}`);
      return false;
    },
    deleteProperty(_target, property) {
      violations.push(`delete ${String(property)}`);
      return false;
    },
  });

  return {
    getSecret,
    getConfigMap,
    reader,
    get reads() {
      return reads.slice();
    },
    get violations() {
      return violations.slice();
    },
    setSecret(namespace, name, data) {
      if (data == null) secrets.delete(`${namespace}/${name}`);
      else secrets.set(`${namespace}/${name}`, { ...data });
    },
    setConfigMap(namespace, name, data) {
      if (data == null) configMaps.delete(`${namespace}/${name}`);
      else configMaps.set(`${namespace}/${name}`, { ...data });
    },
    clearReads() {
      reads.length = 0;
      violations.length = 0;
    },
  };
}
