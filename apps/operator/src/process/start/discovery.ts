/**
 * Discovery, the first start-up part (docs/reference/runtime.md §2 steps 1–5): load and validate
 * the Katalog file, load its providers, connect to the cluster and optionally install the CRDs.
 * Each step throws OperatorStartError, after closing what it had opened.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Katalog, LoadedModuleExport, Provider } from '@orkestra/types';
import { formatIssue, loadKatalogFile } from '../../katalog-file.js';
import { createApiTransport } from '../api-transport.js';
import type { ApiTransport } from '../api-transport.js';
import type { RunConfig } from '../config.js';
import type { WebhookEndpoint, WebhookEndpointOptions } from '../../webhook/endpoint.js';
import { HookModulesLoadError, loadModuleHooks } from '../hook-module-loader.js';
import { installCrds } from '../install-crds.js';
import { loadKubeConfig } from '../kube-config.js';
import type { OperatorLogger } from '../logger.js';
import type { OperatorMetrics } from '../metrics.js';
import { providerDirectoryFromEnv } from '../provider-directory.js';
import { closeProviders, loadProviders } from '../provider-loader.js';
import { operatorVersion } from '../../version.js';
import { apiServerVersion, checkCompatibility } from './compatibility.js';
import { OperatorStartError, errorMessage } from './errors.js';
import { crdInstallOptions, patchCaBundles, startWebhook } from './webhook.js';

/** Environment is the process environment the parts read (`$NAME` provider config, the in-cluster check). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** loadStartKatalog loads the Katalog file at start-up; an invalid one throws with every error positioned. */
export function loadStartKatalog(
  config: RunConfig,
  cwd: string,
): Extract<ReturnType<typeof loadKatalogFile>, { ok: true }> {
  const loaded = loadKatalogFile(config.katalog, { cwd });
  if (!loaded.ok) {
    throw new OperatorStartError(
      `${config.katalog}: the Katalog is invalid`,
      loaded.errors.map((issue) => formatIssue(issue)),
    );
  }
  return loaded;
}

/** loadStartProviders loads the Katalog's providers (built in, or from the provider directory). */
export async function loadStartProviders(
  katalog: Katalog,
  o: { readonly env: Environment; readonly cwd: string; readonly logger: OperatorLogger },
): Promise<ReadonlyMap<string, Provider>> {
  const dir = providerDirectoryFromEnv(o.env, o.cwd);
  try {
    return (
      await loadProviders(katalog.spec.providers, {
        env: o.env,
        logger: o.logger,
        crds: katalog.spec.crds,
        // Providers the image was not built with (ORKESTRA_PROVIDER_DIR, /opt/orkestra/providers; docs/adr/0006-provider-directory.md).
        ...(dir == null ? {} : { providerDirectory: dir }),
      })
    ).providers;
  } catch (error) {
    throw new OperatorStartError(`cannot load providers: ${errorMessage(error)}`, [], { cause: error });
  }
}

/** ModuleHooks are the loaded module hooks and module reconcilers, by `<package>#<export>`. */
export type ModuleHooks = ReadonlyMap<string, LoadedModuleExport>;

/**
 * loadStartModuleHooks loads a Katalog's module hooks (docs/reference/katalog.md §14.5, ADR 0052)
 * like providers; a failure is positioned at the declaration. A reload loads the ones it adds.
 */
export function moduleHookLoader(o: {
  readonly env: Environment;
  readonly cwd: string;
  readonly logger: OperatorLogger;
}): (katalog: Katalog) => Promise<ModuleHooks> {
  return (katalog) =>
    loadModuleHooks(katalog, { logger: o.logger, providerDirectory: providerDirectoryFromEnv(o.env, o.cwd) });
}

/** loadStartModuleHooks loads the module hooks at start; a failure closes the providers and throws OperatorStartError. */
export async function loadStartModuleHooks(
  load: (katalog: Katalog) => Promise<ModuleHooks>,
  katalog: Katalog,
  o: { readonly logger: OperatorLogger; readonly providers: ReadonlyMap<string, Provider> },
): Promise<ModuleHooks> {
  try {
    return await load(katalog);
  } catch (error) {
    await closeProviders(o.providers, { logger: o.logger });
    throw new OperatorStartError(
      'cannot load module hooks',
      error instanceof HookModulesLoadError ? error.errors.map((e) => e.message) : [errorMessage(error)],
      { cause: error },
    );
  }
}

/** ConnectOptions is what connecting needs. */
export interface ConnectOptions {
  readonly config: RunConfig;
  readonly env: Environment;
  readonly cwd: string;
  /** A connection to use instead of the configured kubeconfig / in-cluster one. */
  readonly kubeConfig: KubeConfig | undefined;
  readonly katalog: Katalog;
  readonly shardId: string | undefined;
  readonly metrics: OperatorMetrics;
  readonly logger: OperatorLogger;
  /** Closed when connecting fails. */
  readonly providers: ReadonlyMap<string, Provider>;
  /** With `--sharding`: what the shard-assignment webhook reads (ADR 0110). */
  readonly shards?: WebhookEndpointOptions['shards'];
}

/**
 * connect makes the counted API transport, opens the webhook endpoint when an entry converts
 * versions, and installs the CRDs when asked (pointing at the endpoint).
 */
export async function connect(o: ConnectOptions): Promise<{
  readonly kubeConfig: KubeConfig;
  readonly api: ApiTransport;
  readonly webhook: WebhookEndpoint | undefined;
}> {
  const { config } = o;
  let webhook: WebhookEndpoint | undefined;
  try {
    const kubeConfig =
      o.kubeConfig ??
      loadKubeConfig({
        ...(config.kubeconfig == null ? {} : { kubeconfig: config.kubeconfig }),
        env: o.env,
        cwd: o.cwd,
      }).kubeConfig;
    const api = createApiTransport({
      kubeConfig,
      katalogName: o.katalog.metadata.name,
      ...(o.shardId == null ? {} : { shard: o.shardId }),
      restRequest: o.metrics.sink.restRequest,
    });
    // Versions first: nothing is installed for a Katalog not verified here (ADR 0063).
    await checkCompatibility(o.katalog, {
      operatorVersion: operatorVersion(),
      serverVersion: () => apiServerVersion(api),
      logger: o.logger,
    });
    webhook = await startWebhook({
      config,
      api,
      katalog: o.katalog,
      logger: o.logger,
      ...(o.shards == null ? {} : { shards: o.shards }),
    });
    if (config.installCrds) {
      const names = await installCrds(api.client, o.katalog, crdInstallOptions(config, webhook));
      o.logger.info({ crds: names }, 'CustomResourceDefinitions installed');
    } else if (webhook != null) await patchCaBundles(webhook, o.logger);
    return { kubeConfig, api, webhook };
  } catch (error) {
    await webhook?.close();
    await closeProviders(o.providers, { logger: o.logger });
    if (error instanceof OperatorStartError) throw error;
    throw new OperatorStartError(errorMessage(error), [], { cause: error });
  }
}
