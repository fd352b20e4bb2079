import type { Katalog } from '@orkestra/types';
import { needsAdmissionWebhook, needsMutatingWebhook } from './admission-webhook.js';
import { WEBHOOK_SERVICE, generatePolicies } from './generate-bundle.js';
import type { Manifest } from './manifest-meta.js';
import { generateRbac } from './generate-rbac.js';
import type { NamespaceRole, PolicyRule } from './generate-rbac.js';

/** HelmValuesOptions configures generateHelmValues. */
export interface HelmValuesOptions {
  /** The Katalog file's text, put into the chart's ConfigMap verbatim. */
  readonly katalogText: string;
  /** Namespace the chart is installed in (`helm install -n`): RBAC notes, and the service accounts that may delete protected children. */
  readonly namespace: string;
  /** The chart runs sharded (`sharding.enabled`): the shard-assignment webhook's configuration and RBAC (ADR 0110). */
  readonly sharding?: boolean;
}

/** HelmValues is the part of the chart's values that follows from a Katalog. */
export interface HelmValues {
  readonly katalogName: string;
  readonly katalog: { readonly inline: string };
  readonly rbac: {
    readonly clusterScoped: boolean;
    readonly namespace: string;
    readonly rules: readonly PolicyRule[];
    /** Rules granted by a Role in one namespace each: Secrets the Katalog reads in a literal namespace. */
    readonly namespaceRoles: readonly NamespaceRole[];
  };
  /** ValidatingAdmissionPolicies and bindings the chart installs (ADR 0049, ADR 0050), and the admission webhook's configuration (ADR 0089). */
  readonly admissionPolicies: readonly Manifest[];
  /** Present when an entry declares conversion or has an admission webhook rule: the chart serves the webhook (ADR 0057, ADR 0089). */
  readonly webhook?: { readonly enabled: true };
  /** Present with `sharding`: the chart runs its replicas as shards, each serving the shard-assignment webhook (ADR 0110). */
  readonly sharding?: { readonly enabled: true };
}

/**
 * generateHelmValues derives the chart's Katalog-specific values (apps/operator/deploy/helm): the
 * Katalog text, its name (the leader-election Lease is `orkestra-<name>`) and the least-privilege
 * rules `ork generate rbac` would write, as a ClusterRole, or a Role when every CRD entry is pinned
 * to one namespace, plus a Role in each namespace where the Katalog reads Secrets it names literally. Everything else keeps the chart's defaults.
 *
 * @example
 * const values = generateHelmValues(katalog, { katalogText, namespace: 'orkestra-system' });
 */
export function generateHelmValues(katalog: Katalog, options: HelmValuesOptions): HelmValues {
  const sharding = options.sharding === true;
  const rbac = generateRbac(katalog, { namespace: options.namespace, ...(sharding ? { sharding } : {}) });
  return {
    katalogName: katalog.metadata.name,
    katalog: { inline: options.katalogText },
    rbac: {
      clusterScoped: rbac.pinnedNamespace == null,
      namespace: rbac.pinnedNamespace ?? '',
      rules: rbac.rules,
      namespaceRoles: rbac.namespaceRoles,
    },
    admissionPolicies: generatePolicies(katalog, options.namespace, [], {
      target: { service: { namespace: options.namespace, name: WEBHOOK_SERVICE, port: 443 } },
      ...(sharding ? { sharding } : {}),
    }),
    ...(Object.values(katalog.spec.crds).some((entry) => entry.conversion != null) ||
    needsAdmissionWebhook(katalog) ||
    needsMutatingWebhook(katalog)
      ? { webhook: { enabled: true } }
      : {}),
    ...(sharding ? { sharding: { enabled: true } } : {}),
  };
}
