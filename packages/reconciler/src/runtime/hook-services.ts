/**
 * The runtime's hook services (docs/reference/runtime.md §14): created once per runtime and
 * handed to every entry's hook slots (KatalogHooks). The offline engine runs the same units over
 * scripted services instead (each unit's `offline`, katalog-hooks.ts `scriptedServices`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient } from '@orkestra/registry';
import type { LoadedModuleExport, EvaluateConditionsOptions, Provider } from '@orkestra/types';
import type { Clock } from '../clock.js';
import { CrossReaders } from '../hooks/cross.js';
import type { CrossTarget } from '../hooks/cross.js';
import { CrossHttpClient } from '../hooks/cross-http.js';
import { DockerBuildManager } from '../hooks/docker.js';
import { ExternalCaller } from '../hooks/external.js';
import { GitCheckouts } from '../hooks/git.js';
import { RemoteReconcilerClient } from '../hooks/remote.js';
import { moduleHookKey } from '../hooks/modules/index.js';
import type { HookServices } from '../hooks/hook-unit.js';
import { KubeReadCache } from './kube-reader.js';
import { ProviderDispatch } from './provider-dispatch.js';
import type { ResolvedTuning } from './tuning.js';
import type { RuntimeObserver } from './runtime-observer.js';

/** HookServicesOptions are what the runtime lends its hook services. */
export interface HookServicesOptions {
  readonly katalogName: string;
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly conditions: EvaluateConditionsOptions;
  /** The environment of hooks (external `auth.env`, git, builders). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly tuning: Pick<
    ResolvedTuning,
    'allowLinkLocal' | 'allowPrivateAddresses' | 'workDir' | 'maxWorkDirBytes' | 'maxConcurrentBuilds'
  >;
  /** Loaded providers by name (`spec.providers`). */
  readonly providers: ReadonlyMap<string, Provider>;
  /** The Katalog's `spec.allowedRepoHosts`: the only hosts git hooks may clone from. Default any. */
  readonly allowedRepoHosts?: readonly string[] | undefined;
  /** The primary cache of an entry of this Katalog, for in-process cross reads. */
  readonly lookup: (crd: string) => CrossTarget | undefined;
  /** Called with the readers (readerIds) that waited for an image build that ended. */
  readonly onBuildFinished: (waiters: readonly string[]) => void;
  /** The bearer token sent with HTTP cross reads to a literal `endpoint` (docs/adr/0030). Default: none sent. */
  readonly crossToken?: (() => Promise<string | undefined>) | undefined;
  /** Imports the client package of an external call protocol (`@orkestra/protocol-postgres`; ADR 0053). Default a dynamic `import()`. */
  readonly importProtocol?: ((specifier: string) => Promise<unknown>) | undefined;
  /** Live API answers of this operator's own kinds, built in process (ADR 0043). */
  readonly liveAnswer?: HookServices['liveAnswer'];
  /** The cached children of an owner UID (a remote reconciler's `prepared.children`). Default none. */
  readonly ownedChildren?: HookServices['ownedChildren'];
  /** Module hooks loaded at start, by `<package>#<export>` (ADR 0052). Default none. */
  readonly moduleHooks?: ReadonlyMap<string, LoadedModuleExport> | undefined;
  /** Told of every external call that ended (`orkestra_external_calls_total`). Default none. */
  readonly observer?: Pick<RuntimeObserver, 'externalCall'> | undefined;
}

/** CreatedHookServices are the services as the slots see them, and the concrete ones for metrics, the watches and `stop`. */
export interface CreatedHookServices {
  readonly services: HookServices;
  readonly external: ExternalCaller;
  readonly crossHttp: CrossHttpClient;
  readonly crossReaders: CrossReaders;
  readonly kubeReads: KubeReadCache;
  /** Undefined until an entry with `git` reconciles. */
  gitCheckouts(): GitCheckouts | undefined;
  /** Undefined until an entry with `docker` reconciles. */
  dockerBuilds(): DockerBuildManager | undefined;
  /** Stops the background builds. */
  stop(): void;
}

/**
 * createHookServices creates the services of one runtime: git checkouts and the image builder on
 * first use, the rest at once.
 *
 * @example
 * const hooks = createHookServices({ katalogName, client, clock, conditions, env, tuning, providers, lookup, onBuildFinished });
 * new KatalogHooks(hooks.services).hooksFor(crd);
 */
