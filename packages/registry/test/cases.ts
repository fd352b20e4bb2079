import type { KindListKey, KubeObject, RenderedEntry, ResolveHints } from '../src/index.js';

/** KindCase is one kind's scenario for the integration suite. */
export interface KindCase {
  readonly key: KindListKey;
  readonly entry: RenderedEntry;
  /** A change of a field the Katalog declares (apply changed). */
  readonly changed: RenderedEntry;
  /** Merge patch another field manager sends to a field we own; `owned(live)` is true once it is corrected. */
  readonly drift: { readonly patch: Record<string, unknown>; readonly owned: (live: KubeObject) => boolean };
  /** An entry the API server rejects, and a field path its causes must name. */
  readonly invalid: { readonly entry: RenderedEntry; readonly field: string };
  readonly hints?: ResolveHints;
  /**
   * Deletion waits on a finalizer (namespace controller; pvc-protection, which testenv's
   * controller manager does not run): a second delete may still find the object, terminating.
   */
  readonly finalizes?: boolean;
}

type Obj = Record<string, unknown>;
const spec = (live: KubeObject): Obj => (live['spec'] ?? {}) as Obj;
const label = (value: string): Record<string, unknown> => ({ metadata: { labels: { team: value } } });
const hasTeamA = (live: KubeObject): boolean => live.metadata.labels?.['team'] === 'a';

