/**
 * The offline driver of the one engine: the real `CrdPipeline`, the real hook slots
 * (`KatalogHooks`) and the real provider dispatch (`ProviderDispatch`), run against a
 * `MemoryCluster` instead of the API server and the informer caches. What cannot be computed
 * offline — cross reads, git checkouts, external calls, docker builds, provider calls — is
 * answered from `OfflineResults` (a render context or a scenario step). `ork render` and
 * `ork simulate` drive it; so does the parity test, which replays the same steps on a real
 * control plane.
 */
import { refOf } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import type { TemplateEngine } from '@orkestra/template';
import { OrkestraError, toOrkestraError } from '@orkestra/types';
import type {
  EvaluateConditionsOptions,
  JsonObject,
  Katalog,
  Logger,
  Provider,
  ProviderKind,
} from '@orkestra/types';
import type { Clock } from '../clock.js';
import { EventRecorder } from '../events/event-recorder.js';
import type { CoreEvent } from '../events/event-recorder.js';
import { notCalledExternalResult } from '../hooks/external.js';
import type { ExternalCallResult } from '../hooks/external.js';
import { notFoundCrossResult } from '../hooks/cross.js';
import type { CrossTarget } from '../hooks/cross.js';
import type { GitResult } from '../hooks/git.js';
import type { DockerResult } from '../hooks/docker.js';
import { createNamespaceGuard } from '../namespace-guard.js';
import { compileKatalog } from '../runtime/compile-katalog.js';
import type { CompiledCrd } from '../runtime/compile-katalog.js';
import { KatalogHooks } from '../runtime/katalog-hooks.js';
import { KubeReadCache } from '../runtime/kube-reader.js';
import { ProviderDispatch } from '../runtime/provider-dispatch.js';
import { CrdPipeline } from '../runtime/reconcile-pipeline.js';
import type { HookInput, PipelineHooks, RunResult } from '../runtime/reconcile-pipeline.js';
import { MemoryCluster } from './memory-cluster.js';
import type { ClusterWrite } from './memory-cluster.js';

/** ProviderResultInput is one provider declaration's result as a render context or scenario gives it. */
export interface ProviderResultInput {
  /** Default true when the result is given. */
  readonly ready?: boolean;
  readonly message?: string;
  readonly outputs?: Readonly<Record<string, unknown>>;
}

/**
 * OfflineResults are the answers of everything the engine does not compute offline, by the name
 * the Katalog gives them: `cross.<as>`, `git`, `external.<name>`, `docker`,
 * `providers.<provider>.<declaration>`. A missing answer reads as: cross not found, git and
 * external not called, docker still building (DockerBuildPending), provider pending.
 */
export interface OfflineResults {
  readonly cross?: Readonly<Record<string, unknown>>;
  readonly git?: Readonly<Record<string, unknown>>;
  readonly external?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly docker?: Readonly<Record<string, unknown>>;
  readonly providers?: Readonly<Record<string, Readonly<Record<string, ProviderResultInput>>>>;
}

/** OfflineEngineOptions configures an OfflineEngine. */
export interface OfflineEngineOptions {
  readonly katalog: Katalog;
  /** Time of the run: conditions, `now`, timestamps, rotation. */
  readonly clock: Clock;
  /** Engine for template helpers (seeded random source for reproducible output). Default: one over `clock`. */
  readonly engine?: TemplateEngine;
  /** Random bytes for generated Secrets (TLS keys). Default: the runtime's default. */
  readonly random?: (size: number) => Uint8Array;
  /** The cluster to run against. Default: a new, empty MemoryCluster. */
  readonly cluster?: MemoryCluster;
  /**
   * Where in-process cross reads (`cross` without `endpoint`) are answered: `results` (default,
   * `results.cross.<as>`) or `cluster`, from the CRs of this Katalog's entries the cluster holds,
   * as the runtime answers them from its caches (`ork diff`). HTTP cross reads read as not found.
   */
  readonly crossReads?: 'results' | 'cluster';
  /** The Katalog revision the runs record as `status.katalogRevision` (docs/reference/runtime.md §24.2). Default: not recorded. */
  readonly revision?: string;
}

