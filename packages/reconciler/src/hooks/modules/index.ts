/**
 * The `hooks` hook (docs/reference/katalog.md §14.5, docs/adr/0052-custom-logic-as-typescript-modules.md):
 * step 12 runs the module hooks an entry names, in declaration order, each seeing the outputs of
 * the ones before it, and adds `hooks.<name>` (the outputs) to the template context. The functions
 * were loaded at start (the operator's hook module loader); one that is missing, throws, returns
 * something that is not JSON or outlives its `timeout` fails the reconcile with HookFailed, unless
 * `continueOnError` (then its outputs read `{}`).
 */
import {
  ConditionReason,
  OrkestraError,
  evaluateConditions,
  isDefinedHook,
  katalogPathOf,
  parseDuration,
} from '@orkestra/types';
import type { DefinedHook, HookCr, JsonObject, ModuleHook } from '@orkestra/types';
import type { KubeObject } from '@orkestra/registry';
import { defineHook, errorMessage, failing, noMemory } from '../hook-unit.js';
import type { HookInput, HookServices, OfflineScript } from '../hook-unit.js';
import { isMap } from '../../is-map.js';

/** CompiledModuleHook is one declaration of `operatorBox.hooks`, with its Katalog path. */
export interface CompiledModuleHook {
  readonly declaration: ModuleHook;
  readonly katalogPath: string;
  readonly timeoutMs: number;
}

/** ModuleHooksResult is what the slot returns: the outputs by hook name and the earliest re-queue asked for. */
export interface ModuleHooksResult {
  readonly outputs: Readonly<Record<string, unknown>>;
  readonly requeueAfterMs?: number | undefined;
}

/** moduleHookKey is how the loaded hooks are looked up: `<package>#<export>`. */
export function moduleHookKey(module: string, exportName: string): string {
  return `${module}#${exportName}`;
}

/** hookCr is the CR as a module hook or reconciler sees it: a deep-frozen copy of the contract's fields. */
export function hookCr(cr: KubeObject): HookCr {
  const meta = cr.metadata;
  const copy = structuredClone({
    apiVersion: cr.apiVersion,
    kind: cr.kind,
    metadata: {
      name: meta.name ?? '',
      ...(meta.namespace == null ? {} : { namespace: meta.namespace }),
      uid: meta.uid ?? '',
      generation: typeof meta['generation'] === 'number' ? meta['generation'] : 0,
      labels: { ...(meta.labels ?? {}) },
      annotations: { ...(meta.annotations ?? {}) },
    },
    spec: isMap(cr['spec']) ? cr['spec'] : {},
    status: isMap(cr['status']) ? cr['status'] : {},
  }) as HookCr;
  return deepFreeze(copy);
}

