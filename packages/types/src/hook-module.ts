/**
 * The contract of a module hook (docs/reference/katalog.md §14.5, docs/adr/0052): an npm package
 * exports functions made with `defineHook` (@orkestra/provider-kit); `operatorBox.hooks` names the
 * package and the export; the operator loads them at start as it loads providers. The runtime
 * checks the mark, never the copy of the kit that made it, so a hook built against another patch
 * of the kit still loads.
 */
import type { JsonObject, KubeReader, Logger } from './provider.js';

/** HOOK_MODULE_MARK is the `orkestra` field of a value made by `defineHook`. */
export const HOOK_MODULE_MARK = 'hook/v1';

/** HookCr is the CR a module hook sees: a frozen copy, `spec` and `status` typed by the hook. */
export interface HookCr<Spec = JsonObject, Status = JsonObject> {
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
  readonly spec: Spec;
  readonly status: Partial<Status>;
}

/** HookRequest is what one run of a module hook receives. */
export interface HookRequest<Spec = JsonObject, Status = JsonObject, Args = JsonObject> {
  /** The CRD entry's name in the Katalog. */
  readonly entry: string;
  readonly cr: HookCr<Spec, Status>;
  /** The declaration's `args`, as written. */
  readonly args: Args;
  /** The template context so far: `cross`, `git`, `external` and the hooks before this one under `hooks`. */
  readonly context: Readonly<Record<string, unknown>>;
  /** Read-only Secrets and ConfigMaps (cached), as providers get. */
  readonly kube: KubeReader;
  readonly logger: Logger;
  /** Aborted at the declaration's `timeout` and on shutdown. */
  readonly signal: AbortSignal;
}

/** HookResult is what a module hook returns: its outputs (`hooks.<name>`) and, optionally, when to run again. */
export interface HookResult<Outputs = JsonObject> {
  /** JSON outputs, in the template context as `hooks.<name>` (status fields read them). Default `{}`. */
  readonly outputs?: Outputs;
  /** Re-queue the CR after this long (`30s`, `5m`, or milliseconds); the earliest re-queue of a run wins. */
  readonly requeueAfter?: string | number;
}

/** HookFunction is the run step of a module hook. */
export type HookFunction<Spec = JsonObject, Status = JsonObject, Outputs = JsonObject, Args = JsonObject> = (
  request: HookRequest<Spec, Status, Args>,
) => Promise<HookResult<Outputs> | void> | HookResult<Outputs> | void;

/**
 * HookDeleteRequest is what a module hook's `onDelete` receives while its CR is being deleted
 * (docs/reference/katalog.md §14.5, ADR 0099): the run request without the template context.
 */
export type HookDeleteRequest<Spec = JsonObject, Status = JsonObject, Args = JsonObject> = Omit<
  HookRequest<Spec, Status, Args>,
  'context'
>;

/**
 * HookDeleteFunction is the deletion step of a module hook: called on the deletion path before the
 * finalizer is released, until it returns without throwing (then once per CR); it must be idempotent.
 */
export type HookDeleteFunction<Spec = JsonObject, Status = JsonObject, Args = JsonObject> = (
  request: HookDeleteRequest<Spec, Status, Args>,
) => Promise<void> | void;

/** DefinedHook is a module hook as exported by its package: the mark, the run step and, optionally, the deletion step. */
export interface DefinedHook<
  Spec = JsonObject,
  Status = JsonObject,
  Outputs = JsonObject,
  Args = JsonObject,
> {
  readonly orkestra: typeof HOOK_MODULE_MARK;
  readonly run: HookFunction<Spec, Status, Outputs, Args>;
  readonly onDelete?: HookDeleteFunction<Spec, Status, Args> | undefined;
}

/** isDefinedHook tells a value made by `defineHook` (any copy of the kit) from anything else. */
export function isDefinedHook(value: unknown): value is DefinedHook<unknown, unknown, unknown, unknown> {
  return (
    value != null &&
    typeof value === 'object' &&
    (value as { orkestra?: unknown }).orkestra === HOOK_MODULE_MARK &&
    typeof (value as { run?: unknown }).run === 'function'
  );
}

/** RECONCILER_MODULE_MARK is the `orkestra` field of a value made by `defineReconciler`. */
export const RECONCILER_MODULE_MARK = 'reconciler/v1';

/**
 * ReconcilerPrepared is what was prepared for the CR before the reconciler runs, as a remote
 * reconciler's `prepared` (docs/reference/katalog.md §15.3): the cross reads, git and external
 * results, and the CR's children from the cache by lower-case kind and name.
 */
export interface ReconcilerPrepared {
  readonly cross: Readonly<Record<string, unknown>>;
  readonly external: Readonly<Record<string, unknown>>;
  readonly git: Readonly<Record<string, unknown>>;
  readonly children: Readonly<Record<string, Readonly<Record<string, JsonObject>>>>;
}

