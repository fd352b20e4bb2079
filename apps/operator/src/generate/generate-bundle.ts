import type { Katalog } from '@orkestra/types';
import { admissionPolicies } from './admission.js';
import { deletionProtectionPolicies } from './deletion-protection.js';
import {
  admissionWebhookConfiguration,
  mutatingWebhookConfiguration,
  needsAdmissionWebhook,
  needsMutatingWebhook,
  shardWebhookConfiguration,
} from './admission-webhook.js';
import { generateCrds, webhookClientConfigOf } from './generate-crds.js';
import type { WebhookClientConfig } from './generate-crds.js';
import { generateRbac } from './generate-rbac.js';
import type { Rbac } from './generate-rbac.js';
import { instanceLabels, manifestMetadata } from './manifest-meta.js';
import type { Manifest } from './manifest-meta.js';

/** DEFAULT_IMAGE_REPOSITORY is where the operator image is published. */
export const DEFAULT_IMAGE_REPOSITORY = 'ghcr.io/orkestra/operator';

/** WEBHOOK_SERVICE is `ork run`'s default `--webhook-service`, the Service the bundle's CRDs point at. */
export const WEBHOOK_SERVICE = 'orkestra-webhook';

/** KATALOG_MOUNT_PATH is where the bundle mounts the Katalog ConfigMap in the operator container. */
const KATALOG_MOUNT_PATH = '/etc/orkestra';

/** BundleOptions configures generateBundle. */
export interface BundleOptions {
  /** Namespace the operator runs in (created by the bundle). */
  readonly namespace: string;
  /** The Katalog file's text, stored verbatim in the ConfigMap. */
  readonly katalogText: string;
  /** Operator image. */
  readonly image: string;
}

/** The emptyDir sizeLimit of the work directory: above the runtime's default cap of 1 GiB. */
const WORK_DIR_SIZE_LIMIT = '2Gi';
/** The emptyDir sizeLimit of /tmp. */
const TMP_SIZE_LIMIT = '256Mi';

/** Bundle is a full install: the manifests in apply order plus the RBAC notes. */
export interface Bundle {
  readonly manifests: readonly Manifest[];
  readonly rbac: Rbac;
}

/**
 * generateBundle returns everything needed to run the operator for a Katalog, in apply order:
 * the Namespace, the CRDs, the admission policies of generatePolicies, the RBAC of generateRbac, a ConfigMap holding the Katalog, the operator
 * Deployment (`run --katalog …`, leader election, probes on :8081, metrics on :8080, non-root and
 * read-only) and a Service for the metrics port.
 */
