/**
 * The `remote` hook (docs/reference/katalog.md §15.3, docs/reference/runtime.md §14.8,
 * docs/adr/0046-remote-reconciler-is-a-hook.md): step 12b POSTs upstream's `PreparedRequest` — the
 * CR, `args`, and what was prepared for it (cross reads, external results, its cached children) —
 * to a service, checks the answer, and adds `remote` to the template context. The answer's
 * resources are children of the desired set (the entry's `remote.<list>` entries,
 * runtime/compile-katalog.ts), its `status` is written with the run's status, and `requeue`
 * re-queues the CR after `requeueAfter`. A service that misbehaves fails the reconcile with
 * `RemoteReconcileFailed`, retried with the queue's backoff. With `module` + `function` instead of
 * `endpoint` the reconciler is a `defineReconciler` export loaded at start (ADR 0064), called in
 * process with the same request and its result checked and applied by the same path.
 */
import type { KubeObject } from '@orkestra/registry';
import { compileValue } from '@orkestra/template';
import type { CompiledValue, TemplateEngine } from '@orkestra/template';
import {
  ConditionReason,
  OrkestraError,
  RECONCILER_RESULT_KEYS,
  isDefinedReconciler,
  isTemplate,
  parseDuration,
  stringForm,
} from '@orkestra/types';
import type { CrdEntry, RemoteReconciler } from '@orkestra/types';
import { defineHook, failing, noMemory } from '../hook-unit.js';
import { isMap } from '../../is-map.js';
import type { HookInput, HookServices, OfflineScript } from '../hook-unit.js';
import { deepFreeze, hookCr } from '../modules/index.js';
import type { RemoteCallOutcome } from '../remote.js';
import { RemoteAnswerError, managedKinds, parseRemoteAnswer } from './answer.js';
import type { ManagedKinds, RemoteAnswer } from './answer.js';

/** CompiledRemote is an entry's `remote` block with `endpoint` and `args` compiled. */
export interface CompiledRemote {
  readonly declaration: RemoteReconciler;
  readonly katalogPath: string;
  /** Renders `{endpoint, args}`. */
  readonly value: CompiledValue;
  readonly managed: ManagedKinds;
  readonly timeoutMs: number;
}

/** RemoteResult is the context value `remote`: the checked answer and whether a call was made. */
export interface RemoteResult extends Omit<RemoteAnswer, 'writesStatus'> {
  readonly called: boolean;
}

/** notCalledRemoteResult is `remote` before (or without) a call. */
function notCalledRemoteResult(): RemoteResult {
  return { called: false, result: 'ok', requeueAfter: '', error: '', status: {}, resources: [] };
}

/** The wait of an answer `requeue` that gives no `requeueAfter`. */
const REQUEUE_DEFAULT = '10s';

/** REMOTE_RESULT_KEYS are the fields of `remote` (`--strict`). */
const REMOTE_RESULT_KEYS = ['called', 'result', 'requeueAfter', 'error', 'status', 'resources'] as const;

function compileRemote(entry: CrdEntry, base: string, engine: TemplateEngine): CompiledRemote | undefined {
  const declaration = entry.operatorBox.remote;
  if (declaration == null) return undefined;
  const katalogPath = `${base}.operatorBox.remote`;
  return {
    declaration,
    katalogPath,
    value: compileValue(
      { endpoint: declaration.endpoint ?? '', args: declaration.args },
      { path: katalogPath, engine },
    ),
    managed: managedKinds(declaration.managedResources),
    timeoutMs: parseDuration(declaration.timeout),
  };
}

/** requestBody is upstream's PreparedRequest for one CR. */
function requestBody(
  compiled: CompiledRemote,
  input: Pick<HookInput, 'cr' | 'context' | 'crd'>,
  args: Readonly<Record<string, unknown>>,
  children: readonly KubeObject[] | undefined,
): {
  key: string | undefined;
  gvk: Record<string, string>;
  object: unknown;
  args?: Readonly<Record<string, unknown>>;
  prepared: Record<string, unknown>;
} {
  const { cr, crd } = input;
  const payload = compiled.declaration.payload;
  const namespace = cr.metadata.namespace;
  const context = input.context as Readonly<Record<string, unknown>>;
  const prepared: Record<string, unknown> = {
    cross: context['cross'] ?? {},
    external: context['external'] ?? {},
    git: context['git'] ?? {},
  };
  if ((payload.children.enabled || compiled.declaration.module != null) && children != null) {
    const byKind: Record<string, Record<string, unknown>> = {};
    for (const child of children) {
      const kind = child.kind.toLowerCase();
      (byKind[kind] ??= {})[child.metadata.name ?? ''] = without(child, payload.children.exclude);
    }
    prepared['children'] = byKind;
  }
  return {
    key: namespace == null || namespace === '' ? cr.metadata.name : `${namespace}/${cr.metadata.name}`,
    gvk: { Group: crd.apiTypes.group, Version: crd.apiTypes.version, Kind: crd.apiTypes.kind },
    object: without(cr, payload.object.exclude),
    ...(Object.keys(args).length === 0 ? {} : { args }),
    prepared,
  };
}

