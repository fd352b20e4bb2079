/**
 * What a hook is (docs/adr/0012-stages-and-hook-units.md, docs/reference/runtime.md §7.1): one
 * folder `hooks/<key>/` holding a `HookUnit` — where its declaration's schema lives, its compile
 * step, its run step, the value it adds to the template context and what re-queues a CR that uses
 * it — plus one line in the hook table (`hooks/table.ts`). A run step returns its context value
 * or `pending(...)`; a wait is never thrown.
 */
import type { KubeObject } from '@orkestra/registry';
import type { TemplateContext, TemplateEngine } from '@orkestra/template';
import type {
  ConditionReason,
  CrdEntry,
  CrossRead,
  LoadedModuleExport,
  EvaluateConditionsOptions,
  KubeReader,
  Logger,
  Provider,
} from '@orkestra/types';
import type { CompiledCrd } from '../runtime/compile-katalog.js';
import type { CrossHttpClient } from './cross-http.js';
import type { CrossReaders, CrossResult, CrossTarget } from './cross.js';
import type { DockerBuildManager } from './docker.js';
import type { ExternalCaller } from './external.js';
import type { GitCheckouts } from './git.js';
import type { RemoteReconcilerClient } from './remote.js';
import { isMap } from '../is-map.js';

/** HookEffects is what a hook slot may ask of the run besides its context value. */
export interface HookEffects {
  /** Schedules a timed re-queue of this CR at a clock time (epoch ms); the earliest one wins. */
  requeueAt(atMs: number): void;
  /** Records a CR annotation that step 18 writes after a successful reconcile (only when it changed). */
  annotate(key: string, value: string): void;
  /** Sets `status.providers` for this run's status write (step 17), also after a failure or pending result. */
  recordProviders(records: Readonly<Record<string, unknown>>): void;
  /**
   * Reports the HTTP cross reads whose peer did not answer in this run (one message each, naming the
   * address; empty when all answered), for the `CrossSourceUnavailable` condition (ADR 0043).
   */
  crossUnavailable(messages: readonly string[]): void;
  /**
   * Sets the fields a service decided for `status` (a remote reconciler, docs/reference/katalog.md
   * §15.3), written with this run's status after the declared fields; the runtime's own keys stay.
   */
  writeStatus(fields: Readonly<Record<string, unknown>>): void;
}

/** HookInput is what a hook slot receives: the CR (normalized, mutated), the context so far and the reconcile's signal. */
export interface HookInput {
  readonly crd: CompiledCrd;
  readonly cr: KubeObject;
  readonly context: TemplateContext;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly effects: HookEffects;
}

/** ProviderDeletion is how the providers step of the deletion path ended: undefined when every delete is done. */
export type ProviderDeletion = { readonly waiting: string; readonly requeueAfterMs: number } | undefined;

const PENDING: unique symbol = Symbol('orkestra.hook.pending');

/**
 * HookPending is the outcome of a hook that must wait (a docker build running, a provider not
 * ready): the run writes Ready=False with `reason` and re-queues after `requeueAfterMs`
 * (docs/reference/runtime.md §8 "pending").
 */
export interface HookPending {
  readonly [PENDING]: true;
  readonly reason: ConditionReason;
  readonly message: string;
  readonly requeueAfterMs: number;
  /** The slot result to show while waiting (settled into the context like a returned one); none keeps the key as it was. */
  readonly shown?: { readonly result: unknown };
}

/** pending is the outcome of a hook that must wait; `shown` is the result the status of the wait may show. */
export function pending(
  reason: ConditionReason,
  message: string,
  requeueAfterMs: number,
  ...shown: [result?: unknown]
): HookPending {
  return {
    [PENDING]: true,
    reason,
    message,
    requeueAfterMs,
    ...(shown.length === 0 ? {} : { shown: { result: shown[0] } }),
  };
}

const SHOWN: unique symbol = Symbol('orkestra.hook.shown');

/**
 * failing marks the error a slot throws with the result the failure status may show (a git
 * checkout that failed, a build that failed); the hook loop settles it into the context before
 * passing the error on, so a slot never writes the context itself.
 */
export function failing<E extends Error>(error: E, result: unknown): E {
  Object.defineProperty(error, SHOWN, { value: { result }, enumerable: false });
  return error;
}