export function generateBundle(katalog: Katalog, options: BundleOptions): Bundle {
  const name = katalog.metadata.name;
  const ns = options.namespace;
  const rbac = generateRbac(katalog, { namespace: ns });
  const selector = { ...instanceLabels(katalog), 'app.kubernetes.io/component': 'operator' };
  const configMapName = `${name}-katalog`;
  // An entry that converts versions: the operator serves its webhook on :9443 (`ork run`'s default)
  // behind the Service the CRDs point at (docs/reference/runtime.md §26).
  // An entry with an admission webhook rule: the same endpoint judges it (ADR 0089), or applies
  // its mutations (ADR 0092).
  const webhook =
    Object.values(katalog.spec.crds).some((entry) => entry.conversion != null) ||
    needsAdmissionWebhook(katalog) ||
    needsMutatingWebhook(katalog);
  const namespace: Manifest = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: manifestMetadata(katalog, ns),
  };
  const configMap: Manifest = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: manifestMetadata(katalog, configMapName, ns),
    data: { 'katalog.yaml': options.katalogText },
  };
  const podMeta = manifestMetadata(katalog, name, ns) as { labels: Record<string, string> };
  const deployment: Manifest = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: manifestMetadata(katalog, name, ns),
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...podMeta.labels, ...selector } },
        spec: {
          serviceAccountName: name,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            fsGroup: 65532,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'operator',
              image: options.image,
              args: [
                'run',
                '--katalog',
                `${KATALOG_MOUNT_PATH}/katalog.yaml`,
                '--leader-elect=true',
                '--metrics-bind-address=:8080',
                '--health-probe-bind-address=:8081',
                // Given explicitly: the admission webhook is served only when asked for (ADR 0089).
                ...(webhook ? ['--webhook-bind-address=:9443'] : []),
              ],
              env: [
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'LOG_LEVEL', value: 'info' },
              ],
              ports: [
                { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
                { name: 'health', containerPort: 8081, protocol: 'TCP' },
                ...(webhook ? [{ name: 'webhook', containerPort: 9443, protocol: 'TCP' }] : []),
              ],
              livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 10 },
              readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 5 },
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                { name: 'katalog', mountPath: KATALOG_MOUNT_PATH, readOnly: true },
                { name: 'work', mountPath: '/var/lib/orkestra' },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'katalog', configMap: { name: configMapName } },
            // Past a sizeLimit the kubelet evicts the pod; the operator stops git before that, at
            // --max-work-dir-bytes (1 GiB by default, docs/reference/runtime.md §14.3).
            { name: 'work', emptyDir: { sizeLimit: WORK_DIR_SIZE_LIMIT } },
            { name: 'tmp', emptyDir: { sizeLimit: TMP_SIZE_LIMIT } },
          ],
        },
      },
    },
  };
  const service: Manifest = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: manifestMetadata(katalog, `${name}-metrics`, ns),
    spec: {
      selector,
      ports: [{ name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' }],
    },
  };
  const webhookService: Manifest[] = webhook
    ? [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: manifestMetadata(katalog, WEBHOOK_SERVICE, ns),
          spec: {
            selector,
            ports: [{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }],
          },
        },
      ]
    : [];
  return {
    manifests: [
      namespace,
      ...generateCrds(katalog, { webhook: webhookClientConfigOf(WEBHOOK_SERVICE, ns) }),
      ...generatePolicies(katalog, ns),
      ...rbac.manifests,
      configMap,
      deployment,
      service,
      ...webhookService,
    ],
    rbac,
  };
}

/**
 * generatePolicies returns the ValidatingAdmissionPolicies (and bindings) of a Katalog: its entries'
 * deny and warn rules (docs/reference/katalog.md §12, ADR 0049) and its deletion protection (§2.4, ADR 0050),
 * then the Validating- and MutatingWebhookConfigurations of the rules CEL and schema defaults cannot
 * express (ADR 0089, ADR 0092) and, for a sharded operator, the shard-assignment webhook's (ADR 0110; default: the
 * webhook Service of `namespace`; `false`: none, for an operator that serves no webhook).
 * `namespace` is the operator's, whose service accounts may delete protected children.
 */
export function generatePolicies(
  katalog: Katalog,
  namespace: string,
  users: readonly string[] = [],
  webhook: AdmissionWebhookTarget | false = {
    target: { service: { namespace, name: WEBHOOK_SERVICE, port: 443 } },
  },
): Manifest[] {
  const configs =
    webhook === false
      ? []
      : [
          ...(webhook.katalogRules === false
            ? []
            : [
                mutatingWebhookConfiguration(katalog, webhook.target, webhook.caBundle),
                admissionWebhookConfiguration(katalog, webhook.target, webhook.caBundle),
              ]),
          webhook.sharding === true
            ? shardWebhookConfiguration(katalog, webhook.target, webhook.caBundle)
            : undefined,
        ].filter((config) => config != null);
  return [
    ...admissionPolicies(katalog),
    ...deletionProtectionPolicies(katalog, { namespace, users }),
    ...configs,
  ];
}

/** AdmissionWebhookTarget is where the admission webhook's configuration points (ADR 0089), and its CA bundle when known. */
export interface AdmissionWebhookTarget {
  readonly target: WebhookClientConfig;
  readonly caBundle?: string;
  /** The operator runs sharded: also the shard-assignment webhook's configuration (docs/reference/runtime.md §25.2, ADR 0110). */
  readonly sharding?: boolean;
  /** False: the endpoint serves only the shard-assignment webhook, so the Katalog rules' configurations are left out. Default true. */
  readonly katalogRules?: boolean;
}
