import { ExternalCaller } from '@orkestra/reconciler';
import { NotFoundError } from '@orkestra/registry';
import type { KubeClient } from '@orkestra/registry';
import type { Katalog } from '@orkestra/types';
import { createConverter } from '../conversion/convert.js';
import type { Converter } from '../conversion/convert.js';
import type { WebhookClientConfig } from '../generate/generate-crds.js';
import { parseBindAddress } from '../process/http-server.js';
import {
  needsAdmissionWebhook,
  needsMutatingWebhook,
  shardWebhookName,
  webhookConfigurationNames,
} from '../generate/admission-webhook.js';
import { createAdmissionHandler } from './admission.js';
import type { AdmissionHandler } from './admission.js';
import { createShardAdmissionHandler } from './shard-admission.js';
import type { ShardLiveSource } from './shard-admission.js';
import { patchCaBundles } from './ca-bundle.js';
import { createWebhookServer } from './server.js';
import type { WebhookServer } from './server.js';
import { ensureWebhookTls } from './tls-secret.js';
import type { WebhookTls, WebhookTlsOptions } from './tls-secret.js';

/**
 * The operator's webhook endpoint as the process runs it (docs/reference/runtime.md §26, ADR 0057):
 * certificates from the Secret, the HTTPS server, the CRDs' caBundle, and a timer that renews the
 * certificates and, when the CA changed, patches the bundle and serves a certificate of the new CA
 * only from the next check on (ADR 0085): the API server learns a patched bundle some time after
 * the patch, and a connection it opens meanwhile must still verify.
 */

/** WebhookEndpointOptions configures startWebhookEndpoint. */
export interface WebhookEndpointOptions {
  readonly client: Pick<KubeClient, 'get' | 'create' | 'replace' | 'mergePatch' | 'list'>;
  readonly katalog: Katalog;
  /** The operator namespace: the Secret's, and the Service's. */
  readonly namespace: string;
  /** `--webhook-bind-address`. */
  readonly bindAddress: string;
  /** `--webhook-service`: a Service name, an https URL, or `loopback` (`ork dev`). */
  readonly service: string;
  readonly now?: () => Date;
  /** Between certificate checks. Default 1 h. */
  readonly checkEveryMs?: number;
  /** The Secret's name and the certificates' lifetimes (ensureWebhookTls' defaults when absent). */
  readonly tls?: Pick<WebhookTlsOptions, 'secretName' | 'caValidForMs' | 'certValidForMs'>;
  /** Told about each renewal and each failed check. */
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  /** CIDRs `validation.external` calls at admission may reach although the address guard refuses them (`--allow-private-addresses`, ADR 0093). */
  readonly allowPrivateAddresses?: readonly string[];
  /** The bound on one review's `validation.external` calls (default 3 s, under the webhook's 5 s). */
  readonly externalCallsTimeoutMs?: number;
  /**
   * With `--sharding`: the shard-assignment webhook's live shards (the replica's ShardLeaseWatch) and
   * the one namespace the shards watch, if any (docs/reference/runtime.md §25.2, ADR 0110).
   */
  readonly shards?: { readonly live: ShardLiveSource; readonly namespace?: string | undefined };
  /**
   * False: serve only the shard-assignment webhook, not the Katalog rules' admission webhooks (the
   * endpoint runs for `--sharding` alone, and `--webhook-bind-address` was not given: ADR 0089's
   * "when asked"). Default true.
   */
  readonly katalogRules?: boolean;
}

/** eitherHandler answers with the first handler that serves the path. */
function eitherHandler(first: AdmissionHandler, second: AdmissionHandler): AdmissionHandler {
  return async (path, review) => (await first(path, review)) ?? second(path, review);
}

/** secretReader reads one key of a Secret for an external call's `auth.secretRef`, as the runtime's caller does. */
function secretReader(client: Pick<KubeClient, 'get'>) {
  return async (namespace: string, name: string, key: string): Promise<string | undefined> => {
    const secret = await client
      .get({ apiVersion: 'v1', kind: 'Secret', name, namespace })
      .catch((error: unknown) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      });
    const data = (secret?.['data'] ?? {}) as Record<string, string | undefined>;
    const value = data[key];
    return value == null ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
}

/** WebhookEndpoint is a running endpoint. */
export interface WebhookEndpoint {
  readonly server: WebhookServer;
  /** Where the CRDs point. */
  readonly clientConfig: WebhookClientConfig;
  /** The CA bundle the CRDs carry. */
  caBundle(): string;
  /** It serves the shard-assignment webhook (`shards` was given, ADR 0110). */
  readonly shardAssignment: boolean;
  /** It serves the Katalog rules' admission webhooks (ADR 0089, ADR 0092): not when it runs for the shard-assignment webhook alone. */
  readonly katalogRules: boolean;
  /** patchCaBundles writes the current bundle into the CRDs that convert and the admission webhook's configuration (those without it). */
  patchCaBundles(): Promise<number>;
  /** checkNow renews the certificates if due (what the timer does). */
  checkNow(): Promise<void>;
  close(): Promise<void>;
}

