import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { CustomResourceType } from './install-crd.js';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** CustomObjectCondition is one entry of `status.conditions` (metav1.Condition). */
export interface CustomObjectCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime: string;
}

/** CustomObject is a custom object as read back from the API server. */
export interface CustomObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid: string;
    readonly generation?: number;
    readonly finalizers?: readonly string[];
    readonly deletionTimestamp?: string;
    readonly resourceVersion: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: Record<string, unknown>;
  readonly status?: {
    readonly conditions?: readonly CustomObjectCondition[];
    readonly observedGeneration?: number;
    readonly [key: string]: unknown;
  };
}

/** CrClient reads and writes the objects of one namespaced custom resource kind. */
export interface CrClient<T extends CustomObject = CustomObject> {
  /** create creates `name` with `spec` and returns the object as stored. */
  create(namespace: string, name: string, spec: Record<string, unknown>): Promise<T>;
  get(namespace: string, name: string): Promise<T>;
  list(namespace: string): Promise<T[]>;
  /** patchSpec merge-patches `spec`. */
  patchSpec(namespace: string, name: string, spec: Record<string, unknown>): Promise<void>;
  remove(namespace: string, name: string): Promise<void>;
  /** exists tells whether `name` is there (a 404 is false; other errors throw). */
  exists(namespace: string, name: string): Promise<boolean>;
}

/**
 * crClient returns a {@link CrClient} for the namespaced kind `type`, acting as `kubeConfig`'s
 * user. `T` narrows what reads return (e.g. a status with test-specific fields); it is not checked.
 *
 * @example
 * const shops = crClient(env.kubeConfig, shopType);
 * await shops.create(env.namespace, 'one', { image: 'nginx' });
 * const ready = (await shops.get(env.namespace, 'one')).status?.conditions?.find((c) => c.type === 'Ready');
 */
export function crClient<T extends CustomObject = CustomObject>(
  kubeConfig: KubeConfig,
  type: CustomResourceType,
): CrClient<T> {
  if (type.namespaced === false) {
    throw new TestenvError(`crClient handles namespaced kinds only; ${type.kind} is cluster-scoped`, {
      code: TestenvErrorCode.InvalidArgument,
    });
  }
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const base = { group: type.group, version: type.version, plural: type.plural };
  return {
    async create(namespace, name, spec) {
      return (await custom.createNamespacedCustomObject({
        ...base,
        namespace,
        body: { apiVersion: `${type.group}/${type.version}`, kind: type.kind, metadata: { name }, spec },
      })) as T;
    },
    async get(namespace, name) {
      return (await custom.getNamespacedCustomObject({ ...base, namespace, name })) as T;
    },
    async list(namespace) {
      const list = (await custom.listNamespacedCustomObject({ ...base, namespace })) as { items: T[] };
      return list.items;
    },
    async patchSpec(namespace, name, spec) {
      await custom.patchNamespacedCustomObject(
        { ...base, namespace, name, body: { spec } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
    async remove(namespace, name) {
      await custom.deleteNamespacedCustomObject({ ...base, namespace, name });
    },
    async exists(namespace, name) {
      try {
        await custom.getNamespacedCustomObject({ ...base, namespace, name });
        return true;
      } catch (error) {
        if ((error as { code?: number } | null)?.code === 404) return false;
        throw error;
      }
    },
  };
}