/** shownBy is the result a thrown error was marked with (`failing`), if any. */
export function shownBy(error: unknown): { readonly result: unknown } | undefined {
  return error instanceof Error ? (error as Error & { [SHOWN]?: { result: unknown } })[SHOWN] : undefined;
}

/** isPending tells a pending outcome from a context value. */
export function isPending(value: unknown): value is HookPending {
  return typeof value === 'object' && value != null && PENDING in value;
}

/**
 * HookSlot fills one hook's context key for one run: its result (`R`, turned into the context value
 * by the unit's `settle`) or `pending(...)`. Throwing an OrkestraError fails the reconcile with its code.
 */
export type HookSlot<R = unknown> = (input: HookInput) => Promise<R | HookPending> | R | HookPending;

/**
 * HookPhase is where a hook runs: `mutation` hooks (`mutation.external`, ADR 0114) before step 7,
 * so the mutation rules see their values; `validation` hooks (step 8, `validation.external`) before the
 * validation rules, so the rules see their values; `context` hooks (steps 9–12) before the desired
 * set, so the resource templates see their values; `after-writes` hooks (step 16, providers) after
 * the child writes and pruning, so a provider sees the children it may depend on.
 */
export type HookPhase = 'mutation' | 'validation' | 'context' | 'after-writes';

/**
 * EnqueueSource is an event that re-queues a CR: its own changes (`primary`), its children's
 * (`children`), a change of a CR it reads (`cross-readers`), a new commit on the branch it checked
 * out (`git`) or the end of the image build it waits for (`docker`).
 */
export type EnqueueSource = 'primary' | 'children' | 'cross-readers' | 'git' | 'docker';

/** HookServices are the process-wide services the built-in run steps use (narrowed, so the offline engine can script them). */
export interface HookServices {
  readonly conditions: EvaluateConditionsOptions;
  readonly external: Pick<ExternalCaller, 'runAll'>;
  readonly crossHttp: Pick<CrossHttpClient, 'read'>;
  readonly crossReaders: Pick<CrossReaders, 'record' | 'forget'>;
  /** The primary cache of an entry of this Katalog, for in-process cross reads. */
  readonly lookup: (crd: string) => CrossTarget | undefined;
  /**
   * The Live API answer of an entry of this Katalog for a cross read's `protocol` (health, metrics,
   * info, events; `cr` reads the cache through `lookup`), built in process. Undefined: such reads
   * of local kinds go over HTTP when they have an `endpoint` or `url`, else read as not found.
   */
  readonly liveAnswer?:
    | ((
        crd: string,
        protocol: 'cr' | 'health' | 'metrics' | 'info' | 'events',
        namespace: string | undefined,
        name: string,
      ) => Record<string, unknown> | undefined)
    | undefined;
  /** Resolves a cross read's `auth` (the environment or a Secret, in the CR's namespace by default) to a bearer credential or an error. */
  readonly crossCredential?:
    | ((
        auth: NonNullable<CrossRead['auth']>,
        namespace: string | undefined,
      ) => Promise<{ readonly id: string; readonly value: string } | { readonly error: string }>)
    | undefined;
  /** The operator's environment, for `$NAME` in the address of a cross read's `endpoint` or `url` (ADR 0098). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** A scripted answer to the cross read named `as` (the offline engine's results); when set, no read is made. */
  readonly crossResult?: ((as: string) => CrossResult | readonly CrossResult[]) | undefined;
  /** Remote reconciler calls (docs/reference/katalog.md §15.3). */
  readonly remote?: Pick<RemoteReconcilerClient, 'call'> | undefined;
  /** The children the caches hold for an owner UID (a remote reconciler's `prepared.children`). */
  readonly ownedChildren?: ((ownerUid: string) => readonly KubeObject[]) | undefined;
  /** Created on first use (only entries with `git` need it). */
  readonly git: () => Pick<GitCheckouts, 'sync'>;
  /** Created on first use (only entries with `docker` need it). */
  readonly docker: () => Pick<DockerBuildManager, 'request'>;
  /** The module hook `<export>` of package `module`, loaded at start (`operatorBox.hooks`, ADR 0052); undefined when not loaded. */
  readonly moduleHook?: ((module: string, exportName: string) => LoadedModuleExport | undefined) | undefined;
  /** The read-only Secret/ConfigMap reader a module hook gets for a CR in `namespace`. */
  readonly hookKube?: ((namespace: string | undefined) => KubeReader) | undefined;
  /** The offline engine's given outputs of the module hook `name`; when set, no hook runs. */
  readonly scriptedHookOutputs?: ((name: string) => Record<string, unknown>) | undefined;
  /**
   * The offline engine's module hook `onDelete` step on the deletion path (ADR 0109): the `hooks`
   * declaration `name` is recorded in its place and done at once, or throws the scripted failure of
   * that step (ADR 0116), which the deletion path reports as a module's own throw. When set, no module is called.
   */
  readonly scriptedHookOnDelete?: ((name: string) => void) | undefined;
  /** The same for a module reconciler's `onDelete` (`remote`, named `<module>#<export>`). */
  readonly scriptedReconcilerOnDelete?: ((name: string) => void) | undefined;
  /** The provider calls of step 16 and of the deletion path (runtime/provider-dispatch.ts); without it an entry's providers keep their recorded outputs. */
  readonly providers?: ProviderService | undefined;
}