/** OfflineRun is what one reconcile did. */
export interface OfflineRun {
  /** The CRD entry that served the CR. */
  readonly entry: string;
  /** Set when the run ended without throwing. */
  readonly result: RunResult | undefined;
  /** Set when the run failed (the status already says why). */
  readonly error: OrkestraError | undefined;
  /** The cluster writes of this run, in order. */
  readonly writes: readonly ClusterWrite[];
  /** Events recorded during this run. */
  readonly events: readonly CoreEvent[];
  /** Provider calls of this run, in order (the deletion path's retained declarations too). */
  readonly providerCalls: readonly ProviderCall[];
  /** Results the run needed and the context did not give (each once per engine). */
  readonly notes: readonly string[];
  /** The CR after the run; undefined once it is gone. */
  readonly cr: KubeObject | undefined;
}

/** ProviderCall is one provider call of an offline run; `retain` is a declaration the deletion path kept. */
export interface ProviderCall {
  readonly verb: 'reconcile' | 'delete' | 'retain';
  readonly provider: string;
  readonly declaration: string;
  /** How many of the run's cluster writes came before this call (to merge calls and writes in order). */
  readonly afterWrites: number;
}

/** OfflineEngineError is a CR the engine cannot run (no enabled CRD entry serves its kind). */
export class OfflineEngineError extends OrkestraError {
  override readonly name = 'OfflineEngineError';
}

const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

/**
 * OfflineEngine runs CRs of one Katalog through the real pipeline against an in-memory cluster.
 * One engine keeps its cluster and pipeline state (drift limiter, reported notes) across runs, so
 * a scenario is a sequence of `cluster` changes and `reconcile` calls.
 *
 * @example
 * const engine = new OfflineEngine({ katalog, clock });
 * const cr = engine.cluster.put(website);
 * const run = await engine.reconcile(refOf(cr));
 * run.writes.filter((w) => w.verb === 'apply');
 */
export class OfflineEngine {
  /** cluster is the in-memory cluster the engine reads and writes. */
  readonly cluster: MemoryCluster;
  readonly #clock: Clock;
  readonly #crds: ReadonlyMap<string, CompiledCrd>;
  readonly #pipelines = new Map<string, CrdPipeline>();
  readonly #events: CoreEvent[] = [];
  readonly #recorder: EventRecorder;
  readonly #engine: TemplateEngine;
  readonly #random: ((size: number) => Uint8Array) | undefined;
  readonly #katalogName: string;
  readonly #crossReads: 'results' | 'cluster';
  readonly #revision: string | undefined;
  readonly #seenNotes = new Set<string>();
  #notes: string[] = [];
  #providerCalls: ProviderCall[] = [];
  #writesBefore = 0;
  #results: OfflineResults = {};

