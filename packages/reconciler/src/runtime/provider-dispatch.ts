/**
 * Provider dispatch (docs/reference/runtime.md §14.6, docs/reference/katalog.md §14): step 16 of the pipeline and step 5 of the
 * deletion path. Declarations run one at a time in order; the skip rule reuses recorded outputs;
 * results are recorded in `status.providers`.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import {
  ConditionReason,
  OrkestraError,
  ProviderError,
  TerminalError,
  evaluateConditions,
  parseDuration,
} from '@orkestra/types';
import type {
  EvaluateConditionsOptions,
  JsonObject,
  JsonValue,
  OwnerSnapshot,
  Ownership,
  Provider,
  ProviderRecord,
  ProviderRequest,
} from '@orkestra/types';
import type { Clock } from '../clock.js';
import { createDeadline } from '../hooks/deadline.js';
import { TimeoutError } from '../hooks/http-request.js';
import { formatRfc3339 } from '../secrets/rotation.js';
import type { CompiledProviderDeclaration } from './compile-hooks.js';
import type { KubeReadCache } from './kube-reader.js';
import { failing, pending } from '../hooks/hook-unit.js';
import type { HookInput, HookPending, ProviderDeletion } from '../hooks/hook-unit.js';

/** MAX_PROVIDER_OUTPUT_BYTES is the largest JSON size of one declaration's outputs (16 KiB). */
export const MAX_PROVIDER_OUTPUT_BYTES = 16 * 1024;

const DEFAULT_PENDING_MS = 10_000;
const DEFAULT_SKIP_WINDOW_MS = 10 * 60_000;

/** ProviderStatusRecord is one `status.providers.<provider>.<name>` item (docs/reference/katalog.md §13.1). */
export interface ProviderStatusRecord {
  readonly kind: string;
  readonly ready: boolean;
  readonly message: string;
  readonly outputs: JsonObject;
  readonly spec?: JsonValue;
  readonly specHash?: string;
  readonly lastSuccessTime?: string;
}

/** ProviderDispatchOptions configures a ProviderDispatch. */
export interface ProviderDispatchOptions {
  readonly katalogName: string;
  /** Loaded providers by name; a name missing here fails its declarations with `ProviderFailed`. */
  readonly providers: ReadonlyMap<string, Provider>;
  /** Where KubeReaders come from. */
  readonly kube: KubeReadCache;
  /** `now()` is epoch milliseconds; timers for declaration timeouts. */
  readonly clock: Clock;
  /** Gate evaluation (template rendering and time). */
  readonly conditions: EvaluateConditionsOptions;
  /** Called when the deletion path keeps a declaration (`deletionPolicy: Retain`); the offline engine reports it. Default: none. */
  readonly onRetained?: ((provider: string, declaration: string) => void) | undefined;
}

/**
 * ProviderDispatch calls the providers of one runtime. `reconcile` and `delete` have the shapes of
 * the pipeline's `providers` and `deleteProviders` slots.
 *
 * @example
 * const dispatch = new ProviderDispatch({ katalogName, providers, kube, clock, conditions });
 * const hooks = { providers: (input) => dispatch.reconcile(input), deleteProviders: (input) => dispatch.delete(input) };
 */
export class ProviderDispatch {
  readonly #o: ProviderDispatchOptions;

  constructor(options: ProviderDispatchOptions) {
    this.#o = options;
  }

  /**
   * reconcile runs every declaration of the entry (step 16) and returns the fresh `providers`
   * context; records go to `status.providers` through `effects.recordProviders`. A declaration
   * that is not ready yet ends it with a `pending(ProviderPending, …)` outcome; a failure throws an
   * OrkestraError (ProviderFailed, terminal or retryable).
   */
  async reconcile(input: HookInput): Promise<{ readonly outputs: unknown } | HookPending> {
    const context = input.context as Record<string, unknown>;
    if (input.crd.hooks.providers.length === 0) return { outputs: context['providers'] ?? {} };
    const view = structuredClone((context['providers'] ?? {}) as Record<string, Record<string, unknown>>);
    try {
      return await this.#reconcile(input, view);
    } catch (error) {
      // The failure status shows the outputs so far, as a pending one does.
      throw error instanceof Error ? failing(error, { outputs: view }) : error;
    }
  }