/** ProviderService is what the providers unit asks of the loaded providers (ProviderDispatch fits). */
export interface ProviderService {
  reconcile(input: HookInput): Promise<{ readonly outputs: unknown } | HookPending>;
  delete(input: HookInput): Promise<ProviderDeletion>;
}

/**
 * HookResults is how a hook's results are named, in the template context and in the offline
 * results (a render context, a scenario step): `one` result (`git.commit`), one `by-name`
 * (`cross.<as>.found`, `external.<name>.ok`), one per declaration `by-provider`
 * (`providers.<provider>.<name>`), or `none` of its own (`validation.external` fills `external`).
 */
export type HookResults = 'one' | 'by-name' | 'by-provider' | 'none';

/** OfflineScript is what a unit's offline services answer from: its part of the offline results, and where a missing answer is noted. */
export interface OfflineScript {
  /** The unit's key (its context key). */
  readonly key: string;
  /** The results under the unit's key (read at every call; undefined when none were given). */
  given(): unknown;
  /**
   * The message a scripted failure of the unit's deletion step gives (ADR 0116): for `name` (a
   * `by-name` unit's declaration, a `by-provider` unit's provider, with its `declaration`), read
   * under the unit's key as its results are named; undefined when the step succeeds.
   */
  deletionFailure(name: string, declaration?: string): string | undefined;
  /** Notes a result the run needed and was not given (each text once per engine). */
  note(text: string): void;
  /**
   * Records a call of the run: a provider's (`retain` is a declaration the deletion path kept), or
   * a module's `onDelete` step (`provider` is the unit, `hooks` or `remote`; ADR 0109).
   */
  call(verb: 'reconcile' | 'delete' | 'retain' | 'onDelete', provider: string, declaration: string): void;
}

/**
 * HookUnit is one hook kind. `Key` is both its `operatorBox` field and its template context key;
 * `Compiled` what its compile step makes of the declaration; `Memory` what its run step keeps
 * across reconciles of one runtime (created once); `Result` what its slot returns.
 */