/** kindCases lists one case per kind; `ns` makes cluster-scoped names unique per run. */
export function kindCases(ns: string): KindCase[] {
  const workload = { image: 'registry.example.com/web:1.0', labels: { team: 'a' } };
  return [
    {
      key: 'namespaces',
      entry: { name: `${ns}-child`, labels: { team: 'a' } },
      changed: { name: `${ns}-child`, labels: { team: 'b' } },
      drift: { patch: label('x'), owned: (l) => l.metadata.labels?.['team'] === 'b' },
      invalid: { entry: { name: 'Bad_Name' }, field: 'metadata.name' },
      finalizes: true,
    },
    {
      key: 'resourceQuotas',
      entry: {
        name: 'tenant-quota',
        hard: { configmaps: 50, 'requests.storage': '10Gi' },
        labels: { team: 'a' },
      },
      changed: {
        name: 'tenant-quota',
        hard: { configmaps: '60', 'requests.storage': '10240Mi' },
        labels: { team: 'a' },
      },
      drift: {
        patch: { spec: { hard: { configmaps: '1' } } },
        owned: (l) => (spec(l)['hard'] as Obj)['configmaps'] === '60',
      },
      invalid: { entry: { name: 'quota-bad', hard: { 'bad name!': '1' } }, field: 'spec.hard' },
    },
    {
      key: 'limitRanges',
      entry: {
        name: 'tenant-limits',
        limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: 0.1 } }],
        labels: { team: 'a' },
      },
      changed: {
        name: 'tenant-limits',
        limits: [{ type: 'Container', default: { cpu: '1' }, defaultRequest: { cpu: '100m' } }],
        labels: { team: 'a' },
      },
      drift: {
        patch: { spec: { limits: [{ type: 'Container', default: { cpu: '2' } }] } },
        owned: (l) => ((spec(l)['limits'] as Obj[])[0]?.['default'] as Obj | undefined)?.['cpu'] === '1',
      },
      invalid: {
        entry: {
          name: 'limits-bad',
          limits: [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '2' } }],
        },
        field: 'spec.limits[0].default',
      },
    },
    {
      key: 'serviceAccounts',
      entry: { name: 'robot', automountServiceAccountToken: false, labels: { team: 'a' } },
      changed: { name: 'robot', automountServiceAccountToken: 'true', labels: { team: 'a' } },
      drift: {
        patch: { automountServiceAccountToken: false },
        owned: (l) => l['automountServiceAccountToken'] === true,
      },
      invalid: { entry: { name: 'robot-bad', labels: { team: 'not valid!' } }, field: 'metadata.labels' },
    },
    {
      key: 'roles',
      entry: {
        name: 'reader',
        rules: [{ resources: ['configmaps'], verbs: ['get'] }],
        labels: { team: 'a' },
      },
      changed: {
        name: 'reader',
        rules: [{ resources: ['configmaps'], verbs: ['get', 'list'] }],
        labels: { team: 'a' },
      },
      drift: {
        patch: { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }] },
        owned: (l) => JSON.stringify((l['rules'] as Obj[])[0]?.['resources']) === '["configmaps"]',
      },
      invalid: {
        entry: { name: 'reader-bad', rules: [{ resources: ['configmaps'], verbs: [] }] },
        field: 'rules[0].verbs',
      },
    },
    {
      key: 'roleBindings',
      entry: {
        name: 'reader-binding',
        roleRef: { name: 'reader' },
        subjects: [{ name: 'robot' }],
        labels: { team: 'a' },
      },
      changed: {
        name: 'reader-binding',
        roleRef: { name: 'reader' },
        subjects: [{ name: 'robot2' }],
        labels: { team: 'a' },
      },
      drift: {
        patch: { subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'mallory' }] },
        owned: (l) => (l['subjects'] as Obj[])[0]?.['name'] === 'robot2',
      },
      invalid: {
        entry: { name: 'binding-bad', roleRef: { name: 'reader' }, subjects: [{ kind: 'Robot', name: 'x' }] },
        field: 'subjects[0].kind',
      },
    },
    {
      key: 'secrets',
      entry: { name: 'creds', data: { password: 'one' }, labels: { team: 'a' } },
      changed: { name: 'creds', data: { password: 'two' }, labels: { team: 'a' } },
      drift: {
        patch: { data: { password: Buffer.from('hacked').toString('base64') } },
        owned: (l) => (l['data'] as Obj)['password'] === Buffer.from('two').toString('base64'),
      },
      invalid: { entry: { name: 'creds-bad', data: { 'bad key!': 'x' } }, field: 'data[bad key!]' },
    },
    {
      key: 'configMaps',
      entry: { name: 'settings', data: { level: 'info', retries: 3 }, labels: { team: 'a' } },
      changed: { name: 'settings', data: { level: 'debug', retries: 3 }, labels: { team: 'a' } },
      drift: { patch: { data: { level: 'trace' } }, owned: (l) => (l['data'] as Obj)['level'] === 'debug' },
      invalid: { entry: { name: 'settings-bad', data: { 'bad key!': 'x' } }, field: 'data[bad key!]' },
    },
    {
      key: 'persistentVolumeClaims',
      entry: { name: 'data', storage: '1Gi', labels: { team: 'a' } },
      changed: { name: 'data', storage: '1024Mi', labels: { team: 'b' } },
      drift: { patch: label('x'), owned: (l) => l.metadata.labels?.['team'] === 'b' },
      invalid: {
        entry: { name: 'data-bad', storage: '1Gi', accessModes: ['Sometimes'] },
        field: 'spec.accessModes',
      },
      finalizes: true,
    },
    {
      key: 'services',
      entry: { name: 'web-svc', port: 80, targetPort: 8080, workload: 'web', labels: { team: 'a' } },
      changed: { name: 'web-svc', port: 80, targetPort: '9090', workload: 'web', labels: { team: 'a' } },
      drift: {
        patch: { spec: { ports: [{ port: 80, targetPort: 1234, protocol: 'TCP' }] } },
        owned: (l) => ((spec(l)['ports'] as Obj[])[0] as Obj)['targetPort'] === 9090,
      },
      invalid: { entry: { name: 'web-svc-bad', port: 70000 }, field: 'spec.ports[0].port' },
    },
    {
      key: 'deployments',
      entry: {
        ...workload,
        name: 'web',
        port: 8080,
        replicas: 2,
        resources: { requests: { cpu: 0.5, memory: '64Mi' } },
      },
      changed: {
        ...workload,
        name: 'web',
        port: 8080,
        replicas: '3',
        resources: { requests: { cpu: '500m', memory: '64Mi' } },
      },
      drift: { patch: { spec: { replicas: 7 } }, owned: (l) => spec(l)['replicas'] === 3 },
      invalid: {
        entry: { ...workload, name: 'web-bad', port: 70000 },
        field: 'spec.template.spec.containers[0].ports[0].containerPort',
      },
    },
    {
      key: 'statefulSets',
      entry: { ...workload, name: 'db', port: 5432, volumeClaimTemplates: [{ storage: '1Gi' }] },
      changed: {
        ...workload,
        name: 'db',
        port: 5432,
        replicas: 2,
        volumeClaimTemplates: [{ storage: '1Gi' }],
      },
      drift: { patch: { spec: { replicas: 5 } }, owned: (l) => spec(l)['replicas'] === 2 },
      invalid: {
        entry: { ...workload, name: 'db-bad', port: 70000 },
        field: 'spec.template.spec.containers[0].ports[0].containerPort',
      },
    },
    {
      key: 'replicaSets',
      entry: { ...workload, name: 'web-rs', port: 8080, replicas: 1 },
      changed: { ...workload, name: 'web-rs', port: 8080, replicas: '2' },
      drift: { patch: { spec: { replicas: 7 } }, owned: (l) => spec(l)['replicas'] === 2 },
      invalid: {
        entry: { ...workload, name: 'web-rs-bad', port: 70000 },
        field: 'spec.template.spec.containers[0].ports[0].containerPort',
      },
    },
    {
      key: 'jobs',
      entry: { ...workload, name: 'migrate', command: ['true'] },
      changed: { ...workload, name: 'migrate', command: ['false'] },
      drift: { patch: label('x'), owned: hasTeamA },
      invalid: { entry: { ...workload, name: 'migrate-bad', backoffLimit: -1 }, field: 'spec.backoffLimit' },
    },
    {
      key: 'cronJobs',
      entry: { ...workload, name: 'nightly', schedule: '0 3 * * *' },
      changed: { ...workload, name: 'nightly', schedule: '0 4 * * *', concurrencyPolicy: 'forbid' },
      drift: { patch: { spec: { suspend: true } }, owned: (l) => spec(l)['suspend'] === false },
      invalid: { entry: { ...workload, name: 'nightly-bad', schedule: 'every day' }, field: 'spec.schedule' },
    },
    {
      key: 'ingresses',
      entry: {
        name: 'web-ingress',
        host: 'a.example.com',
        serviceName: 'web-svc',
        servicePort: 80,
        labels: { team: 'a' },
      },
      changed: {
        name: 'web-ingress',
        host: 'b.example.com',
        serviceName: 'web-svc',
        servicePort: 80,
        labels: { team: 'a' },
      },
      drift: {
        patch: {
          spec: {
            rules: [
              {
                host: 'evil.example.com',
                http: {
                  paths: [
                    {
                      path: '/',
                      pathType: 'Prefix',
                      backend: { service: { name: 'evil', port: { number: 80 } } },
                    },
                  ],
                },
              },
            ],
          },
        },
        owned: (l) => ((spec(l)['rules'] as Obj[])[0] as Obj)['host'] === 'b.example.com',
      },
      invalid: {
        entry: { name: 'web-ingress-bad', serviceName: 'web-svc', servicePort: 80, pathType: 'Sometimes' },
        field: 'spec.rules[0].http.paths[0].pathType',
      },
    },
    {
      key: 'hpa',
      entry: { name: 'web-hpa', maxReplicas: 5, scaleTargetRef: { name: 'web' }, labels: { team: 'a' } },
      changed: { name: 'web-hpa', maxReplicas: '6', scaleTargetRef: { name: 'web' }, labels: { team: 'a' } },
      drift: { patch: { spec: { minReplicas: 4 } }, owned: (l) => spec(l)['minReplicas'] === 1 },
      invalid: {
        entry: { name: 'web-hpa-bad', minReplicas: 0, maxReplicas: 0, scaleTargetRef: { name: 'web' } },
        field: 'spec.maxReplicas',
      },
    },
    {
      key: 'pdb',
      entry: { name: 'web-pdb', workload: 'web', labels: { team: 'a' } },
      changed: { name: 'web-pdb', workload: 'web', minAvailable: '50%', labels: { team: 'a' } },
      drift: { patch: { spec: { minAvailable: 3 } }, owned: (l) => spec(l)['minAvailable'] === '50%' },
      invalid: {
        entry: { name: 'web-pdb-bad', workload: 'web', minAvailable: -1 },
        field: 'spec.minAvailable',
      },
    },
    {
      key: 'networkPolicies',
      entry: { name: 'lockdown', profile: 'deny-all-ingress', labels: { team: 'a' } },
      changed: { name: 'lockdown', profile: 'deny-all', labels: { team: 'a' } },
      drift: {
        patch: { spec: { policyTypes: ['Egress'] } },
        owned: (l) => JSON.stringify(spec(l)['policyTypes']) === '["Ingress","Egress"]',
      },
      invalid: {
        entry: { name: 'lockdown-bad', ingress: [{ ports: [{ port: 70000 }] }] },
        field: 'spec.ingress[0].ports[0].port',
      },
    },
    {
      key: 'custom',
      entry: {
        apiVersion: 'test.orkestra.dev/v1',
        kind: 'Widget',
        metadata: { name: 'w1', labels: { team: 'a' } },
        spec: { replicas: 1, color: 'red' },
      },
      changed: {
        apiVersion: 'test.orkestra.dev/v1',
        kind: 'Widget',
        metadata: { name: 'w1', labels: { team: 'a' } },
        spec: { replicas: 1, color: 'blue' },
      },
      drift: { patch: { spec: { color: 'green' } }, owned: (l) => spec(l)['color'] === 'blue' },
      invalid: {
        entry: {
          apiVersion: 'test.orkestra.dev/v1',
          kind: 'Widget',
          metadata: { name: 'w-bad' },
          spec: { replicas: -1 },
        },
        field: 'spec.replicas',
      },
    },
  ];
}

/** WIDGET_CRD is the CRD the custom-kind cases use. */
export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.orkestra.dev' },
  spec: {
    group: 'test.orkestra.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { replicas: { type: 'integer', minimum: 0 }, color: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
} as const;