  async #reconcile(
    input: HookInput,
    view: Record<string, Record<string, unknown>>,
  ): Promise<{ readonly outputs: unknown } | HookPending> {
    const declarations = input.crd.hooks.providers;
    const records = recordedRecords(input.cr);
    // Each declaration sees the outputs of the ones before it; the slot's result fills the context.
    const scope = { ...input.context, providers: view };
    const resyncMs = parseDuration(input.crd.entry.resync);
    const skipWindowMs = resyncMs > 0 ? resyncMs : DEFAULT_SKIP_WINDOW_MS;
    const setRecord = (decl: CompiledProviderDeclaration, record: ProviderStatusRecord): void => {
      const block = (records[decl.provider] ??= {});
      block[decl.declaration.name] = record;
      const shown = (view[decl.provider] ??= {});
      shown[decl.declaration.name] = { ...record.outputs, ready: record.ready, message: record.message };
      input.effects.recordProviders(records);
    };
    for (const decl of declarations) {
      const { name, kind } = decl.declaration;
      if (!evaluateConditions(decl.declaration, scope, this.#o.conditions).passed) continue;
      const rendered = toJson(decl.spec.render(scope));
      const provider = this.#provider(decl);
      const spec = this.#validate(provider, decl, rendered);
      const specHash = hashSpec(rendered);
      const previous = records[decl.provider]?.[name];
      const now = this.#o.clock.now();
      if (
        previous != null &&
        previous.specHash === specHash &&
        previous.ready &&
        previous.lastSuccessTime != null &&
        now - Date.parse(previous.lastSuccessTime) < skipWindowMs
      ) {
        const shown = (view[decl.provider] ??= {});
        shown[name] = { ...previous.outputs, ready: true, message: previous.message };
        continue;
      }
      const deadline = createDeadline(
        this.#o.clock,
        decl.timeoutMs,
        `${decl.katalogPath}: provider call timed out after ${decl.declaration.timeout}`,
        input.signal,
      );
      let result;
      try {
        result = await provider.reconcile(this.#request(input, decl, spec, previous, deadline.signal));
      } catch (error) {
        const failure = callFailure(decl, error, deadline.signal, ConditionReason.ProviderFailed);
        setRecord(decl, { ...emptyRecord(kind, previous), ready: false, message: failure.message });
        throw failure;
      } finally {
        deadline.clear();
      }
      const outputs = result.outputs ?? {};
      const problem = outputsProblem(outputs);
      if (problem != null) {
        const message = `${decl.katalogPath}: provider ${decl.provider} returned invalid outputs: ${problem}`;
        setRecord(decl, { ...emptyRecord(kind, previous), ready: false, message });
        throw new TerminalError(message, {
          code: ConditionReason.ProviderFailed,
          katalogPath: decl.katalogPath,
        });
      }
      if (result.state === 'ready') {
        setRecord(decl, {
          kind,
          ready: true,
          message: result.message ?? '',
          outputs,
          spec: rendered,
          specHash,
          lastSuccessTime: formatRfc3339(new Date(this.#o.clock.now())),
        });
        continue;
      }
      setRecord(decl, {
        kind,
        ready: false,
        message: result.message,
        outputs,
        spec: rendered,
        specHash,
        ...(previous?.lastSuccessTime == null ? {} : { lastSuccessTime: previous.lastSuccessTime }),
      });
      return pending(
        ConditionReason.ProviderPending,
        `${decl.katalogPath}: ${result.message}`,
        result.retryAfterMs ?? DEFAULT_PENDING_MS,
        { outputs: view },
      );
    }
    return { outputs: view };
  }

  /**
   * delete is step 5 of the deletion path: `delete` for every recorded and every declared
   * declaration (gates ignored; the recorded spec when rendering or validation fails), skipping
   * `deletionPolicy: Retain`, in reverse declaration order. Returns what it waits for, or undefined
   * when everything is deleted; throws `ProviderDeleteFailed`.
   */
  async delete(input: HookInput): Promise<ProviderDeletion> {
    const records = recordedRecords(input.cr);
    const declared = input.crd.hooks.providers;
    const seen = new Set<string>();
    const work: {
      readonly decl: CompiledProviderDeclaration | undefined;
      readonly provider: string;
      readonly name: string;
      readonly kind: string;
      readonly katalogPath: string;
    }[] = [];
    for (const decl of declared) {
      seen.add(`${decl.provider}/${decl.declaration.name}`);
      work.push({
        decl,
        provider: decl.provider,
        name: decl.declaration.name,
        kind: decl.declaration.kind,
        katalogPath: decl.katalogPath,
      });
    }
    for (const [provider, block] of Object.entries(records)) {
      for (const [name, record] of Object.entries(block)) {
        if (seen.has(`${provider}/${name}`)) continue;
        work.push({
          decl: undefined,
          provider,
          name,
          kind: record.kind,
          katalogPath: `${input.crd.katalogPath}.operatorBox.providers.${provider}.${name}`,
        });
      }
    }
    for (const item of work.reverse()) {
      if (item.decl?.declaration.deletionPolicy === 'Retain') {
        this.#o.onRetained?.(item.provider, item.name);
        continue;
      }
      const record = records[item.provider]?.[item.name];
      const provider = this.#o.providers.get(item.provider);
      if (provider == null) {
        throw new OrkestraError(`${item.katalogPath}: provider ${item.provider} is not loaded`, {
          code: ConditionReason.ProviderDeleteFailed,
          katalogPath: item.katalogPath,
        });
      }
      let spec: unknown;
      let found = false;
      if (item.decl != null) {
        try {
          const rendered = toJson(item.decl.spec.render(input.context));
          spec = this.#validate(provider, item.decl, rendered);
          found = true;
        } catch {
          found = false;
        }
      }
      if (!found && record?.spec !== undefined) {
        const parsed = provider.kinds[item.kind]?.schema.safeParse(record.spec);
        if (parsed?.success === true) {
          spec = parsed.data;
          found = true;
        }
      }
      if (!found) {
        input.logger.warn(
          { provider: item.provider, declaration: item.name },
          'provider declaration has neither a renderable nor a recorded spec; nothing to delete',
        );
        continue;
      }
      const decl: CompiledProviderDeclaration = item.decl ?? {
        provider: item.provider,
        declaration: {
          name: item.name,
          kind: item.kind,
          spec: record?.spec,
          when: [],
          anyOf: [],
          deletionPolicy: 'Delete',
          timeout: '60s',
        },
        katalogPath: item.katalogPath,
        spec: { isStatic: true, templates: [], referencedPaths: [], render: () => record?.spec },
        timeoutMs: 60_000,
      };
      const deadline = createDeadline(
        this.#o.clock,
        decl.timeoutMs,
        `${decl.katalogPath}: provider delete timed out after ${decl.declaration.timeout}`,
        input.signal,
      );
      let result;
      try {
        result = await provider.delete(this.#request(input, decl, spec, record, deadline.signal));
      } catch (error) {
        const failure = callFailure(decl, error, deadline.signal, ConditionReason.ProviderDeleteFailed);
        throw new OrkestraError(failure.message, {
          code: ConditionReason.ProviderDeleteFailed,
          katalogPath: decl.katalogPath,
          cause: error,
        });
      } finally {
        deadline.clear();
      }
      if (result.state === 'pending') {
        return {
          waiting: `${decl.katalogPath}: ${result.message}`,
          requeueAfterMs: result.retryAfterMs ?? DEFAULT_PENDING_MS,
        };
      }
    }
    return undefined;
  }

  #provider(decl: CompiledProviderDeclaration): Provider {
    const provider = this.#o.providers.get(decl.provider);
    if (provider == null) {
      throw new OrkestraError(`${decl.katalogPath}: provider ${decl.provider} is not loaded`, {
        code: ConditionReason.ProviderFailed,
        katalogPath: decl.katalogPath,
      });
    }
    return provider;
  }

  /** #validate parses the rendered spec with the kind's schema; failures are terminal ProviderFailed naming the Katalog path and the schema path. */
  #validate(provider: Provider, decl: CompiledProviderDeclaration, rendered: JsonValue): unknown {
    const kind = provider.kinds[decl.declaration.kind];
    if (kind == null) {
      throw new TerminalError(
        `${decl.katalogPath}: provider ${decl.provider} has no kind ${decl.declaration.kind} (kinds: ${Object.keys(provider.kinds).join(', ')})`,
        { code: ConditionReason.ProviderFailed, katalogPath: decl.katalogPath },
      );
    }
    const parsed = kind.schema.safeParse(rendered);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((issue) => {
      const path = [decl.declaration.kind, ...issue.path.map(String)].join('.');
      return `${path}: ${issue.message}`;
    });
    throw new TerminalError(`${decl.katalogPath}: ${issues.join('; ')}`, {
      code: ConditionReason.ProviderFailed,
      katalogPath: decl.katalogPath,
    });
  }

  #request(
    input: HookInput,
    decl: CompiledProviderDeclaration,
    spec: unknown,
    previous: ProviderStatusRecord | undefined,
    signal: AbortSignal,
  ): ProviderRequest {
    const cr = input.cr;
    const namespace = nonEmpty(cr.metadata.namespace);
    const previousRecord: ProviderRecord | undefined =
      previous?.spec === undefined ? undefined : { spec: previous.spec, outputs: previous.outputs };
    const ownership: Ownership = {
      katalog: this.#o.katalogName,
      crd: input.crd.name,
      ownerUid: cr.metadata.uid ?? '',
      ownerName: cr.metadata.name ?? '',
      ...(namespace == null ? {} : { ownerNamespace: namespace }),
    };
    return {
      declaration: {
        name: decl.declaration.name,
        kind: decl.declaration.kind,
        spec,
        source: decl.katalogPath,
      },
      ...(previousRecord == null ? {} : { previous: previousRecord }),
      owner: ownerSnapshot(cr),
      ownership,
      kube: this.#o.kube.readerFor(input.crd.entry.namespaced ? (namespace ?? 'default') : undefined),
      logger: input.logger.child({ provider: decl.provider, declaration: decl.declaration.name }),
      signal,
    };
  }
}

/**
 * hashSpec is the `specHash` of a rendered spec: SHA-256 of its JSON with sorted keys (the
 * registry's canonicalJson, which the applied-hash annotation also uses). A stored record holds it:
 * its value for a given spec must not change.
 */
export function hashSpec(spec: JsonValue): string {
  return `sha256:${createHash('sha256').update(canonicalJson(spec)).digest('hex')}`;
}

/** outputsProblem says why outputs are not acceptable (docs/reference/katalog.md §14.3, docs/reference/runtime.md §14.6), or undefined. */
export function outputsProblem(outputs: unknown): string | undefined {
  if (outputs == null || typeof outputs !== 'object' || Array.isArray(outputs))
    return 'outputs must be a JSON object';
  if (!isJson(outputs))
    return 'outputs must be JSON (plain objects, arrays, strings, finite numbers, booleans, null)';
  for (const reserved of ['ready', 'message'])
    if (Object.hasOwn(outputs, reserved)) return `the output key "${reserved}" is reserved`;
  const size = Buffer.byteLength(JSON.stringify(outputs));
  if (size > MAX_PROVIDER_OUTPUT_BYTES) return `${size} bytes of JSON (at most ${MAX_PROVIDER_OUTPUT_BYTES})`;
  return undefined;
}

function isJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJson(v));
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value as Record<string, unknown>).every((v) => isJson(v));
  }
  return false;
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return {};
  return JSON.parse(JSON.stringify(value) ?? 'null') as JsonValue;
}

