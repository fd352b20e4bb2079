/**
 * The webhook part (docs/reference/runtime.md §26, ADR 0057): the HTTPS endpoint that converts
 * between a kind's versions, started before the CRDs are installed (they carry its clientConfig and
 * caBundle), and the storage version migration the leader runs (docs/reference/katalog.md §3.4).
 */
import type { Katalog } from '@orkestra/types';
import { migrateKatalogStorage } from '../../conversion/migrate-storage.js';
import type { MigrateStorageResult } from '../../conversion/migrate-storage.js';
import { needsWebhook, startWebhookEndpoint } from '../../webhook/endpoint.js';
import type { WebhookEndpoint, WebhookEndpointOptions } from '../../webhook/endpoint.js';
import { needsShardWebhook } from '../../generate/admission-webhook.js';
import type { ApiTransport } from '../api-transport.js';
import type { RunConfig } from '../config.js';
import type { InstallCrdsOptions } from '../install-crds.js';
import type { OperatorLogger } from '../logger.js';
import { errorMessage } from './errors.js';

/**
 * startWebhook opens the endpoint when an entry declares `conversion`, or when
 * `--webhook-bind-address` is given and an entry has an admission webhook rule or the replicas are
 * shards (the shard-assignment webhook, ADR 0110; every replica serves it, no leader needed): like
 * the admission webhook, `ork run` listens on no port it was not asked for (ADR 0089); the chart and
 * `ork dev --replicas N` ask. `--webhook-bind-address=0` turns it off.
 */
export async function startWebhook(o: {
  readonly config: RunConfig;
  readonly api: ApiTransport;
  readonly katalog: Katalog;
  readonly logger: OperatorLogger;
  /** With `--sharding`: the shard-assignment webhook's live shards and watched namespace (ADR 0110). */
  readonly shards?: WebhookEndpointOptions['shards'];
}): Promise<WebhookEndpoint | undefined> {
  const { config, logger } = o;
  if (config.webhookBindAddress.trim() === '0') return undefined;
  // Conversion needs the endpoint; the admission and shard-assignment webhooks only when asked for
  // (ADR 0089, ADR 0110), or served on the endpoint conversion opened anyway.
  const converts = Object.values(o.katalog.spec.crds).some((entry) => entry.conversion != null);
  const admits = config.webhookAsked && needsWebhook(o.katalog);
  const shards =
    config.sharding && (config.webhookAsked || converts) && needsShardWebhook(o.katalog)
      ? o.shards
      : undefined;
  if (!converts && !admits && shards == null) return undefined;
  let webhook: WebhookEndpoint;
  try {
    webhook = await startWebhookEndpoint({
      client: o.api.client,
      katalog: o.katalog,
      namespace: config.namespace,
      bindAddress: config.webhookBindAddress,
      service: config.webhookService,
      allowPrivateAddresses: config.allowPrivateAddresses,
      log: (message, fields) => logger.info(fields ?? {}, message),
      ...(shards == null ? {} : { shards }),
      // Started for the shards alone: the Katalog rules' webhooks stay unasked (ADR 0089).
      ...(converts || admits ? {} : { katalogRules: false }),
    });
  } catch (error) {
    // Only the shard-assignment webhook asked for the endpoint: it fails open, so the replica runs
    // without it and the sharder labels every new CR (runtime.md §25.2).
    if (converts || admits) throw error;
    logger.warn(
      { err: { message: errorMessage(error) } },
      'cannot serve the shard-assignment webhook; the sharder labels new CRs instead',
    );
    return undefined;
  }
  logger.info(
    { port: webhook.server.port, clientConfig: webhook.clientConfig, shardAssignment: shards != null },
    converts ? 'conversion webhook serving' : 'admission webhook serving',
  );
  return webhook;
}

/** crdInstallOptions are installCrds' options: the CRDs point at the running endpoint, with its caBundle. */
export function crdInstallOptions(
  config: RunConfig,
  webhook: WebhookEndpoint | undefined,
): InstallCrdsOptions {
  return {
    namespace: config.namespace,
    ...(webhook == null ? {} : { crds: { webhook: webhook.clientConfig, caBundle: webhook.caBundle() } }),
    ...(webhook?.shardAssignment === true ? { sharding: true } : {}),
    ...(webhook == null || webhook.katalogRules ? {} : { katalogRules: false }),
  };
}

/** patchCaBundles writes the caBundle into CRDs the operator did not install; a failure is logged. */
export async function patchCaBundles(webhook: WebhookEndpoint, logger: OperatorLogger): Promise<void> {
  await webhook.patchCaBundles().catch((error: unknown) => {
    logger.error(
      { err: { message: errorMessage(error) } },
      'cannot write the conversion caBundle into the CRDs (needs get and patch on them): conversion fails until it is there',
    );
  });
}

/**
 * migrateStorage: the leader rewrites stored objects of converting CRDs whose storedVersions name
 * more than the storage version, once per leadership (in the background; outcomes are logged).
 */
export function migrateStorage(o: {
  readonly webhook: WebhookEndpoint | undefined;
  readonly api: ApiTransport;
  readonly katalog: Katalog;
  readonly logger: OperatorLogger;
  /** Shutdown: the migration stops between two writes, storedVersions untrimmed (the next start resumes). */
  readonly signal?: AbortSignal;
}): void {
  if (o.webhook == null) return;
  const names = Object.values(o.katalog.spec.crds)
    .filter((entry) => entry.conversion != null)
    .map((entry) => `${entry.apiTypes.plural}.${entry.apiTypes.group}`);
  const report = (crd: string, outcome: MigrateStorageResult | { error: string }): void => {
    if ('error' in outcome)
      o.logger.error({ crd, err: { message: outcome.error } }, 'storage version migration failed');
    else if (outcome.needed) o.logger.info({ crd, ...outcome }, 'storage version migrated');
  };
  void migrateKatalogStorage(o.api.client, names, report, undefined, o.signal);
}
