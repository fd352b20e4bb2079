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

/** DefinedHook is a module hook as exported by its package: the mark and the run step. */
export interface DefinedHook<
  Spec = JsonObject,
  Status = JsonObject,
  Outputs = JsonObject,
  Args = JsonObject,
> {
  readonly orkestra: typeof HOOK_MODULE_MARK;
  readonly run: HookFunction<Spec, Status, Outputs, Args>;
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