export function createHookServices(o: HookServicesOptions): CreatedHookServices {
  const { clock, env, tuning } = o;
  const kubeReads = new KubeReadCache({ client: o.client, clock });
  const external = new ExternalCaller({
    readSecret: (namespace, name, key) => kubeReads.secretValue(namespace, name, key),
    env,
    clock,
    allowLinkLocal: tuning.allowLinkLocal,
    allowAddresses: tuning.allowPrivateAddresses,
    ...(o.importProtocol == null ? {} : { importModule: o.importProtocol }),
    ...(o.observer == null ? {} : { onCall: o.observer.externalCall }),
  });
  // The address guard covers cross HTTP reads like external calls (docs/reference/runtime.md §14.2).
  const crossHttp = new CrossHttpClient({
    clock,
    allowLinkLocal: tuning.allowLinkLocal,
    allowAddresses: tuning.allowPrivateAddresses,
    ...(o.crossToken == null ? {} : { token: o.crossToken }),
  });
  const crossReaders = new CrossReaders();
  // Remote reconcilers go through the same guard (docs/reference/runtime.md §14.8).
  const remote = new RemoteReconcilerClient({
    clock,
    allowLinkLocal: tuning.allowLinkLocal,
    allowAddresses: tuning.allowPrivateAddresses,
  });
  let gitCheckouts: GitCheckouts | undefined;
  const git = (): GitCheckouts =>
    (gitCheckouts ??= new GitCheckouts({
      workDir: tuning.workDir ?? mkdtempSync(join(tmpdir(), 'orkestra-git-')),
      maxWorkDirBytes: tuning.maxWorkDirBytes,
      ...(o.allowedRepoHosts == null ? {} : { allowedHosts: o.allowedRepoHosts }),
      clock,
      env,
      allowLinkLocal: tuning.allowLinkLocal,
      allowAddresses: tuning.allowPrivateAddresses,
    }));
  let dockerBuilds: DockerBuildManager | undefined;
  const docker = (): DockerBuildManager =>
    (dockerBuilds ??= new DockerBuildManager({
      clock,
      env,
      ...(tuning.workDir == null ? {} : { workDir: tuning.workDir }),
      maxConcurrentBuilds: tuning.maxConcurrentBuilds,
      onBuildFinished: ({ waiters }) => o.onBuildFinished(waiters),
    }));
  const providers = new ProviderDispatch({
    katalogName: o.katalogName,
    providers: o.providers,
    kube: kubeReads,
    clock,
    conditions: o.conditions,
  });
  return {
    services: {
      conditions: o.conditions,
      external,
      crossHttp,
      crossReaders,
      lookup: o.lookup,
      liveAnswer: o.liveAnswer,
      crossCredential: crossCredentialOf(env, kubeReads),
      env,
      remote,
      ownedChildren: o.ownedChildren,
      git,
      docker,
      providers,
      moduleHook: (module, exportName) => o.moduleHooks?.get(moduleHookKey(module, exportName)),
      hookKube: (namespace) => kubeReads.readerFor(namespace),
    },
    external,
    crossHttp,
    crossReaders,
    kubeReads,
    gitCheckouts: () => gitCheckouts,
    dockerBuilds: () => dockerBuilds,
    stop: () => dockerBuilds?.stop(),
  };
}

/** crossCredentialOf resolves a cross read's `auth` (ADR 0043): `env` from the operator's environment, `secretRef` through the read cache. */
function crossCredentialOf(
  env: Readonly<Record<string, string | undefined>>,
  kubeReads: KubeReadCache,
): NonNullable<HookServices['crossCredential']> {
  return async (auth, namespace) => {
    if (auth.env != null) {
      const variable = auth.env.replace(/^\$\{?/, '').replace(/\}$/, '');
      const value = env[variable];
      return value == null || value === ''
        ? { error: `environment variable ${variable} is not set` }
        : { id: `env:${variable}`, value };
    }
    const ref = auth.secretRef;
    const ns = ref?.namespace ?? namespace ?? '';
    if (ref == null || ns === '')
      return { error: 'auth.secretRef needs a namespace for a cluster-scoped CR' };
    const value = await kubeReads.secretValue(ns, ref.name, ref.key).catch(() => undefined);
    return value == null || value === ''
      ? { error: `secret ${ns}/${ref.name} has no key ${ref.key}` }
      : { id: `secret:${ns}/${ref.name}/${ref.key}`, value };
  };
}
