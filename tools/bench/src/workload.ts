/**
 * The benchmark workload: N custom resources, each producing a Deployment, a Service, a ConfigMap
 * and a Secret. The same four objects are declared three times, once per system: as plain
 * manifests for the raw floor, as a Katalog for Orkestra and as a ResourceGraphDefinition for kro.
 * `spec.message` flows into the ConfigMap only, so changing it is a one-child change.
 */

/** BenchSpec is the spec of one workload CR. */
export interface BenchSpec {
  readonly image: string;
  readonly replicas: number;
  readonly message: string;
}

/** KubeManifest is a plain Kubernetes object as sent to the API server. */
export interface KubeManifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly [key: string]: unknown;
}

/** CrResource names a custom resource type (group, version, kind, plural). */
export interface CrResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/** ORKESTRA_RESOURCE is the CR type the Orkestra Katalog defines. */
export const ORKESTRA_RESOURCE: CrResource = {
  group: 'bench.orkestra.dev',
  version: 'v1alpha1',
  kind: 'BenchApp',
  plural: 'benchapps',
};

/** KRO_RESOURCE is the instance type kro generates from the ResourceGraphDefinition. */
export const KRO_RESOURCE: CrResource = {
  group: 'kro.run',
  version: 'v1alpha1',
  kind: 'KroBenchApp',
  plural: 'krobenchapps',
};

/**
 * KRO_DEFAULT_RESYNC_RESOURCE is the instance type of the second kro run, at kro's default resync
 * period: a separate graph and kind, so the two kro runs of a round never reconcile each other's
 * instances.
 */
export const KRO_DEFAULT_RESYNC_RESOURCE: CrResource = {
  group: 'kro.run',
  version: 'v1alpha1',
  kind: 'KroBenchAppDefault',
  plural: 'krobenchappdefaults',
};

/** CHILD_RESOURCES are the `group/resource` names of the four children (core group empty). */
export const CHILD_RESOURCES: ReadonlySet<string> = new Set([
  'apps/deployments',
  '/services',
  '/configmaps',
  '/secrets',
]);

/** crName is the name of the `index`-th CR: `app-0000`, `app-0001`, … */
export function crName(index: number): string {
  return `app-${String(index).padStart(4, '0')}`;
}

/** warmName is the name of the index-th untimed warm-up CR. */
export function warmName(index: number): string {
  return `warm-${String(index).padStart(4, '0')}`;
}

/** ChildNames are the names of one CR's four children. */
export interface ChildNames {
  readonly deployment: string;
  readonly service: string;
  readonly configMap: string;
  readonly secret: string;
}

/** childNames returns the names of the children of CR `name` (the same in every system). */
export function childNames(name: string): ChildNames {
  return { deployment: name, service: name, configMap: `${name}-config`, secret: `${name}-secret` };
}

/** initialSpec is the spec every CR starts with. */
export function initialSpec(name: string): BenchSpec {
  return { image: 'nginx:1.27', replicas: 1, message: `hello ${name}` };
}

/**
 * floorManifests returns the four objects of CR `name` as plain manifests: the same names, pod
 * template, ports and data as the Katalog and the ResourceGraphDefinition produce, without any
 * operator bookkeeping (owner references, labels, annotations).
 */
export function floorManifests(name: string, namespace: string, spec: BenchSpec): KubeManifest[] {
  const names = childNames(name);
  const selector = { app: name };
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: names.secret, namespace },
      type: 'Opaque',
      data: { token: Buffer.from(name, 'utf8').toString('base64') },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: names.configMap, namespace },
      data: { message: spec.message },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: names.service, namespace },
      spec: { selector, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: names.deployment, namespace, labels: selector },
      spec: {
        replicas: spec.replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: selector },
          spec: {
            containers: [{ name: names.deployment, image: spec.image, ports: [{ containerPort: 8080 }] }],
          },
        },
      },
    },
  ];
}