  constructor(options: OfflineEngineOptions) {
    this.#clock = options.clock;
    this.cluster = options.cluster ?? new MemoryCluster({ clock: options.clock });
    this.#engine = options.engine ?? createTemplateEngine({ clock: options.clock });
    this.#random = options.random;
    this.#katalogName = options.katalog.metadata.name;
    this.#crossReads = options.crossReads ?? 'results';
    this.#revision = options.revision;
    this.#crds = compileKatalog(options.katalog, { engine: this.#engine }).crds;
    this.#recorder = new EventRecorder({
      clock: options.clock,
      writer: {
        create: async (_namespace, event) => {
          this.#events.push(event);
        },
      },
    });
  }

  /** results are the answers the next runs use; set them before a run (a scenario step's `context`). */
  get results(): OfflineResults {
    return this.#results;
  }

  set results(value: OfflineResults) {
    this.#results = value;
  }

  /** entryFor returns the name of the enabled CRD entry serving an apiVersion and kind. */
  entryFor(apiVersion: string, kind: string): string | undefined {
    for (const [name, crd] of this.#crds) {
      if (crd.apiVersion === apiVersion && crd.apiTypes.kind === kind) return name;
    }
    return undefined;
  }

  /** reconcile runs the pipeline once for the stored CR `ref` (the deletion path when it is being deleted). */
  async reconcile(ref: ObjectRef): Promise<OfflineRun> {
    const entry = this.entryFor(ref.apiVersion, ref.kind);
    if (entry == null) {
      throw new OfflineEngineError(`no enabled CRD entry serves ${ref.apiVersion} ${ref.kind}`, {
        code: 'InternalError',
      });
    }
    const cached = this.cluster.get(ref);
    if (cached == null)
      throw new OfflineEngineError(`${ref.kind} ${ref.name} is not in the cluster`, {
        code: 'InternalError',
      });
    const pipeline = this.#pipeline(entry);
    const writesBefore = this.cluster.writes.length;
    this.#writesBefore = writesBefore;
    const eventsBefore = this.#events.length;
    this.#notes = [];
    this.#providerCalls = [];
    let result: RunResult | undefined;
    let error: OrkestraError | undefined;
    try {
      result = await pipeline.run(cached, {
        reconcileId: 'offline',
        logger: silentLogger,
        signal: new AbortController().signal,
      });
    } catch (thrown) {
      error = toOrkestraError(thrown);
    }
    await this.#recorder.flush(1000);
    return {
      entry,
      result,
      error,
      writes: this.cluster.writes.slice(writesBefore),
      events: this.#events.slice(eventsBefore),
      notes: this.#notes,
      providerCalls: this.#providerCalls,
      cr: this.cluster.get(ref),
    };
  }

  #call(verb: ProviderCall['verb'], provider: string, declaration: string): void {
    this.#providerCalls.push({
      verb,
      provider,
      declaration,
      afterWrites: this.cluster.writes.length - this.#writesBefore,
    });
  }

  #note(text: string): void {
    if (this.#seenNotes.has(text)) return;
    this.#seenNotes.add(text);
    this.#notes.push(text);
  }

  #pipeline(entry: string): CrdPipeline {
    const existing = this.#pipelines.get(entry);
    if (existing != null) return existing;
    const crd = this.#crds.get(entry);
    if (crd == null)
      throw new OfflineEngineError(`CRD entry ${entry} is not enabled`, { code: 'InternalError' });
    const conditions: EvaluateConditionsOptions = {
      renderTemplate: (source, context) => this.#engine.renderTemplate(source, context),
      now: () => new Date(this.#clock.now()),
    };
    const pipeline = new CrdPipeline({
      katalogName: this.#katalogName,
      crd,
      primary: this.cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind),
      children: this.cluster.childStore,
      client: this.cluster.client,
      engine: this.#engine,
      clock: this.#clock,
      ...(this.#random == null ? {} : { random: this.#random }),
      events: this.#recorder,
      guard: createNamespaceGuard({
        restricted: crd.entry.restrictedNamespaces,
        allowed: crd.entry.allowedNamespaces,
      }),
      hooks: this.#hooks(crd, conditions),
      customScope: () => undefined,
      ...(this.#revision == null ? {} : { revision: this.#revision }),
    });
    this.#pipelines.set(entry, pipeline);
    return pipeline;
  }

  /** #hooks builds the entry's slots exactly as the runtime does, over scripted services. */
  #hooks(crd: CompiledCrd, conditions: EvaluateConditionsOptions): PipelineHooks {
    const katalogHooks = new KatalogHooks({
      conditions,
      external: { runAll: async (declarations, prepare) => this.#external(declarations, prepare) },
      crossHttp: { read: async () => ({ result: notFoundCrossResult(), url: '' }) },
      crossReaders: { record: () => undefined, forget: () => undefined },
      lookup: (name) => (this.#crossReads === 'cluster' ? this.#crossTarget(name) : undefined),
      git: () => ({ sync: async () => this.#git() }),
      docker: () => ({
        request: (declaration) => {
          const given = this.#results.docker;
          if (given == null) {
            this.#note('docker: no result in the context; the build is pending (DockerBuildPending)');
            return { pending: true, image: declaration.image };
          }
          const result: DockerResult = {
            called: true,
            image: declaration.image,
            digest: '',
            buildSucceeded: true,
            error: '',
            ...(given as Partial<DockerResult>),
          };
          return { pending: false, result };
        },
      }),
    });
    const dispatch = new ProviderDispatch({
      katalogName: this.#katalogName,
      providers: this.#providers(crd),
      kube: new KubeReadCache({ client: this.cluster.client, clock: this.#clock }),
      clock: this.#clock,
      conditions,
      onRetained: (provider, declaration) => this.#call('retain', provider, declaration),
    });
    const slots = katalogHooks.hooksFor(crd);
    return {
      ...slots,
      ...(slots.cross == null || this.#crossReads === 'cluster'
        ? {}
        : { cross: (input: HookInput) => this.#cross(input) }),
      ...(crd.hooks.providers.length === 0 ? {} : { providers: (input) => dispatch.reconcile(input) }),
      deleteProviders: (input) => dispatch.delete(input),
    };
  }

  /** #crossTarget is an entry of this Katalog as a cross-read target over the memory cluster's CRs. */
  #crossTarget(name: string): CrossTarget | undefined {
    const crd = this.#crds.get(name);
    if (crd == null) return undefined;
    const store = this.cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind);
    return {
      namespaced: crd.entry.namespaced,
      cache: {
        getByName: (namespace, objectName) => store.getByName(namespace, objectName),
        listByNamespace: (namespace) => store.list().filter((o) => o.metadata.namespace === namespace),
        list: () => store.list(),
      },
    };
  }

  /** #cross answers every cross read of the entry from `results.cross` by its `as` name. */
  #cross(input: HookInput): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const item of input.crd.hooks.cross) {
      const as = item.declaration.as ?? item.declaration.crd;
      const given = ownValue(this.#results.cross, as);
      if (given == null) this.#note(`cross.${as}: no result in the context; read as not found`);
      out[as] = { ...notFoundCrossResult(), ...(isMap(given) ? given : {}) };
    }
    return out;
  }

  #git(): GitResult {
    const given = this.#results.git;
    if (given == null) this.#note('git: no result in the context; read as not called');
    return {
      called: given != null,
      commit: '',
      shortCommit: '',
      branch: '',
      dir: '',
      changed: false,
      error: '',
      ...(given as Partial<GitResult> | undefined),
    };
  }

  #external<D extends { readonly name: string; readonly continueOnError?: boolean }>(
    declarations: readonly D[],
    prepare: (declaration: D, results: Readonly<Record<string, ExternalCallResult>>) => unknown,
  ): { results: Record<string, ExternalCallResult>; failed?: { name: string; error: string } } {
    const results: Record<string, ExternalCallResult> = {};
    for (const declaration of declarations) {
      const rendered = prepare(declaration, results);
      const given = ownValue(this.#results.external, declaration.name);
      if (rendered != null && given == null)
        this.#note(`external.${declaration.name}: no result in the context; read as not called`);
      const result: ExternalCallResult =
        rendered == null || given == null
          ? notCalledExternalResult()
          : {
              ...notCalledExternalResult(),
              called: true,
              ok: true,
              status: 200,
              ...(given as Partial<ExternalCallResult>),
            };
      results[declaration.name] = result;
      if (result.called && !result.ok && declaration.continueOnError !== true) {
        return {
          results,
          failed: { name: declaration.name, error: result.error || `status ${result.status}` },
        };
      }
    }
    return { results };
  }

  /** #providers are scripted providers: each declaration's result comes from `results.providers`. */
  #providers(crd: CompiledCrd): ReadonlyMap<string, Provider> {
    return createScriptedProviders({
      names: crd.hooks.providers.map((d) => d.provider),
      results: () => this.#results,
      onCall: (verb, provider, declaration) => this.#call(verb, provider, declaration),
      onMissing: (provider, declaration) =>
        this.#note(`providers.${provider}.${declaration}: no result in the context; the provider is pending`),
    });
  }
}

/** ScriptedProvidersOptions configures createScriptedProviders. */
export interface ScriptedProvidersOptions {
  /** Provider names to answer (any other name is answered too, as always ready and deleted). */
  readonly names: Iterable<string>;
  /** The current results; read at every call. */
  readonly results: () => OfflineResults;
  /** Called for every reconcile and delete call. Default: none. */
  readonly onCall?: (verb: 'reconcile' | 'delete', provider: string, declaration: string) => void;
  /** Called when a reconcile finds no result (the provider answers pending). Default: none. */
  readonly onMissing?: (provider: string, declaration: string) => void;
}

/**
 * createScriptedProviders returns providers whose answers come from `results().providers`: a given
 * result is `ready` (or `pending` with `ready: false`), a missing one is pending, every delete is
 * done at once. Every kind accepts any spec (the provider packages are not loaded). The offline
 * engine uses them; the parity test hands the same ones to the real runtime.
 */
export function createScriptedProviders(options: ScriptedProvidersOptions): ReadonlyMap<string, Provider> {
  const passThrough = {
    schema: { safeParse: (value: unknown) => ({ success: true, data: value }) },
  } as unknown as ProviderKind;
  const kinds = new Proxy({} as Record<string, ProviderKind>, { get: () => passThrough });
  const providers = new ScriptedProviders([], kinds, (provider, declaration) =>
    options.onCall?.('delete', provider, declaration),
  );
  for (const name of new Set(options.names)) {
    providers.set(name, {
      name,
      kinds,
      reconcile: async (request) => {
        const declaration = request.declaration.name;
        options.onCall?.('reconcile', name, declaration);
        const given = ownValue(ownValue(options.results().providers, name), declaration) as
          ProviderResultInput | undefined;
        if (given == null) {
          options.onMissing?.(name, declaration);
          return { state: 'pending', message: 'no result in the context (providers are not called offline)' };
        }
        const outputs = (given.outputs ?? {}) as JsonObject;
        return given.ready === false
          ? { state: 'pending', outputs, message: given.message ?? 'pending' }
          : { state: 'ready', outputs, ...(given.message == null ? {} : { message: given.message }) };
      },
      delete: async (request) => {
        options.onCall?.('delete', name, request.declaration.name);
        return { state: 'deleted' };
      },
    });
  }
  return providers;
}

/**
 * reconcileOnce runs one reconcile of `cr` offline: the CR and the `observed` objects (children
 * as a controller left them, other CRs) are put into a new MemoryCluster, the pipeline runs once
 * with `results` answering hooks and providers, and the run is returned with the cluster.
 *
 * @example
 * const { run, cluster } = await reconcileOnce(katalog, cr, [], { providers: { aws: { assets: { outputs: { arn } } } } }, { clock });
 */
export async function reconcileOnce(
  katalog: Katalog,
  cr: KubeObject,
  observed: readonly KubeObject[],
  results: OfflineResults,
  options: Omit<OfflineEngineOptions, 'katalog'>,
): Promise<{ readonly run: OfflineRun; readonly cluster: MemoryCluster; readonly engine: OfflineEngine }> {
  const engine = new OfflineEngine({ ...options, katalog });
  const stored = engine.cluster.put(cr);
  for (const object of observed) engine.cluster.put(object);
  engine.results = results;
  const run = await engine.reconcile(refOf(stored));
  return { run, cluster: engine.cluster, engine };
}

/**
 * ScriptedProviders answers every provider name: one recorded in `status.providers` but no longer
 * declared is still deleted on the deletion path, as a loaded provider would be.
 */
class ScriptedProviders extends Map<string, Provider> {
  readonly #kinds: Readonly<Record<string, ProviderKind>>;
  readonly #onDelete: (provider: string, declaration: string) => void;

  constructor(
    entries: readonly (readonly [string, Provider])[],
    kinds: Readonly<Record<string, ProviderKind>>,
    onDelete: (provider: string, declaration: string) => void,
  ) {
    super(entries);
    this.#kinds = kinds;
    this.#onDelete = onDelete;
  }

  override get(name: string): Provider {
    return (
      super.get(name) ?? {
        name,
        kinds: this.#kinds,
        reconcile: async () => ({ state: 'ready' }),
        delete: async (request) => {
          this.#onDelete(name, request.declaration.name);
          return { state: 'deleted' };
        },
      }
    );
  }
}

type Json = Record<string, unknown>;

function isMap(value: unknown): value is Json {
  return value != null && typeof value === 'object' && !Array.isArray(value);
}

/** ownValue reads a user-named key (context files, scenarios): own properties only. */
function ownValue(map: unknown, key: string): unknown {
  return isMap(map) && Object.hasOwn(map, key) ? map[key] : undefined;
}
