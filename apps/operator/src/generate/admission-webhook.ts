/**
 * The operator's own admission webhook (docs/reference/katalog.md §12, ADR 0089): one
 * ValidatingWebhookConfiguration per Katalog for the rules CEL cannot express (planAdmission's
 * `webhook-deny` and `webhook-warn`), served on the conversion endpoint (docs/reference/runtime.md §26).
 * A deny webhook fails closed (`Fail`): a client is never told a bad spec was accepted while the
 * operator is down; a warn webhook fails open (`Ignore`): a missing warning refuses nothing. Both
 * skip an UPDATE that leaves `spec` as it was, so the runtime's own writes never wait on them, and
 * a CR in a namespace the entry's `restrictedNamespaces`/`allowedNamespaces` block.
 *
 * Beside it, one MutatingWebhookConfiguration per Katalog whose mutation rules schema defaults
 * cannot express (`webhook-mutate`: an override, a templated or gated default; ADR 0092). It fails
 * closed (`Fail`): an object is never stored without the overrides the Katalog asks for.
 *
 * With sharding (`ork run --sharding`, docs/reference/runtime.md §25.2, ADR 0110), one more
 * MutatingWebhookConfiguration per Katalog: the shard-assignment webhook, which labels a new CR with
 * its shard in the CREATE itself. It fails open (`Ignore`): the sharder labels whatever it did not.
 */
import { OrkestraLabel } from '@orkestra/types';
import type { CrdEntry, Katalog } from '@orkestra/types';
import { SPEC_CHANGED, planAdmission, webhookPath } from './admission.js';
import type { WebhookAction } from './admission.js';
import { celString } from './admission-cel.js';
import type { WebhookClientConfig } from './generate-crds.js';
import { manifestMetadata } from './manifest-meta.js';
import type { Manifest } from './manifest-meta.js';

/** How long the API server waits for one review: the bound on the latency a webhook rule adds. */
const ADMISSION_WEBHOOK_TIMEOUT_SECONDS = 5;

/** admissionWebhookName is the name of a Katalog's ValidatingWebhookConfiguration. */
export function admissionWebhookName(katalog: Katalog): string {
  return `${katalog.metadata.name}.orkestra-validate`;
}

/** mutatingWebhookName is the name of a Katalog's MutatingWebhookConfiguration (ADR 0092). */
export function mutatingWebhookName(katalog: Katalog): string {
  return `${katalog.metadata.name}.orkestra-mutate`;
}

/** needsMutatingWebhook tells whether some entry has a mutation rule the mutating webhook applies. */
export function needsMutatingWebhook(katalog: Katalog): boolean {
  return Object.values(katalog.spec.crds).some(
    (entry) => entry.enabled && planAdmission(entry).webhook.mutate.length > 0,
  );
}

/** shardWebhookName is the name of a Katalog's shard-assignment MutatingWebhookConfiguration (ADR 0110). */
export function shardWebhookName(katalog: Katalog): string {
  return `${katalog.metadata.name}.orkestra-shard`;
}

/** shardWebhookPath is where the shard-assignment webhook of one entry is served: `/shard/<plural>.<group>`. */
export function shardWebhookPath(entry: CrdEntry): string {
  return `/shard/${entry.apiTypes.plural}.${entry.apiTypes.group}`;
}

/** webhookConfigurationNames are the webhook configurations of a Katalog the operator writes its caBundle into (`sharding`: its shard-assignment webhook's too). */
export function webhookConfigurationNames(
  katalog: Katalog,
  options: { readonly sharding?: boolean } = {},
): {
  readonly kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
  readonly name: string;
}[] {
  return [
    ...(options.sharding === true && needsShardWebhook(katalog)
      ? [{ kind: 'MutatingWebhookConfiguration' as const, name: shardWebhookName(katalog) }]
      : []),
    ...(needsAdmissionWebhook(katalog)
      ? [{ kind: 'ValidatingWebhookConfiguration' as const, name: admissionWebhookName(katalog) }]
      : []),
    ...(needsMutatingWebhook(katalog)
      ? [{ kind: 'MutatingWebhookConfiguration' as const, name: mutatingWebhookName(katalog) }]
      : []),
  ];
}