const specSchema = {
  type: 'object',
  required: ['image', 'message'],
  properties: {
    image: { type: 'string' },
    replicas: { type: 'integer', minimum: 0 },
    message: { type: 'string' },
  },
} as const;

/**
 * orkestraKatalogText is the bench Katalog: one CRD entry with the four children in onReconcile,
 * `workers` concurrent reconciles and the given resync interval.
 */
export function orkestraKatalogText(options: { readonly workers: number; readonly resync: string }): string {
  const r = ORKESTRA_RESOURCE;
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata:
  name: bench
  description: The benchmark workload (tools/bench).
spec:
  crds:
    benchapp:
      apiTypes: { group: ${r.group}, version: ${r.version}, kind: ${r.kind}, plural: ${r.plural} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: ${JSON.stringify(specSchema)}
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
      workers: ${options.workers}
      resync: ${options.resync}
      operatorBox:
        onReconcile:
          secrets:
            - name: '{{ metadata.name }}-secret'
              data: { token: '{{ metadata.name }}' }
          configMaps:
            - name: '{{ metadata.name }}-config'
              data: { message: '{{ spec.message }}' }
          services:
            - name: '{{ metadata.name }}'
              port: 80
              targetPort: 8080
          deployments:
            - name: '{{ metadata.name }}'
              image: '{{ spec.image }}'
              replicas: '{{ spec.replicas }}'
              port: 8080
`;
}

/**
 * orkestraCrd is the CustomResourceDefinition for the Katalog's CR type, with the status
 * subresource the runtime writes to (what `ork generate crd` would produce for it).
 */
export function orkestraCrd(): KubeManifest {
  const r = ORKESTRA_RESOURCE;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${r.plural}.${r.group}` },
    spec: {
      group: r.group,
      scope: 'Namespaced',
      names: { kind: r.kind, plural: r.plural, singular: r.kind.toLowerCase(), listKind: `${r.kind}List` },
      versions: [
        {
          name: r.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: specSchema,
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

/**
 * kroGraph is the ResourceGraphDefinition giving kro the same four children per instance. The
 * Secret goes through `stringData`, which the API server stores as the same `data`: kro v0.9.4
 * cannot template `data` itself (its graph check types the values as bytes, so
 * `base64.encode(…)`, a string, is rejected, while at run time it refuses bytes values).
 */
export function kroGraph(r: CrResource = KRO_RESOURCE): KubeManifest {
  const selector = { app: '${schema.metadata.name}' };
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name: `${r.plural}.${r.group}` },
    spec: {
      schema: {
        apiVersion: r.version,
        kind: r.kind,
        spec: {
          image: 'string | default=nginx:1.27',
          replicas: 'integer | default=1',
          message: 'string | default=hello',
        },
      },
      resources: [
        {
          id: 'secret',
          template: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: '${schema.metadata.name}-secret' },
            type: 'Opaque',
            stringData: { token: '${schema.metadata.name}' },
          },
        },
        {
          id: 'config',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.metadata.name}-config' },
            data: { message: '${schema.spec.message}' },
          },
        },
        {
          id: 'service',
          template: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: '${schema.metadata.name}' },
            spec: { selector, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
          },
        },
        {
          id: 'deployment',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: '${schema.metadata.name}', labels: selector },
            spec: {
              replicas: '${schema.spec.replicas}',
              selector: { matchLabels: selector },
              template: {
                metadata: { labels: selector },
                spec: {
                  containers: [
                    {
                      name: '${schema.metadata.name}',
                      image: '${schema.spec.image}',
                      ports: [{ containerPort: 8080 }],
                    },
                  ],
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** crManifest is one CR of `resource` with `spec`. */
export function crManifest(
  resource: CrResource,
  name: string,
  namespace: string,
  spec: BenchSpec,
): KubeManifest {
  return {
    apiVersion: `${resource.group}/${resource.version}`,
    kind: resource.kind,
    metadata: { name, namespace },
    spec,
  };
}