function emptyRecord(kind: string, previous: ProviderStatusRecord | undefined): ProviderStatusRecord {
  return previous ?? { kind, ready: false, message: '', outputs: {} };
}

function callFailure(
  decl: CompiledProviderDeclaration,
  error: unknown,
  signal: AbortSignal,
  code: ConditionReason,
): OrkestraError {
  const katalogPath = decl.katalogPath;
  const reason: unknown = signal.aborted && !(error instanceof ProviderError) ? signal.reason : error;
  if (reason instanceof ProviderError) {
    const message = `${katalogPath}: ${reason.code}: ${reason.message}`;
    return reason.retryable
      ? new OrkestraError(message, { code, katalogPath, cause: reason })
      : new TerminalError(message, { code, katalogPath, cause: reason });
  }
  if (reason instanceof TimeoutError)
    return new OrkestraError(reason.message, { code, katalogPath, cause: error });
  const detail = reason instanceof Error ? reason.message : String(reason);
  return new OrkestraError(`${katalogPath}: provider ${decl.provider}: ${detail}`, {
    code,
    katalogPath,
    cause: error,
  });
}

function recordedRecords(cr: KubeObject): Record<string, Record<string, ProviderStatusRecord>> {
  const recorded = (cr['status'] as { providers?: unknown } | undefined)?.providers;
  const out: Record<string, Record<string, ProviderStatusRecord>> = {};
  if (recorded == null || typeof recorded !== 'object') return out;
  for (const [provider, block] of Object.entries(structuredClone(recorded) as Record<string, unknown>)) {
    if (block == null || typeof block !== 'object') continue;
    const records: Record<string, ProviderStatusRecord> = {};
    for (const [name, raw] of Object.entries(block as Record<string, unknown>)) {
      if (raw == null || typeof raw !== 'object') continue;
      const r = raw as Record<string, unknown>;
      records[name] = {
        kind: typeof r['kind'] === 'string' ? r['kind'] : '',
        ready: r['ready'] === true,
        message: typeof r['message'] === 'string' ? r['message'] : '',
        outputs: r['outputs'] != null && typeof r['outputs'] === 'object' ? (r['outputs'] as JsonObject) : {},
        ...(r['spec'] === undefined ? {} : { spec: r['spec'] as JsonValue }),
        ...(typeof r['specHash'] === 'string' ? { specHash: r['specHash'] } : {}),
        ...(typeof r['lastSuccessTime'] === 'string' ? { lastSuccessTime: r['lastSuccessTime'] } : {}),
      };
    }
    out[provider] = records;
  }
  return out;
}

function ownerSnapshot(cr: KubeObject): OwnerSnapshot {
  const namespace = nonEmpty(cr.metadata.namespace);
  const generation = cr.metadata['generation'];
  const snapshot: OwnerSnapshot = {
    apiVersion: cr.apiVersion,
    kind: cr.kind,
    metadata: {
      name: cr.metadata.name ?? '',
      ...(namespace == null ? {} : { namespace }),
      uid: cr.metadata.uid ?? '',
      generation: typeof generation === 'number' ? generation : 0,
      labels: { ...cr.metadata.labels },
      annotations: { ...cr.metadata.annotations },
    },
    spec: structuredClone((cr['spec'] ?? {}) as JsonObject),
    status: structuredClone((cr['status'] ?? {}) as JsonObject),
  };
  return deepFreeze(snapshot);
}

function deepFreeze<T>(value: T): T {
  if (value != null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value == null || value === '' ? undefined : value;
}