export interface HookUnit<Key extends string, Compiled, Memory = undefined, Result = unknown> {
  readonly key: Key;
  /** Where the declaration's schema lives (the Katalog schema is in @orkestra/types). */
  readonly schema: string;
  /** The reference section that documents it. */
  readonly reference: string;
  readonly phase: HookPhase;
  /** The events that re-queue a CR of an entry that declares this hook (besides `primary` and `children`). */
  readonly enqueuedBy: readonly EnqueueSource[];
  /** compile is the load-time step: the declaration's templated fields compiled once (`base` is the entry's Katalog path). */
  compile(entry: CrdEntry, base: string, engine: TemplateEngine): Compiled;
  /** declared: the entry declares this hook (otherwise no slot is made for it). */
  declared(compiled: Compiled): boolean;
  /** initial is the context value before the hook runs, and when no slot fills it. */
  initial(cr: KubeObject): unknown;
  /** settle turns a slot result into the context value, and a timed re-queue after `requeueAfterMs`. */
  settle(result: Result): { readonly value: unknown; readonly requeueAfterMs?: number | undefined };
  /** memory creates what `run` keeps across reconciles of one runtime. */
  memory(): Memory;
  /** forget drops what `memory` (or a service) holds for a CR that is gone (`reader` is its readerId). */
  forget?(services: HookServices, memory: Memory, reader: string): void;
  /** run is the run step of the built-in slot. */
  run(
    services: HookServices,
    memory: Memory,
    compiled: Compiled,
    input: HookInput,
  ): Promise<Result | HookPending>;
  /** The context key its `settle` fills; default `key`. */
  readonly fills?: string;
  /** How its results are named (the template context, the offline results, `ork render --context`). */
  readonly results: HookResults;
  /** Its declarations run in order, each seeing the results of the ones before it (external calls, provider declarations). */
  readonly ordered?: boolean;
  /**
   * How `--strict` names it (docs/reference/katalog.md §17.2): `place` is its declarations as a
   * place templates sit in ('the git hook'), `reader` the same in a list of who sees a root ('git').
   */
  readonly label: { readonly place: string; readonly reader: string };
  /**
   * names are its declarations as the Control Center lists a CR's hooks (`cross <as>`, `git`,
   * `provider <name>`); a unit without `names` is not listed.
   */
  names?(compiled: Compiled): readonly string[];
  /**
   * summary is how the Control Center's Katalog view lists an entry's declarations of this hook
   * under `hooks.<key>` (docs/reference/runtime.md §23.2): the names of its declarations, or
   * whether the entry declares it; a unit without `summary` is not listed there.
   */
  summary?(entry: CrdEntry): readonly string[] | boolean;
  /** The fields of one result, for `--strict` (`git.<field>`, `cross.<as>.<field>`); undefined when free-form. */
  readonly resultKeys?: readonly string[];
  /**
   * Its step on the deletion path, as the Katalog reference names it (`onDelete`, `delete`), when it
   * has one: offline, that step's failure may be scripted under the unit's key (ADR 0116).
   */
  readonly deletionStep?: string;
  /**
   * offline is the services its run step uses in the offline engine, answering from the given
   * results instead of the network, git or a builder; `crds` are the entries of the Katalog.
   */
  offline?(script: OfflineScript, services: OfflineServiceInputs): Partial<HookServices>;
}

/** OfflineServiceInputs is what the offline engine lends a unit's scripted services. */
export interface OfflineServiceInputs {
  /** The provider names the entries declare (the providers unit answers them from the results). */
  readonly providerNames: readonly string[];
  /** The runtime's provider dispatch over the given providers (the providers unit passes scripted ones). */
  readonly dispatch: (providers: ReadonlyMap<string, Provider>) => ProviderService;
}

/** AnyHookUnit is a unit of any kind, as the table's loops see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the table holds units of different shapes
export type AnyHookUnit = HookUnit<string, any, any, any>;

/** defineHook declares a hook unit (an identity function that keeps its literal types). */
export function defineHook<Key extends string, Compiled, Memory = undefined, Result = unknown>(
  unit: HookUnit<Key, Compiled, Memory, Result>,
): HookUnit<Key, Compiled, Memory, Result> {
  return unit;
}

/** contextValue is the `settle` of a hook whose slot returns its context value (`{}` for none). */
export function contextValue(result: unknown): { readonly value: unknown } {
  return { value: result ?? {} };
}

/** noMemory is the `memory` of a hook that keeps nothing across reconciles. */
export function noMemory(): undefined {
  return undefined;
}

/** keyOf is a CR's queue key (the cache's own key function). */
export { keyOf } from '../kube-object.js';

/** readerId names a CR across entries: `<entry>:<namespace>/<name>` (the cross reverse index and docker waiters). */
export function readerId(crd: string, key: string): string {
  return `${crd}:${key}`;
}

/** recorded is `{ [key]: value }` for a non-empty recorded annotation, else `{}`. */
export function recorded<K extends string>(value: string | undefined, key: K): { [P in K]?: string } {
  return (value == null || value === '' ? {} : { [key]: value }) as { [P in K]?: string };
}

/** errorMessage is an error's message, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** ownValue reads a user-named key (context files, scenarios): own properties only. */
export function ownValue(map: unknown, key: string): unknown {
  return isMap(map) && Object.hasOwn(map, key) ? map[key] : undefined;
}