/** needsShardWebhook tells whether a sharded operator of the Katalog serves the shard-assignment webhook: some entry is enabled. */
export function needsShardWebhook(katalog: Katalog): boolean {
  return Object.values(katalog.spec.crds).some((entry) => entry.enabled);
}

/** needsAdmissionWebhook tells whether some entry has a rule the webhook judges. */
export function needsAdmissionWebhook(katalog: Katalog): boolean {
  return Object.values(katalog.spec.crds).some((entry) => {
    if (!entry.enabled) return false;
    const { deny, warn, denyAt } = planAdmission(entry).webhook;
    return deny.length + warn.length + denyAt.length > 0;
  });
}

function clientConfigOf(target: WebhookClientConfig, path: string, caBundle: string | undefined): Manifest {
  const config: Record<string, unknown> =
    'url' in target
      ? { url: `${target.url.replace(/\/+$/, '')}${path}` }
      : { service: { ...target.service, path } };
  if (caBundle != null) config['caBundle'] = Buffer.from(caBundle).toString('base64');
  return config as Manifest;
}

/** patternCel is CEL true when `request.namespace` matches one namespace pattern (docs/reference/katalog.md §19). */
function patternCel(pattern: string): string {
  if (pattern === '*') return 'true';
  if (pattern.endsWith('*')) return `request.namespace.startsWith(${celString(pattern.slice(0, -1))})`;
  if (pattern.startsWith('*')) return `request.namespace.endsWith(${celString(pattern.slice(1))})`;
  return `request.namespace == ${celString(pattern)}`;
}

/**
 * namespaceCondition is CEL true in a namespace the runtime acts in: a CR in a blocked namespace
 * gets NamespaceRestricted at reconcile time, before any rule, so the webhook does not judge it.
 */
function namespaceCondition(entry: CrdEntry): string | undefined {
  const restricted = entry.restrictedNamespaces ?? [];
  const allowed = entry.allowedNamespaces ?? [];
  if (!entry.namespaced || restricted.length + allowed.length === 0) return undefined;
  const parts = [
    ...restricted.map((p) => `!(${patternCel(p)})`),
    ...(allowed.length === 0 ? [] : [allowed.map((p) => `(${patternCel(p)})`).join(' || ')]),
  ];
  return parts.map((p) => `(${p})`).join(' && ');
}

function webhookOf(
  entry: CrdEntry,
  action: WebhookAction,
  target: WebhookClientConfig,
  caBundle: string | undefined,
  versions: readonly string[] = [],
): Record<string, unknown> {
  const { group, plural, version } = entry.apiTypes;
  const inNamespace = namespaceCondition(entry);
  return {
    name: `${action}.${plural}.${group}`,
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfigOf(target, webhookPath(entry, action), caBundle),
    rules: [
      {
        apiGroups: [group],
        // The review carries the object at the version the runtime reads, converted (Equivalent).
        apiVersions: [version],
        operations: ['CREATE', 'UPDATE'],
        resources: [plural],
        scope: entry.namespaced ? 'Namespaced' : 'Cluster',
      },
    ],
    matchPolicy: 'Equivalent',
    matchConditions: [
      { name: 'spec-changed', expression: SPEC_CHANGED },
      ...(inNamespace === undefined ? [] : [{ name: 'namespace-not-restricted', expression: inNamespace }]),
      // CRD rules the other versions' schemas cannot carry: judged on requests made at those
      // versions only (a request at the rule's own version meets the CRD rule; ADR 0102).
      ...(action === 'deny-versions'
        ? [
            {
              name: 'request-version',
              expression: `request.requestKind.version in [${versions.map(celString).join(', ')}]`,
            },
          ]
        : []),
    ],
    failurePolicy: action === 'warn' ? 'Ignore' : 'Fail',
    // The mutation is step 7, which is idempotent: applied again after another webhook changed the spec.
    ...(action === 'mutate' ? { reinvocationPolicy: 'IfNeeded' } : {}),
    sideEffects: 'None',
    timeoutSeconds: ADMISSION_WEBHOOK_TIMEOUT_SECONDS,
  };
}

/**
 * admissionWebhookConfiguration returns the Katalog's ValidatingWebhookConfiguration (two webhooks
 * per entry at most: its deny rules, its warn rules, and its CRD rules at the versions their schema
 * cannot carry, ADR 0102), or undefined when no rule needs one.
 * `caBundle` (PEM) is written when known; the running operator patches it otherwise.
 */
