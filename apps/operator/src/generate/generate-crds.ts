import { storedVersionOf } from '@orkestra/types';
import type { CrdEntry, CrdVersion, Katalog } from '@orkestra/types';
import { planAdmission, withAdmission } from './admission.js';
import { crdVersionsOf } from './admission-versions.js';
import { manifestMetadata } from './manifest-meta.js';
import type { Manifest } from './manifest-meta.js';

type Schema = Record<string, unknown>;

const OPEN: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** Status keys the runtime writes (docs/reference/katalog.md §13.1); added to a declared status schema so the API server keeps them. */
const RUNTIME_STATUS: Record<string, Schema> = {
  observedGeneration: { type: 'integer', format: 'int64' },
  conditions: {
    type: 'array',
    items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
  inventory: {
    type: 'array',
    items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
  providers: OPEN,
  // the Katalog revision the CR was last reconciled with (docs/reference/runtime.md §24.2).
  katalogRevision: { type: 'string' },
};

const PRINTER_COLUMNS = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  // docs/adr/0009-synced-ready.md: Synced is the reconcile's outcome; Reason is Ready's (it names why it is not ready).
  { name: 'Synced', type: 'string', jsonPath: '.status.conditions[?(@.type=="Synced")].status' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

function isSchema(value: unknown): value is Schema {
  return value != null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * untypedProperties finds properties without a `type` (and without `x-kubernetes-int-or-string`),
 * which the API server rejects in a structural schema; paths are dot paths from the schema root
 * (`spec.schedule`).
 */
export function untypedProperties(schema: unknown, path = ''): string[] {
  if (!isSchema(schema)) return [];
  const found: string[] = [];
  const props = schema['properties'];
  if (isSchema(props)) {
    for (const [key, child] of Object.entries(props)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      if (isSchema(child) && child['type'] == null && child['x-kubernetes-int-or-string'] !== true)
        found.push(childPath);
      else found.push(...untypedProperties(child, childPath));
    }
  }
  if (isSchema(schema['items'])) found.push(...untypedProperties(schema['items'], `${path}.*`));
  return found;
}

/** Drops untyped properties and lets their parent keep unknown fields, so the schema is structural. */
function dropUntyped(schema: Schema): void {
  const props = schema['properties'];
  if (isSchema(props)) {
    const kept: Schema = {};
    let dropped = false;
    for (const [key, child] of Object.entries(props)) {
      if (isSchema(child) && child['type'] == null && child['x-kubernetes-int-or-string'] !== true) {
        dropped = true;
        continue;
      }
      if (isSchema(child)) dropUntyped(child);
      kept[key] = child;
    }
    schema['properties'] = kept;
    if (dropped) schema['x-kubernetes-preserve-unknown-fields'] = true;
  }
  if (isSchema(schema['items'])) dropUntyped(schema['items']);
}

/**
 * crdSchema returns the openAPIV3Schema of an entry's CRD: the declared schema with a `status`
 * that keeps what the runtime writes, or, without a schema, `spec` and `status` that preserve
 * unknown fields (docs/reference/katalog.md §3). A property without a `type` (e.g. a field that is a string or a
 * map) cannot be expressed in a structural schema: it is left out and its parent preserves unknown
 * fields instead (`untypedProperties` lists them so the CLI can say so). Validation rules and
 * defaults the API server can apply itself are added to `spec` (ADR 0049).
 */
export function crdSchema(entry: CrdEntry, version?: CrdVersion): Schema {
  const declared =
    version?.schema?.openAPIV3Schema ??
    (version == null || version.name === entry.apiTypes.version ? entry.schema?.openAPIV3Schema : undefined);
  const description = entry.description === '' ? {} : { description: entry.description };
  if (declared == null) {
    return { type: 'object', ...description, properties: { spec: OPEN, status: OPEN } };
  }
  const root: Schema = structuredClone(declared) as Schema;
  root['type'] ??= 'object';
  dropUntyped(root);
  if (root['description'] == null && entry.description !== '') root['description'] = entry.description;
  const properties: Schema = isSchema(root['properties']) ? { ...root['properties'] } : {};
  // Deny rules the CRD can judge and literal defaults (docs/reference/katalog.md §12, ADR 0049).
  // The rules are written against the schema of the version the runtime reads (ADR 0056).
  // A rule scoped to another served version goes on that version's schema (ADR 0069).
  // The rules of the runtime's version reach another version's schema translated (ADR 0102).
  const name = version?.name ?? entry.apiTypes.version;
  const judged =
    name === entry.apiTypes.version || (entry.validation?.rules ?? []).some((r) => r.version === name);
  const carried = name === entry.apiTypes.version ? undefined : planAdmission(entry).atVersions.get(name);
  if ((judged || carried !== undefined) && isSchema(properties['spec'])) {
    const own = judged ? planAdmission(entry, name) : undefined;
    const crdRules = [...(carried?.crdRules ?? []), ...(own?.crdRules ?? [])];
    const rootRules = [...(carried?.rootRules ?? []), ...(own?.rootRules ?? [])];
    properties['spec'] = withAdmission(properties['spec'], { crdRules, defaults: own?.defaults ?? [] });
    if (rootRules.length > 0)
      root['x-kubernetes-validations'] = [
        ...((root['x-kubernetes-validations'] as unknown[] | undefined) ?? []),
        ...rootRules,
      ];
  }
  const status = properties['status'];
  if (!isSchema(status)) {
    properties['status'] = OPEN;
  } else if (status['x-kubernetes-preserve-unknown-fields'] !== true) {
    const statusProps: Schema = isSchema(status['properties']) ? { ...status['properties'] } : {};
    for (const [key, schema] of Object.entries(RUNTIME_STATUS)) statusProps[key] ??= schema;
    properties['status'] = { ...status, type: status['type'] ?? 'object', properties: statusProps };
  }
  root['properties'] = properties;
  return root;
}

/** WebhookClientConfig is where the API server sends ConversionReviews (docs/reference/runtime.md §26). */
export type WebhookClientConfig =
  | { readonly service: { readonly namespace: string; readonly name: string; readonly port?: number } }
  | { readonly url: string };

/** CrdOptions configures the CRDs of entries with several versions. */
export interface CrdOptions {
  /** Where conversion requests go. Default the chart's Service `orkestra-webhook` in `orkestra-system`, port 443. */
  readonly webhook?: WebhookClientConfig;
  /** PEM CA bundle to write into the conversion config (the operator patches it at start otherwise). */
  readonly caBundle?: string;
}

/** WEBHOOK_SERVICE is the chart's webhook Service name (deploy/helm/orkestra/templates/service.yaml). */
const WEBHOOK_SERVICE = 'orkestra-webhook';

/**
 * webhookClientConfigOf reads `--webhook-service` as `ork run` does (docs/reference/runtime.md §26):
 * an https:// URL, or a Service name of the operator namespace `namespace` (port 443).
 */
export function webhookClientConfigOf(service: string, namespace: string): WebhookClientConfig {
  return service.startsWith('https://')
    ? { url: service }
    : { service: { namespace, name: service, port: 443 } };
}

/** conversionOf returns the CRD's `spec.conversion`: a webhook when the entry declares conversion. */
function conversionOf(entry: CrdEntry, options: CrdOptions = {}): Schema | undefined {
  if (entry.conversion == null) return undefined;
  const target = options.webhook ?? {
    service: { namespace: 'orkestra-system', name: WEBHOOK_SERVICE, port: 443 },
  };
  const clientConfig: Schema =
    'url' in target
      ? { url: `${target.url.replace(/\/+$/, '')}/convert` }
      : { service: { ...target.service, path: '/convert' } };
  if (options.caBundle != null) clientConfig['caBundle'] = Buffer.from(options.caBundle).toString('base64');
  return { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig } };
}

/**
 * crdFor builds the CustomResourceDefinition of one CRD entry: its versions (one, or each of
 * `versions` with its own schema; the storage version marked), the status subresource,
 * Ready/Reason/Age columns and, with `conversion`, the conversion webhook (ADR 0056).
 */
export function crdFor(katalog: Katalog, entry: CrdEntry, options: CrdOptions = {}): Manifest {
  const { group, kind, plural, singular, shortNames } = entry.apiTypes;
  const storage = storedVersionOf(entry);
  const conversion = conversionOf(entry, options);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: manifestMetadata(katalog, `${plural}.${group}`),
    spec: {
      group,
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: singular ?? kind.toLowerCase(),
        ...(shortNames == null || shortNames.length === 0 ? {} : { shortNames: [...shortNames] }),
      },
      scope: entry.namespaced ? 'Namespaced' : 'Cluster',
      versions: crdVersionsOf(entry).map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.name === storage,
        ...(v.deprecated == null ? {} : { deprecated: v.deprecated }),
        ...(v.deprecationWarning == null ? {} : { deprecationWarning: v.deprecationWarning }),
        schema: { openAPIV3Schema: crdSchema(entry, v) },
        subresources: { status: {} },
        additionalPrinterColumns: PRINTER_COLUMNS,
      })),
      ...(conversion == null ? {} : { conversion }),
    },
  };
}

/** generateCrds returns one CRD per CRD entry of the Katalog (disabled entries too: their CRs still exist). */
export function generateCrds(katalog: Katalog, options: CrdOptions = {}): Manifest[] {
  return Object.values(katalog.spec.crds).map((entry) => crdFor(katalog, entry, options));
}