/** without is a copy of `object` with each dot path removed (`metadata.managedFields`). */
function without(object: unknown, paths: readonly string[]): unknown {
  const copy = structuredClone(object);
  for (const path of paths) {
    const keys = path.split('.');
    const last = keys.pop();
    let at: unknown = copy;
    for (const key of keys) at = isMap(at) && Object.hasOwn(at, key) ? at[key] : undefined;
    if (last != null && isMap(at)) delete at[last];
  }
  return copy;
}

function failed(compiled: CompiledRemote, message: string, shown: RemoteResult): OrkestraError {
  return failing(
    new OrkestraError(`${compiled.katalogPath}: remote reconciler ${message}`, {
      code: ConditionReason.RemoteReconcileFailed,
      katalogPath: compiled.katalogPath,
    }),
    shown,
  );
}

async function runRemote(
  services: HookServices,
  compiled: CompiledRemote,
  input: HookInput,
): Promise<RemoteResult> {
  const rendered = compiled.value.render(input.context) as {
    endpoint?: unknown;
    args?: Record<string, unknown>;
  };
  const url = stringForm(rendered.endpoint);
  const args = Object.fromEntries(Object.entries(rendered.args ?? {}).map(([k, v]) => [k, stringForm(v)]));
  const notCalled = notCalledRemoteResult();
  // The offline engines have no loaded modules: they answer a module reconciler from the given result, as a service.
  if (compiled.declaration.module != null && services.moduleHook != null)
    return runModuleReconciler(services, compiled, input, args);
  if (services.remote == null) throw failed(compiled, 'has no client in this process', notCalled);
  const headers: Record<string, string> = {};
  const auth = compiled.declaration.auth;
  if (auth != null) {
    // A credential goes only to an endpoint written in the Katalog, never to one a CR chose.
    if (isTemplate(compiled.declaration.endpoint))
      throw failed(compiled, 'sends a credential, so its endpoint must be literal', notCalled);
    const credential = await services.crossCredential?.(
      {
        ...(auth.env == null ? {} : { env: auth.env }),
        ...(auth.secretRef == null ? {} : { secretRef: auth.secretRef }),
      } as never,
      input.cr.metadata.namespace,
    );
    if (credential == null || 'error' in credential)
      throw failed(compiled, `credential: ${credential?.error ?? 'no resolver'}`, notCalled);
    headers[auth.header.toLowerCase()] =
      auth.header.toLowerCase() === 'authorization' ? `Bearer ${credential.value}` : credential.value;
  }
  const children = compiled.declaration.payload.children.enabled
    ? services.ownedChildren?.(input.cr.metadata.uid ?? '')
    : undefined;
  const outcome: RemoteCallOutcome = await services.remote.call(
    {
      url,
      body: requestBody(compiled, input, args, children),
      headers,
      timeoutMs: compiled.timeoutMs,
      attempts: compiled.declaration.attempts,
    },
    input.signal,
  );
  if (!outcome.ok) throw failed(compiled, outcome.error, notCalled);
  let answer: RemoteAnswer;
  try {
    answer = parseRemoteAnswer(outcome.answer, compiled.managed);
  } catch (error) {
    if (!(error instanceof RemoteAnswerError)) throw error;
    throw failed(compiled, `${outcome.url} answered ${error.message}`, { ...notCalled, called: true });
  }
  const { writesStatus, ...value } = answer;
  const result: RemoteResult = { ...value, called: true };
  if (answer.result === 'error' || answer.error !== '')
    throw failed(compiled, `answered error: ${answer.error || '(no message)'}`, result);
  if (writesStatus) input.effects.writeStatus(answer.status);
  return result;
}

/**
 * runModuleReconciler calls a `defineReconciler` export (ADR 0064) with the CR (frozen), the rendered
 * `args` and `prepared` (its children always included), bounded by `timeout`; the result must have
 * only `resources`, `status` and `requeueAfter` and is then checked and applied as a remote answer.
 * A throw, a timeout or a result outside the contract is RemoteReconcileFailed; nothing is written.
 */