/** deepFreeze freezes `value` and everything it holds, in place. */
export function deepFreeze<T>(value: T): T {
  if (value != null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** jsonOutputs checks that a hook's outputs are a JSON object (what the context and the status can hold) and copies them. */
function jsonOutputs(value: unknown): JsonObject {
  if (value === undefined) return {};
  if (!isMap(value))
    throw new TypeError(
      `outputs must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    );
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`outputs are not JSON: ${errorMessage(error)}`, { cause: error });
  }
  return JSON.parse(text) as JsonObject;
}

function requeueMs(value: unknown): number | undefined {
  if (value == null) return undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string') return parseDuration(value);
  throw new TypeError(`requeueAfter must be a duration or milliseconds, got ${JSON.stringify(value)}`);
}

/**
 * callWithDeadline calls one function of a module hook with the request every step gets (entry,
 * CR, args, cluster reads, a logger, the signal) plus `extra`, bounded by the item's timeout; a
 * result after the deadline is not used.
 */
async function callWithDeadline(
  call: (request: never) => unknown,
  item: CompiledModuleHook,
  input: HookInput,
  services: HookServices,
  extra: { readonly context?: unknown; readonly step?: string },
): Promise<unknown> {
  const { declaration } = item;
  const timeout = AbortSignal.timeout(item.timeoutMs);
  const signal = AbortSignal.any([input.signal, timeout]);
  const namespace = input.cr.metadata.namespace;
  const request = {
    entry: input.crd.name,
    cr: hookCr(input.cr),
    args: declaration.args,
    ...(extra.context === undefined ? {} : { context: extra.context }),
    kube: services.hookKube?.(namespace) ?? {
      getSecret: () => Promise.reject(new Error('no cluster reads in this engine')),
      getConfigMap: () => Promise.reject(new Error('no cluster reads in this engine')),
    },
    logger: input.logger.child({
      hook: declaration.name,
      module: declaration.module,
      ...(extra.step === undefined ? {} : { step: extra.step }),
    }),
    signal,
  };
  const aborted = new Promise<never>((_, reject) => {
    const fail = (): void =>
      reject(new Error(timeout.aborted ? `timed out after ${declaration.timeout}` : 'aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  return Promise.race([Promise.resolve().then(() => call(request as never)), aborted]);
}

/** runOne calls one hook with a deadline; a result after the deadline is not used. */
async function runOne(
  hook: DefinedHook<unknown, unknown, unknown, unknown>,
  item: CompiledModuleHook,
  input: HookInput,
  services: HookServices,
  outputs: Readonly<Record<string, unknown>>,
): Promise<{ outputs: JsonObject; requeueAfterMs?: number | undefined }> {
  const result = await callWithDeadline((request) => hook.run(request), item, input, services, {
    context: deepFreeze(structuredClone({ ...input.context, hooks: { ...outputs } })),
  });
  if (result != null && !isMap(result))
    throw new TypeError('a hook returns `{ outputs, requeueAfter }` or nothing');
  const record = (result ?? {}) as { outputs?: unknown; requeueAfter?: unknown };
  return { outputs: jsonOutputs(record.outputs), requeueAfterMs: requeueMs(record.requeueAfter) };
}

/** runModuleHooks runs an entry's module hooks in order (step 12). */
async function runModuleHooks(
  services: HookServices,
  compiled: readonly CompiledModuleHook[],
  input: HookInput,
): Promise<ModuleHooksResult> {
  const outputs: Record<string, unknown> = {};
  let requeueAfterMs: number | undefined;
  for (const item of compiled) {
    const { declaration } = item;
    const context = { ...input.context, hooks: { ...outputs } };
    if (!evaluateConditions(declaration, context, services.conditions).passed) continue;
    const label = `${declaration.module}#${declaration.function}`;
    try {
      const hook = services.moduleHook?.(declaration.module, declaration.function);
      if (hook == null) throw new Error(`${label} is not loaded (the operator loads module hooks at start)`);
      if (!isDefinedHook(hook)) throw new Error(`${label} is not a hook (made with defineHook)`);
      const result = await runOne(hook, item, input, services, outputs);
      outputs[declaration.name] = result.outputs;
      if (result.requeueAfterMs != null)
        requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, result.requeueAfterMs);
    } catch (error) {
      if (input.signal.aborted) throw error;
      input.logger.warn({ hook: declaration.name, err: error }, `module hook ${label} failed`);
      if (declaration.continueOnError) {
        outputs[declaration.name] = {};
        continue;
      }
      throw failing(
        new OrkestraError(
          `${item.katalogPath}: hook ${declaration.name} (${label}) failed: ${errorMessage(error)}`,
          {
            code: ConditionReason.HookFailed,
            katalogPath: item.katalogPath,
            cause: error,
          },
        ),
        { outputs },
      );
    }
  }
  return { outputs, requeueAfterMs };
}

/**
 * runModuleHookDeletions calls the `onDelete` step of each of an entry's module hooks that has one
 * (ADR 0099), in reverse declaration order, while the CR is being deleted: the CR, `args`, the
 * reader and a signal aborted at the declaration's `timeout`. A hook whose `when` does not pass on
 * the CR is skipped; one that is not loaded or throws fails the deletion pass with HookFailed
 * (the finalizer stays, retried with backoff), unless `continueOnError`.
 */
export async function runModuleHookDeletions(
  services: HookServices,
  compiled: readonly CompiledModuleHook[],
  input: HookInput,
): Promise<void> {
  for (const item of [...compiled].reverse()) {
    const { declaration } = item;
    if (!evaluateConditions(declaration, input.context, services.conditions).passed) continue;
    const label = `${declaration.module}#${declaration.function}`;
    try {
      // Offline no module is loaded: the step is recorded where it would run (ADR 0109), and a
      // scripted failure is thrown here, so it fails the pass as the module's own throw does (ADR 0116).
      if (services.scriptedHookOnDelete != null) {
        services.scriptedHookOnDelete(declaration.name);
        continue;
      }
      const hook = services.moduleHook?.(declaration.module, declaration.function);
      if (hook == null) throw new Error(`${label} is not loaded (the operator loads module hooks at start)`);
      if (!isDefinedHook(hook)) throw new Error(`${label} is not a hook (made with defineHook)`);
      const onDelete = hook.onDelete;
      if (onDelete == null) continue;
      await callWithDeadline((request) => onDelete(request), item, input, services, { step: 'onDelete' });
    } catch (error) {
      if (input.signal.aborted) throw error;
      input.logger.warn({ hook: declaration.name, err: error }, `module hook ${label} onDelete failed`);
      if (declaration.continueOnError) continue;
      throw new OrkestraError(
        `${item.katalogPath}: hook ${declaration.name} (${label}) onDelete failed: ${errorMessage(error)}`,
        { code: ConditionReason.HookFailed, katalogPath: item.katalogPath, cause: error },
      );
    }
  }
}

/**
 * scriptedHooks answers each hook offline from the given `hooks.<name>` outputs (a missing one reads
 * `{}`) and records each module `onDelete` step of the deletion path in its place (ADR 0109),
 * failing with its scripted message when one is given (ADR 0116).
 */
function scriptedHooks(script: OfflineScript): Partial<HookServices> {
  return {
    scriptedHookOnDelete: (name) => {
      script.call('onDelete', script.key, name);
      const failure = script.deletionFailure(name);
      if (failure != null) throw new Error(failure);
    },
    scriptedHookOutputs: (name) => {
      const given = isMap(script.given()) ? (script.given() as Record<string, unknown>)[name] : undefined;
      if (given === undefined) script.note(`hooks.${name}: no result in the context; read as {}`);
      return isMap(given) ? given : {};
    },
  };
}

/** moduleHooksUnit is the `hooks` unit (step 12). */
export const moduleHooksUnit = defineHook({
  key: 'hooks',
  schema: 'operatorBox.hooks[] — ModuleHook in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §14.5',
  phase: 'context',
  label: { place: 'module hooks', reader: 'module hooks' },
  enqueuedBy: [],
  compile: (entry, base): readonly CompiledModuleHook[] =>
    entry.operatorBox.hooks.map((declaration, i) => ({
      declaration,
      katalogPath: katalogPathOf(declaration) ?? `${base}.operatorBox.hooks[${i}]`,
      timeoutMs: parseDuration(declaration.timeout),
    })),
  declared: (compiled) => compiled.length > 0,
  initial: () => ({}),
  settle: (result: ModuleHooksResult) => ({
    value: result.outputs,
    ...(result.requeueAfterMs == null ? {} : { requeueAfterMs: result.requeueAfterMs }),
  }),
  results: 'by-name',
  ordered: true,
  deletionStep: 'onDelete',
  offline: scriptedHooks,
  memory: noMemory,
  run: async (services, _memory, compiled, input): Promise<ModuleHooksResult> => {
    const scripted = services.scriptedHookOutputs;
    if (scripted != null) {
      const outputs: Record<string, unknown> = {};
      for (const item of compiled) outputs[item.declaration.name] = scripted(item.declaration.name);
      return { outputs };
    }
    return runModuleHooks(services, compiled, input);
  },
});