/** ReconcilerRequest is what one run of a module reconciler receives. */
export interface ReconcilerRequest<Spec = JsonObject, Status = JsonObject, Args = JsonObject> {
  /** The CRD entry's name in the Katalog. */
  readonly entry: string;
  /** `namespace/name` (or `name` for a cluster-scoped CR), upstream's `key`. */
  readonly key: string;
  readonly cr: HookCr<Spec, Status>;
  /** The declaration's `args`, rendered. */
  readonly args: Args;
  readonly prepared: ReconcilerPrepared;
  /** Read-only Secrets and ConfigMaps (cached), as providers get. */
  readonly kube: KubeReader;
  readonly logger: Logger;
  /** Aborted at the declaration's `timeout` and on shutdown. */
  readonly signal: AbortSignal;
}

/**
 * ReconcilerResource is one child the reconciler wants: an intent (`type`: deployment, service,
 * configmap, secret, …, with the Katalog entry's `fields`) or a whole object (`apiVersion`, `kind`,
 * `metadata.name`). Only kinds in `managedResources` are applied.
 */
export type ReconcilerResource =
  | { readonly type: string; readonly fields?: JsonObject }
  | {
      readonly apiVersion: string;
      readonly kind: string;
      readonly metadata: { readonly name: string; readonly [key: string]: unknown };
      readonly [key: string]: unknown;
    };

/** ReconcilerResult is what a module reconciler returns; these keys only (the remote reconciler's answer, ADR 0064). */
export interface ReconcilerResult<Status = JsonObject> {
  /** The children: applied, pruned and inventoried as declared children are. Default none. */
  readonly resources?: readonly ReconcilerResource[];
  /** Fields written under `.status` after the declared ones (never conditions, observedGeneration, inventory). */
  readonly status?: Partial<Status>;
  /** Re-queue the CR after this long (`30s`, `5m`, or milliseconds). */
  readonly requeueAfter?: string | number;
}

/** RECONCILER_RESULT_KEYS are the only keys a module reconciler's result may have. */
export const RECONCILER_RESULT_KEYS: readonly string[] = Object.freeze([
  'resources',
  'status',
  'requeueAfter',
]);

/** ReconcilerFunction is the run step of a module reconciler. */
export type ReconcilerFunction<Spec = JsonObject, Status = JsonObject, Args = JsonObject> = (
  request: ReconcilerRequest<Spec, Status, Args>,
) => Promise<ReconcilerResult<Status> | void> | ReconcilerResult<Status> | void;

/**
 * ReconcilerDeleteRequest is what a module reconciler's `onDelete` receives while its CR is being
 * deleted (docs/reference/katalog.md §15.3, ADR 0109): the run request without `prepared` (nothing
 * is prepared on the deletion path), `args` rendered on the CR.
 */
export type ReconcilerDeleteRequest<Spec = JsonObject, Status = JsonObject, Args = JsonObject> = Omit<
  ReconcilerRequest<Spec, Status, Args>,
  'prepared'
>;

/**
 * ReconcilerDeleteFunction is the deletion step of a module reconciler: called on the deletion path
 * before the entry's module hooks' steps and the finalizer release, until it returns without
 * throwing (then once per CR); it must be idempotent. The children it returned are deleted by the
 * runtime after it; it releases what lives outside the cluster.
 */
export type ReconcilerDeleteFunction<Spec = JsonObject, Status = JsonObject, Args = JsonObject> = (
  request: ReconcilerDeleteRequest<Spec, Status, Args>,
) => Promise<void> | void;

/** DefinedReconciler is a module reconciler as exported by its package: the mark, the run step and, optionally, the deletion step. */
export interface DefinedReconciler<Spec = JsonObject, Status = JsonObject, Args = JsonObject> {
  readonly orkestra: typeof RECONCILER_MODULE_MARK;
  readonly run: ReconcilerFunction<Spec, Status, Args>;
  readonly onDelete?: ReconcilerDeleteFunction<Spec, Status, Args> | undefined;
}

/** isDefinedReconciler tells a value made by `defineReconciler` (any copy of the kit) from anything else. */
export function isDefinedReconciler(value: unknown): value is DefinedReconciler<unknown, unknown, unknown> {
  return (
    value != null &&
    typeof value === 'object' &&
    (value as { orkestra?: unknown }).orkestra === RECONCILER_MODULE_MARK &&
    typeof (value as { run?: unknown }).run === 'function'
  );
}

/** LoadedModuleExport is what the operator loads for a Katalog's module references: a hook or a reconciler. */
export type LoadedModuleExport =
  DefinedHook<unknown, unknown, unknown, unknown> | DefinedReconciler<unknown, unknown, unknown>;