async function runModuleReconciler(
  services: HookServices,
  compiled: CompiledRemote,
  input: HookInput,
  args: Readonly<Record<string, unknown>>,
): Promise<RemoteResult> {
  const { module = '', function: exportName = 'default', timeout } = compiled.declaration;
  const label = `module ${module}#${exportName}`;
  const notCalled = notCalledRemoteResult();
  const exported = services.moduleHook?.(module, exportName);
  if (exported == null)
    throw failed(
      compiled,
      `${label} is not loaded (the operator loads module reconcilers at start)`,
      notCalled,
    );
  if (!isDefinedReconciler(exported))
    throw failed(compiled, `${label} is not a reconciler: make it with defineReconciler`, notCalled);
  const body = requestBody(
    compiled,
    input,
    args,
    services.ownedChildren?.(input.cr.metadata.uid ?? '') ?? [],
  );
  const deadline = AbortSignal.timeout(compiled.timeoutMs);
  const signal = AbortSignal.any([input.signal, deadline]);
  const request = {
    entry: input.crd.name,
    key: body.key ?? '',
    cr: hookCr(input.cr),
    args: deepFreeze(structuredClone(args)),
    prepared: deepFreeze(body.prepared),
    kube: services.hookKube?.(input.cr.metadata.namespace) ?? {
      getSecret: () => Promise.reject(new Error('no cluster reads in this engine')),
      getConfigMap: () => Promise.reject(new Error('no cluster reads in this engine')),
    },
    logger: input.logger.child({ reconciler: `${module}#${exportName}` }),
    signal,
  };
  const aborted = new Promise<never>((_, reject) => {
    const fail = (): void =>
      reject(new Error(deadline.aborted ? `timed out after ${String(timeout)}` : 'aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  let value: unknown;
  try {
    value = await Promise.race([Promise.resolve().then(() => exported.run(request as never)), aborted]);
  } catch (error) {
    if (input.signal.aborted) throw error;
    throw failed(
      compiled,
      `${label} failed: ${error instanceof Error ? error.message : String(error)}`,
      notCalled,
    );
  }
  const answer = moduleAnswer(value);
  if (typeof answer === 'string') throw failed(compiled, `${label} returned ${answer}`, notCalled);
  let checked: RemoteAnswer;
  try {
    checked = parseRemoteAnswer(answer, compiled.managed);
  } catch (error) {
    if (!(error instanceof RemoteAnswerError)) throw error;
    throw failed(compiled, `${label} returned ${error.message}`, { ...notCalled, called: true });
  }
  const { writesStatus, ...rest } = checked;
  if (writesStatus) input.effects.writeStatus(checked.status);
  return { ...rest, called: true };
}

/**
 * runModuleReconcilerDeletion calls a module reconciler's `onDelete` (ADR 0109) while its CR is being
 * deleted: the CR (frozen), `args` rendered on the CR, `key`, the reader and a signal aborted at
 * `timeout`. An HTTP reconciler and an export without `onDelete` have nothing to call. A throw, a
 * timeout, an export that is not loaded or not a reconciler, or `args` that do not render fail the
 * deletion pass with RemoteReconcileFailed (the finalizer stays, retried with backoff). Offline the
 * step is recorded in its place, or fails as scripted (`scriptedReconcilerOnDelete`, ADR 0116).
 */
export async function runModuleReconcilerDeletion(
  services: HookServices,
  compiled: CompiledRemote,
  input: HookInput,
): Promise<void> {
  const { module, function: exportName = 'default', timeout } = compiled.declaration;
  if (module == null) return;
  const label = `module ${module}#${exportName}`;
  const fail = (message: string, cause?: unknown): OrkestraError =>
    new OrkestraError(`${compiled.katalogPath}: remote reconciler ${label} onDelete ${message}`, {
      code: ConditionReason.RemoteReconcileFailed,
      katalogPath: compiled.katalogPath,
      ...(cause === undefined ? {} : { cause }),
    });
  const failed = (error: unknown): OrkestraError => {
    input.logger.warn({ err: error }, `remote reconciler ${label} onDelete failed`);
    return fail(`failed: ${error instanceof Error ? error.message : String(error)}`, error);
  };
  // Offline: recorded in its place, or its scripted failure thrown as the module's own (ADR 0116).
  if (services.scriptedReconcilerOnDelete != null) {
    try {
      services.scriptedReconcilerOnDelete(`${module}#${exportName}`);
    } catch (error) {
      throw failed(error);
    }
    return;
  }
  const exported = services.moduleHook?.(module, exportName);
  if (exported == null)
    throw fail('cannot run: the export is not loaded (the operator loads module reconcilers at start)');
  if (!isDefinedReconciler(exported))
    throw fail('cannot run: the export is not a reconciler (make it with defineReconciler)');
  const onDelete = exported.onDelete;
  if (onDelete == null) return;
  let args: Record<string, string>;
  try {
    const rendered = compiled.value.render(input.context) as { args?: Record<string, unknown> };
    args = Object.fromEntries(Object.entries(rendered.args ?? {}).map(([k, v]) => [k, stringForm(v)]));
  } catch (error) {
    throw fail(`cannot run: args: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  const namespace = input.cr.metadata.namespace;
  const deadline = AbortSignal.timeout(compiled.timeoutMs);
  const signal = AbortSignal.any([input.signal, deadline]);
  const request = {
    entry: input.crd.name,
    key:
      namespace == null || namespace === ''
        ? input.cr.metadata.name
        : `${namespace}/${input.cr.metadata.name}`,
    cr: hookCr(input.cr),
    args: deepFreeze(structuredClone(args)),
    kube: services.hookKube?.(namespace) ?? {
      getSecret: () => Promise.reject(new Error('no cluster reads in this engine')),
      getConfigMap: () => Promise.reject(new Error('no cluster reads in this engine')),
    },
    logger: input.logger.child({ reconciler: `${module}#${exportName}`, step: 'onDelete' }),
    signal,
  };
  const aborted = new Promise<never>((_, reject) => {
    const stop = (): void =>
      reject(new Error(deadline.aborted ? `timed out after ${String(timeout)}` : 'aborted'));
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  try {
    await Promise.race([Promise.resolve().then(() => onDelete(request as never)), aborted]);
  } catch (error) {
    if (input.signal.aborted) throw error;
    throw failed(error);
  }
}

/** moduleAnswer turns a module reconciler's result into the remote answer's shape, or says what is wrong with it. */
function moduleAnswer(value: unknown): Record<string, unknown> | string {
  if (value == null) return { result: 'ok' };
  if (!isMap(value))
    return `${Array.isArray(value) ? 'an array' : typeof value}, not { resources, status, requeueAfter }`;
  const unknown = Object.keys(value).filter((key) => !RECONCILER_RESULT_KEYS.includes(key));
  if (unknown.length > 0)
    return `unknown key${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (a reconciler returns ${RECONCILER_RESULT_KEYS.join(', ')})`;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch (error) {
    return `a result that is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  const requeue = value['requeueAfter'];
  if (typeof requeue === 'number' && !(Number.isFinite(requeue) && requeue >= 0))
    return `requeueAfter ${String(requeue)}, not a duration or milliseconds`;
  const requeueAfter = typeof requeue === 'number' ? `${Math.round(requeue)}ms` : requeue;
  return {
    result: requeueAfter == null ? 'ok' : 'requeue',
    ...(requeueAfter == null ? {} : { requeueAfter }),
    ...(json['status'] === undefined ? {} : { status: json['status'] }),
    ...(json['resources'] === undefined ? {} : { resources: json['resources'] }),
  };
}

/** scriptedRemote answers from the given `remote` result (upstream's answer shape); none reads as `ok` with no resources. */
function scriptedRemote(script: OfflineScript): HookServices['remote'] {
  return {
    call: async (call) => {
      const given = script.given();
      if (given == null) script.note('remote: no answer in the context; read as result ok with no resources');
      return { ok: true, answer: given ?? { result: 'ok' }, attempts: 1, url: call.url };
    },
  };
}

/** remoteHook is the `remote` unit (step 12b, after the external calls). */
export const remoteHook = defineHook({
  key: 'remote',
  schema: 'operatorBox.remote — RemoteReconciler in @orkestra/types (schema/hooks.ts)',
  reference: 'docs/reference/katalog.md §15.3',
  phase: 'context',
  label: { place: 'the remote reconciler', reader: 'remote' },
  enqueuedBy: [],
  compile: compileRemote,
  declared: (compiled) => compiled != null,
  initial: () => notCalledRemoteResult(),
  settle: (result: RemoteResult) => ({
    value: result,
    // `requeue` without `requeueAfter` waits REQUEUE_DEFAULT, never a hot loop.
    ...(result.result === 'requeue'
      ? { requeueAfterMs: parseDuration(result.requeueAfter === '' ? REQUEUE_DEFAULT : result.requeueAfter) }
      : {}),
  }),
  results: 'one',
  resultKeys: REMOTE_RESULT_KEYS,
  deletionStep: 'onDelete',
  offline: (script) => ({
    remote: scriptedRemote(script),
    scriptedReconcilerOnDelete: (name) => {
      script.call('onDelete', script.key, name);
      const failure = script.deletionFailure(name);
      if (failure != null) throw new Error(failure);
    },
  }),
  memory: noMemory,
  run: (services, _memory, compiled, input): Promise<RemoteResult> =>
    runRemote(services, compiled as CompiledRemote, input),
});
