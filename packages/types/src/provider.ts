/**
 * The provider-facing interfaces of docs/reference/runtime.md §14.7. Providers depend on @orkestra/types (as a
 * peer) and never on the reconciler. `ProviderError` is a real class in `errors.ts`.
 */
import type { ZodType } from 'zod';

/** JsonValue is a JSON value as stored in Kubernetes objects and in provider outputs. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

/** JsonObject is a JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** Logger is the structured logger the runtime hands out; the subset of pino's API. */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** KubeReader is read-only access to Secrets and ConfigMaps: the only cluster access a provider gets. */
export interface KubeReader {
  /** Decoded Secret data, or undefined when the Secret does not exist. */
  getSecret(namespace: string, name: string): Promise<Readonly<Record<string, Uint8Array>> | undefined>;
  /** ConfigMap `data`, or undefined when the ConfigMap does not exist. */
  getConfigMap(namespace: string, name: string): Promise<Readonly<Record<string, string>> | undefined>;
}

/** OwnerSnapshot is a frozen snapshot of the CR that owns a declaration. */
export interface OwnerSnapshot {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid: string;
    readonly generation: number;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly spec: JsonObject;
  readonly status: JsonObject;
}

/** Ownership is the identity to tag external resources with, so they can be traced back to their owner. */
export interface Ownership {
  readonly katalog: string;
  readonly crd: string;
  readonly ownerUid: string;
  readonly ownerName: string;
  readonly ownerNamespace?: string;
}

/** ProviderDeclaration is one declaration after rendering and schema validation. */
export interface ProviderDeclaration<Spec = unknown> {
  /** Declaration name: the key of its outputs. */
  readonly name: string;
  /** The kind key, e.g. "s3" or "user". */
  readonly kind: string;
  readonly spec: Spec;
  /** Katalog path, for messages. */
  readonly source: string;
}

/** ProviderRecord is what the last successful call recorded in status.providers. */
export interface ProviderRecord {
  readonly spec: JsonValue;
  readonly outputs: JsonObject;
}

/** ProviderRequest is everything a provider call receives. */
export interface ProviderRequest<Spec = unknown> {
  readonly declaration: ProviderDeclaration<Spec>;
  readonly previous?: ProviderRecord;
  readonly owner: OwnerSnapshot;
  readonly ownership: Ownership;
  readonly kube: KubeReader;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/** ProviderResult is the outcome of `Provider.reconcile`: ready (with outputs) or pending. */
export type ProviderResult =
  | { readonly state: 'ready'; readonly outputs?: JsonObject; readonly message?: string }
  | {
      readonly state: 'pending';
      readonly outputs?: JsonObject;
      readonly message: string;
      readonly retryAfterMs?: number;
    };

/** ProviderDeleteResult is the outcome of `Provider.delete`: deleted or pending. */
export type ProviderDeleteResult =
  | { readonly state: 'deleted'; readonly message?: string }
  | { readonly state: 'pending'; readonly message: string; readonly retryAfterMs?: number };

/** ProviderKind is one declaration kind a provider understands. */
export interface ProviderKind<Spec = unknown> {
  readonly schema: ZodType<Spec>;
  readonly description?: string;
  /** Output keys, documented for `ork validate`. */
  readonly outputs?: readonly string[];
}

/** Provider manages external things; both operations must be idempotent, and deleting something absent succeeds. */
export interface Provider {
  readonly name: string;
  readonly kinds: Readonly<Record<string, ProviderKind>>;
  reconcile(request: ProviderRequest): Promise<ProviderResult>;
  delete(request: ProviderRequest): Promise<ProviderDeleteResult>;
  close?(): Promise<void>;
}

/** ProviderInit is what `createProvider` receives at start-up. */
export interface ProviderInit<Config = JsonObject> {
  readonly name: string;
  readonly config: Config;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/** ProviderModule is the shape a provider package's entry module must have. */
export interface ProviderModule<Config = JsonObject> {
  readonly configSchema?: ZodType<Config>;
  readonly createProvider: (init: ProviderInit<Config>) => Provider | Promise<Provider>;
}