/** convertersOf builds one converter per entry with `conversion`, by `<group>/<Kind>`. */
function convertersOf(katalog: Katalog): Map<string, Converter> {
  const converters = new Map<string, Converter>();
  for (const [name, entry] of Object.entries(katalog.spec.crds))
    if (entry.conversion != null)
      converters.set(`${entry.apiTypes.group}/${entry.apiTypes.kind}`, createConverter(name, entry));
  return converters;
}

/** needsWebhook tells whether any entry of the Katalog declares conversion or has a rule the admission webhooks judge or apply (ADR 0089, ADR 0092). */
export function needsWebhook(katalog: Katalog): boolean {
  return (
    Object.values(katalog.spec.crds).some((entry) => entry.conversion != null) ||
    needsAdmissionWebhook(katalog) ||
    needsMutatingWebhook(katalog)
  );
}

function hostsOf(service: string, namespace: string): string[] {
  if (service === 'loopback') return ['127.0.0.1'];
  if (service.startsWith('https://')) return [new URL(service).hostname.replace(/^\[|\]$/g, '')];
  return [
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
    `${service}.${namespace}`,
  ];
}

/** startWebhookEndpoint settles the certificates, listens, and keeps the certificates fresh. */
export async function startWebhookEndpoint(options: WebhookEndpointOptions): Promise<WebhookEndpoint> {
  const now = options.now ?? (() => new Date());
  const tlsOptions = {
    ...options.tls,
    namespace: options.namespace,
    hosts: hostsOf(options.service, options.namespace),
    now,
  };
  let tls: WebhookTls = await ensureWebhookTls(options.client, tlsOptions);
  const bind = parseBindAddress(options.bindAddress);
  const katalogRules = options.katalogRules !== false || options.shards == null;
  const katalogAdmission = !katalogRules
    ? undefined
    : createAdmissionHandler(options.katalog, options.client, {
        calls: {
          caller: new ExternalCaller({
            readSecret: secretReader(options.client),
            allowAddresses: options.allowPrivateAddresses ?? [],
          }),
          ...(options.externalCallsTimeoutMs == null ? {} : { timeoutMs: options.externalCallsTimeoutMs }),
        },
      });
  const shards =
    options.shards == null
      ? undefined
      : createShardAdmissionHandler(options.katalog, {
          live: options.shards.live,
          namespace: options.shards.namespace,
        });
  const admission =
    katalogAdmission == null || shards == null
      ? (katalogAdmission ?? shards)
      : eitherHandler(shards, katalogAdmission);
  const server = await createWebhookServer({
    certPem: tls.certPem,
    keyPem: tls.keyPem,
    converters: convertersOf(options.katalog),
    ...(admission == null ? {} : { admission }),
    host: bind?.host ?? '0.0.0.0',
    port: bind?.port ?? 9443,
  });
  const clientConfig: WebhookClientConfig =
    options.service === 'loopback'
      ? { url: `https://127.0.0.1:${server.port}` }
      : options.service.startsWith('https://')
        ? { url: options.service }
        : { service: { namespace: options.namespace, name: options.service, port: 443 } };
  const crdNames = Object.values(options.katalog.spec.crds)
    .filter((entry) => entry.conversion != null)
    .map((entry) => `${entry.apiTypes.plural}.${entry.apiTypes.group}`);
  const targets = {
    crds: crdNames,
    webhookConfigurations: webhookConfigurationNames(options.katalog, {
      sharding: options.shards != null,
    }).filter((config) => katalogRules || config.name === shardWebhookName(options.katalog)),
  };
  const checkEveryMs = options.checkEveryMs ?? 3_600_000;
  const checkNow = async (): Promise<void> => {
    const next = await ensureWebhookTls(options.client, tlsOptions);
    if (next.caBundle !== tls.caBundle) {
      await patchCaBundles(options.client, targets, next.caBundle);
      // The served certificate stays one more check when it lives that long: until then the API
      // server may still verify with the bundle it had (without the new CA).
      if (tls.notAfter.getTime() > now().getTime() + 2 * checkEveryMs) {
        tls = { ...tls, caBundle: next.caBundle };
        options.log?.('webhook CA renewed; its certificate is served from the next check', {
          notAfter: next.notAfter.toISOString(),
        });
        return;
      }
    }
    if (next.certPem !== tls.certPem) {
      server.setTls(next);
      options.log?.('webhook certificate renewed', { notAfter: next.notAfter.toISOString() });
    }
    tls = next;
  };
  const timer = setInterval(() => {
    checkNow().catch((error: unknown) =>
      options.log?.('webhook certificate check failed', {
        err: { message: error instanceof Error ? error.message : String(error) },
      }),
    );
  }, checkEveryMs);
  timer.unref();
  return {
    server,
    clientConfig,
    caBundle: () => tls.caBundle,
    shardAssignment: shards != null,
    katalogRules,
    patchCaBundles: () => patchCaBundles(options.client, targets, tls.caBundle),
    checkNow,
    async close() {
      clearInterval(timer);
      await server.close();
    },
  };
}