export function admissionWebhookConfiguration(
  katalog: Katalog,
  target: WebhookClientConfig,
  caBundle?: string,
): Manifest | undefined {
  const webhooks: Record<string, unknown>[] = [];
  for (const entry of Object.values(katalog.spec.crds)) {
    if (!entry.enabled) continue;
    const plan = planAdmission(entry).webhook;
    for (const action of ['deny', 'warn'] as const)
      if (plan[action].length > 0) webhooks.push(webhookOf(entry, action, target, caBundle));
    if (plan.denyAt.length > 0)
      webhooks.push(webhookOf(entry, 'deny-versions', target, caBundle, plan.denyAtVersions));
  }
  if (webhooks.length === 0) return undefined;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: manifestMetadata(katalog, admissionWebhookName(katalog)),
    webhooks,
  };
}

/**
 * mutatingWebhookConfiguration returns the Katalog's MutatingWebhookConfiguration (one webhook per
 * entry whose mutation rules need it, ADR 0092), or undefined when none does. `caBundle` (PEM) is
 * written when known; the running operator patches it otherwise.
 */
export function mutatingWebhookConfiguration(
  katalog: Katalog,
  target: WebhookClientConfig,
  caBundle?: string,
): Manifest | undefined {
  const webhooks = Object.values(katalog.spec.crds)
    .filter((entry) => entry.enabled && planAdmission(entry).webhook.mutate.length > 0)
    .map((entry) => webhookOf(entry, 'mutate', target, caBundle));
  if (webhooks.length === 0) return undefined;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: manifestMetadata(katalog, mutatingWebhookName(katalog)),
    webhooks,
  };
}

/** How long the API server waits for a shard assignment: it fails open, so a slow replica delays a CREATE by this much at most. */
const SHARD_WEBHOOK_TIMEOUT_SECONDS = 2;

/**
 * SHARD_LABEL_UNSET is CEL true for an object without a shard label (or an empty one, which the
 * sharder counts unassigned too): only those are sent to the shard-assignment webhook.
 */
const SHARD_LABEL_UNSET = `!has(object.metadata.labels) || !(${celString(OrkestraLabel.Shard)} in object.metadata.labels) || object.metadata.labels[${celString(OrkestraLabel.Shard)}] == ''`;

/** NAMED is CEL true for an object with a name: a CREATE by `generateName` is named after admission, and the ring key needs the name. */
const NAMED = "has(object.metadata.name) && object.metadata.name != ''";

/**
 * shardWebhookConfiguration returns the Katalog's shard-assignment MutatingWebhookConfiguration
 * (docs/reference/runtime.md §25.2, ADR 0110): one webhook per enabled entry, on CREATE of an object
 * with a name and without the shard label; `Ignore` on failure (the sharder assigns what it could
 * not), a 2 s timeout, no side effects, never reinvoked (a label set once stays). Undefined when no
 * entry is enabled. `caBundle` (PEM) is written when known; the running operator patches it otherwise.
 */
export function shardWebhookConfiguration(
  katalog: Katalog,
  target: WebhookClientConfig,
  caBundle?: string,
): Manifest | undefined {
  const webhooks = Object.values(katalog.spec.crds)
    .filter((entry) => entry.enabled)
    .map((entry) => {
      const { group, plural, version } = entry.apiTypes;
      return {
        name: `shard.${plural}.${group}`,
        admissionReviewVersions: ['v1'],
        clientConfig: clientConfigOf(target, shardWebhookPath(entry), caBundle),
        rules: [
          {
            apiGroups: [group],
            apiVersions: [version],
            operations: ['CREATE'],
            resources: [plural],
            scope: entry.namespaced ? 'Namespaced' : 'Cluster',
          },
        ],
        matchPolicy: 'Equivalent',
        matchConditions: [
          { name: 'shard-label-unset', expression: SHARD_LABEL_UNSET },
          { name: 'named', expression: NAMED },
        ],
        failurePolicy: 'Ignore',
        reinvocationPolicy: 'Never',
        sideEffects: 'None',
        timeoutSeconds: SHARD_WEBHOOK_TIMEOUT_SECONDS,
      };
    });
  if (webhooks.length === 0) return undefined;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: manifestMetadata(katalog, shardWebhookName(katalog)),
    webhooks,
  };
}
