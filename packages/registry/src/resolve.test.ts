import { describe, expect, it } from 'vitest';
import { normalize } from './compare.js';
import { RegistryError } from './errors.js';
import { kinds } from './kinds/index.js';
import type { KubeObject } from './kube-object.js';
import { shortenLabelValue } from './label-value.js';
import { Annotations, Labels } from './metadata-keys.js';
import type { Owner } from './owner.js';

const owner: Owner = {
  apiVersion: 'demo.example.com/v1',
  kind: 'Website',
  name: 'shop',
  namespace: 'web',
  uid: 'uid-1',
  crd: 'website',
};
const clusterOwner: Owner = {
  apiVersion: 'demo.example.com/v1',
  kind: 'Platform',
  name: 'p',
  uid: 'uid-2',
  crd: 'platform',
};
type Obj = Record<string, unknown>;
const at = (obj: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (o, k) => (o == null ? undefined : ((o as Obj)[/^\d+$/.test(k) ? Number(k) : k] as unknown)),
      obj,
    );

function resolve(key: keyof typeof kinds, entry: Obj, o: Owner = owner): KubeObject {
  return kinds[key].resolve(
    { entry, path: `onReconcile.${key}[0]` },
    o,
    key === 'custom' ? { namespaced: true } : {},
  ).manifest;
}

describe('system metadata', () => {
  it('stamps the owner’s shard on every child of a sharded operator, and nothing otherwise (ADR 0045)', () => {
    expect(
      resolve('configMaps', {}, { ...owner, shard: 'replica-0-0a1b2c3d' }).metadata.labels,
    ).toMatchObject({
      'orkestra.konductor.io/shard': 'replica-0-0a1b2c3d',
    });
    expect(Object.keys(resolve('configMaps', {}).metadata.labels ?? {})).not.toContain(
      'orkestra.konductor.io/shard',
    );
  });

  it('stamps system labels over user labels, the source annotation and an owner reference', () => {
    const m = resolve('configMaps', { labels: { team: 'a' }, annotations: { note: 'x' } });
    expect(m.metadata).toEqual({
      name: 'shop-config',
      namespace: 'web',
      labels: {
        team: 'a',
        'app.kubernetes.io/managed-by': 'orkestra',
        [Labels.OwnerUid]: 'uid-1',
        [Labels.OwnerName]: 'shop',
        [Labels.Crd]: 'website',
      },
      annotations: { note: 'x', [Annotations.Source]: 'onReconcile.configMaps[0]' },
      ownerReferences: [
        {
          apiVersion: 'demo.example.com/v1',
          kind: 'Website',
          name: 'shop',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
  });

  it('rejects reserved label and annotation keys', () => {
    expect(() => resolve('configMaps', { labels: { 'orkestra.konductor.io/x': 'y' } })).toThrow(
      RegistryError,
    );
    expect(() => resolve('configMaps', { labels: { 'app.kubernetes.io/managed-by': 'me' } })).toThrow(
      /reserved/,
    );
    expect(() => resolve('configMaps', { annotations: { 'orkestra.konductor.io/source': 'x' } })).toThrow(
      /reserved/,
    );
  });

  it('gives no owner reference to children in another namespace or cluster-scoped children of a namespaced owner', () => {
    expect(resolve('configMaps', { namespace: 'other' }).metadata.ownerReferences).toBeUndefined();
    expect(resolve('namespaces', {}).metadata.ownerReferences).toBeUndefined();
  });

  it('gives every child of a cluster-scoped owner an owner reference; namespaced children default to `default`', () => {
    const ns = resolve('namespaces', {}, clusterOwner);
    expect(ns.metadata.ownerReferences?.[0]?.uid).toBe('uid-2');
    const cm = resolve('configMaps', { namespace: 'elsewhere' }, clusterOwner);
    expect(cm.metadata.ownerReferences?.[0]?.uid).toBe('uid-2');
    expect(resolve('configMaps', {}, clusterOwner).metadata.namespace).toBe('default');
  });

  it('rejects a namespace on a cluster-scoped kind', () => {
    expect(() => resolve('namespaces', { namespace: 'x' })).toThrow(/cluster-scoped/);
  });

  it('shortens label values longer than 63 characters to 54 + "-" + 8 hex characters', () => {
    const long = 'a'.repeat(70);
    const short = shortenLabelValue(long);
    expect(short).toHaveLength(63);
    expect(short).toMatch(/^a{54}-[0-9a-f]{8}$/);
    expect(shortenLabelValue('a'.repeat(63))).toBe('a'.repeat(63));
    const m = resolve(
      'deployments',
      { name: 'x'.repeat(80), image: 'nginx' },
      { ...owner, name: 'n'.repeat(70) },
    );
    expect(m.metadata.labels?.[Labels.OwnerName]).toBe(shortenLabelValue('n'.repeat(70)));
    expect(m.metadata.labels?.[Labels.Child]).toBe(shortenLabelValue('x'.repeat(80)));
    expect(m.metadata.name).toBe('x'.repeat(80));
  });
});

describe('default names (docs/reference/katalog.md §7.8)', () => {
  it.each([
    ['namespaces', {}, 'shop-ns'],
    ['serviceAccounts', {}, 'shop-sa'],
    ['roles', { rules: [] }, 'shop-role'],
    ['roleBindings', { roleRef: { name: 'r' }, subjects: [] }, 'shop-rolebinding'],
    ['secrets', {}, 'shop-secret'],
    ['configMaps', {}, 'shop-config'],
    ['services', { port: 80 }, 'shop-svc'],
    ['ingresses', { serviceName: 's', servicePort: 80 }, 'shop-ingress'],
    ['hpa', { maxReplicas: 3, scaleTargetRef: { name: 'w' } }, 'shop-hpa'],
    ['pdb', {}, 'shop-pdb'],
    ['deployments', { image: 'nginx' }, 'shop-deployment'],
    ['statefulSets', { image: 'nginx' }, 'shop'],
    ['jobs', { image: 'nginx' }, 'shop-job'],
    ['cronJobs', { image: 'nginx', schedule: '@hourly' }, 'shop-cronjob'],
    ['resourceQuotas', { hard: { pods: 10 } }, 'shop-quota'],
    ['limitRanges', { limits: [{ max: { cpu: '2' } }] }, 'shop-limits'],
    ['replicaSets', { image: 'nginx' }, 'shop-replicaset'],
    ['pods', { image: 'nginx' }, 'shop-pod'],
  ] as const)('%s → %s', (key, entry, name) => {
    expect(resolve(key, entry).metadata.name).toBe(name);
  });

  it.each([
    ['persistentVolumeClaims', { storage: '1Gi' }],
    ['networkPolicies', { profile: 'deny-all' }],
    ['custom', { apiVersion: 'x/v1', kind: 'X' }],
  ] as const)('%s requires a name', (key, entry) => {
    expect(() => resolve(key, entry)).toThrow(/name: is required/);
  });

  it('a default name that is too long is a TemplateError, never truncated', () => {
    const longOwner = { ...owner, name: 'n'.repeat(60) };
    expect(() => resolve('services', { port: 80 }, longOwner)).toThrow(
      expect.objectContaining({ code: 'TemplateError' }),
    );
  });
});

describe('workloads', () => {
  const entry = {
    name: 'web',
    image: 'nginx:1.27',
    port: '8080',
    replicas: '2',
    labels: { team: 'a' },
    podLabels: { tier: 'front' },
    rollingUpdate: { maxSurge: '25%', maxUnavailable: '0' },
    resources: { requests: { cpu: 0.5 }, limits: { memory: '128Mi' } },
  };

  it('selects by owner UID and child name, on the selector and the pod template', () => {
    const m = resolve('deployments', entry);
    const selector = { [Labels.OwnerUid]: 'uid-1', [Labels.Child]: 'web' };
    expect(at(m, 'spec.selector')).toEqual({ matchLabels: selector });
    expect(at(m, 'spec.template.metadata.labels')).toMatchObject({ ...selector, team: 'a', tier: 'front' });
    expect(m.metadata.labels?.[Labels.Child]).toBe('web');
    const other = resolve('deployments', { ...entry, name: 'worker' });
    expect(at(other, 'spec.selector.matchLabels')).not.toEqual(selector);
  });

  it('coerces scalars and applies defaults', () => {
    const m = resolve('deployments', entry);
    expect(at(m, 'spec.replicas')).toBe(2);
    expect(at(m, 'spec.strategy')).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 },
    });
    expect(at(m, 'spec.template.spec.containers.0')).toEqual({
      name: 'web',
      image: 'nginx:1.27',
      ports: [{ containerPort: 8080, protocol: 'TCP' }],
      resources: { requests: { cpu: '0.5' }, limits: { memory: '128Mi' } },
    });
    expect(at(resolve('deployments', { image: 'x' }), 'spec.replicas')).toBe(1);
  });

  it('leaves replicas out when an hpa targets the workload', () => {
    const m = kinds.deployments.resolve({ entry, path: 'p' }, owner, { hpaTargeted: true }).manifest;
    expect(at(m, 'spec')).not.toHaveProperty('replicas');
  });

  it('names the Katalog path and value when a scalar cannot be coerced', () => {
    expect(() => resolve('deployments', { ...entry, replicas: 'three' })).toThrow(
      'onReconcile.deployments[0].replicas: expected an integer, got "three"',
    );
    expect(() => resolve('cronJobs', { image: 'x', schedule: '@daily', suspend: 'maybe' })).toThrow(
      /suspend: expected a boolean/,
    );
    expect(() => resolve('persistentVolumeClaims', { name: 'd', storage: 'big' })).toThrow(
      /storage: expected a quantity/,
    );
    expect(() => resolve('pdb', { minAvailable: '50' + 'x' })).toThrow(/expected an integer or a percentage/);
  });

  it('expands env, envFrom with keys/prefix/suffix, and rejects the env map form', () => {
    const m = resolve('deployments', {
      image: 'x',
      env: [
        { name: 'A', value: 1 },
        { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
      envFrom: {
        secretRef: [{ name: 'db', prefix: 'DB_' }],
        configMapRef: [
          { name: 'shared', keys: ['LOG_LEVEL', 'REGION'], suffix: '_DEFAULT', optional: 'true' },
        ],
      },
    });
    const c = at(m, 'spec.template.spec.containers.0') as Obj;
    expect(c['env']).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      {
        name: 'LOG_LEVEL_DEFAULT',
        valueFrom: { configMapKeyRef: { name: 'shared', key: 'LOG_LEVEL', optional: true } },
      },
      {
        name: 'REGION_DEFAULT',
        valueFrom: { configMapKeyRef: { name: 'shared', key: 'REGION', optional: true } },
      },
    ]);
    expect(c['envFrom']).toEqual([{ prefix: 'DB_', secretRef: { name: 'db' } }]);
    expect(() => resolve('deployments', { image: 'x', env: { A: '1' } })).toThrow(/map form/);
    expect(() =>
      resolve('deployments', { image: 'x', envFrom: { secretRef: [{ name: 'db', suffix: '_X' }] } }),
    ).toThrow(/requires `keys`/);
  });

  it('builds probes: type from path/command, port defaulting to the container port', () => {
    const m = resolve('deployments', {
      image: 'x',
      port: 8080,
      probes: {
        readiness: { path: '/ready', periodSeconds: '5' },
        liveness: {},
        startup: { command: ['check'] },
      },
    });
    const c = at(m, 'spec.template.spec.containers.0') as Obj;
    expect(c['readinessProbe']).toEqual({ httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 });
    expect(c['livenessProbe']).toEqual({ tcpSocket: { port: 8080 } });
    expect(c['startupProbe']).toEqual({ exec: { command: ['check'] } });
    expect(() => resolve('deployments', { image: 'x', probes: { liveness: {} } })).toThrow(
      /port: is required/,
    );
    expect(() => resolve('jobs', { image: 'x', probes: { liveness: {} } })).toThrow(/not allowed for jobs/);
  });

  it('expands security profiles for the container and the pod', () => {
    const m = resolve('deployments', {
      image: 'x',
      securityContext: { profile: 'hardened' },
      podSecurity: { profile: 'restricted' },
    });
    expect(at(m, 'spec.template.spec.containers.0.securityContext')).toEqual({
      privileged: false,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
      readOnlyRootFilesystem: true,
    });
    expect(at(m, 'spec.template.spec.securityContext')).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const baseline = resolve('deployments', {
      image: 'x',
      securityContext: { profile: 'baseline' },
      podSecurity: { profile: 'baseline' },
    });
    expect(at(baseline, 'spec.template.spec.containers.0.securityContext')).toEqual({
      privileged: false,
      allowPrivilegeEscalation: false,
    });
    expect(at(baseline, 'spec.template.spec')).not.toHaveProperty('securityContext');
    expect(() => resolve('deployments', { image: 'x', securityContext: { profile: 'paranoid' } })).toThrow(
      /must be one of/,
    );
  });

  it('builds volumes (secretName accepted) and mounts', () => {
    const m = resolve('deployments', {
      image: 'x',
      volumes: [
        { name: 'a', secret: { secretName: 's' } },
        { name: 'b', emptyDir: { sizeLimit: '1Gi' } },
        { name: 'c', persistentVolumeClaim: { claimName: 'd', readOnly: 'true' } },
      ],
      volumeMounts: [{ name: 'a', mountPath: '/a', readOnly: true }],
    });
    expect(at(m, 'spec.template.spec.volumes')).toEqual([
      { name: 'a', secret: { secretName: 's' } },
      { name: 'b', emptyDir: { sizeLimit: '1Gi' } },
      { name: 'c', persistentVolumeClaim: { claimName: 'd', readOnly: true } },
    ]);
    expect(() => resolve('deployments', { image: 'x', volumes: [{ name: 'a' }] })).toThrow(/exactly one/);
  });

  it('statefulSets default serviceName and mount their claim templates', () => {
    const m = resolve('statefulSets', {
      image: 'x',
      volumeClaimTemplates: [{ storageSize: '1Gi', storageClass: 'fast' }],
    });
    expect(at(m, 'spec.serviceName')).toBe('shop');
    expect(at(m, 'spec.volumeClaimTemplates.0')).toEqual({
      metadata: { name: 'data' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'fast',
        resources: { requests: { storage: '1Gi' } },
      },
    });
    expect(at(m, 'spec.template.spec.containers.0.volumeMounts')).toEqual([
      { name: 'data', mountPath: '/data' },
    ]);
  });

  it('jobs and cronJobs default backoffLimit, restartPolicy, history limits and accept lowercase policies', () => {
    const job = resolve('jobs', { image: 'x' });
    expect(at(job, 'spec.backoffLimit')).toBe(3);
    expect(at(job, 'spec.template.spec.restartPolicy')).toBe('OnFailure');
    expect(kinds.jobs.createOnly).toBe(true);
    const cron = resolve('cronJobs', { image: 'x', schedule: '@hourly', concurrencyPolicy: 'forbid' });
    expect(at(cron, 'spec')).toMatchObject({
      suspend: false,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
  });
});

describe('other kinds', () => {
  it('services select the owner plus the workload, default targetPort and protocol, and support headless', () => {
    const m = resolve('services', { port: 80, workload: 'web', headless: true, selector: { extra: 'x' } });
    expect(at(m, 'spec')).toEqual({
      type: 'ClusterIP',
      clusterIP: 'None',
      ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }],
      selector: { extra: 'x', [Labels.OwnerUid]: 'uid-1', [Labels.Child]: 'web' },
    });
    const viaHint = kinds.services.resolve({ entry: { port: 80 }, path: 'p' }, owner, {
      defaultWorkload: { kind: 'Deployment', name: 'only' },
    });
    expect(at(viaHint.manifest, 'spec.selector')).toMatchObject({ [Labels.Child]: 'only' });
    expect(() => resolve('services', { ports: [{ port: 80 }, { port: 81 }] })).toThrow(/name: is required/);
    expect(() => resolve('services', {})).toThrow(/port: is required/);
  });

  it('ingresses default path, pathType, tls secret and use the CR’s single Service from hints', () => {
    const m = kinds.ingresses.resolve({ entry: { host: 'a.example.com', tls: {} }, path: 'p' }, owner, {
      defaultService: { name: 'shop-svc', port: 80 },
    }).manifest;
    expect(at(m, 'spec')).toEqual({
      rules: [
        {
          host: 'a.example.com',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'shop-svc', port: { number: 80 } } },
              },
            ],
          },
        },
      ],
      tls: [{ hosts: ['a.example.com'], secretName: 'shop-tls' }],
    });
    expect(() => resolve('ingresses', {})).toThrow(/serviceName: is required/);
  });

  it('hpa defaults minReplicas and the CPU target, and drops it when only memory is set', () => {
    const m = resolve('hpa', { maxReplicas: '4', scaleTargetRef: { name: 'web' } });
    expect(at(m, 'spec')).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 4,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ],
    });
    const mem = resolve('hpa', {
      maxReplicas: 4,
      scaleTargetRef: { name: 'web' },
      targetMemoryUtilizationPercentage: 70,
    });
    expect((at(mem, 'spec.metrics') as Obj[]).map((x) => at(x, 'resource.name'))).toEqual(['memory']);
    expect(() => resolve('hpa', { maxReplicas: 1, minReplicas: 2, scaleTargetRef: { name: 'w' } })).toThrow(
      /≥ minReplicas/,
    );
  });

  it('pdb defaults minAvailable: 1 and keeps percentages', () => {
    expect(at(resolve('pdb', {}), 'spec.minAvailable')).toBe(1);
    expect(at(resolve('pdb', { maxUnavailable: '25%' }), 'spec')).toMatchObject({ maxUnavailable: '25%' });
    expect(at(resolve('pdb', { maxUnavailable: '25%' }), 'spec')).not.toHaveProperty('minAvailable');
    expect(() => resolve('pdb', { minAvailable: 1, maxUnavailable: 1 })).toThrow(/exclusive/);
  });

  it('resource quotas write hard limits as quantity strings and compare them canonically', () => {
    const m = resolve('resourceQuotas', {
      hard: { pods: 10, 'requests.cpu': 0.5 },
      scopes: ['NotBestEffort'],
    });
    expect(m['spec']).toEqual({ hard: { pods: '10', 'requests.cpu': '0.5' }, scopes: ['NotBestEffort'] });
    const rules = kinds.resourceQuotas.rules;
    expect(normalize({ hard: { memory: '1Gi' } }, rules)).toEqual(
      normalize({ hard: { memory: '1024Mi' } }, rules),
    );
    expect(() => resolve('resourceQuotas', {})).toThrow(/hard: is required/);
  });

  it('limit ranges default the item type to Container and match items by type', () => {
    const m = resolve('limitRanges', {
      limits: [
        { default: { cpu: 1 }, defaultRequest: { cpu: '100m' } },
        { type: 'Pod', max: { memory: '1Gi' } },
      ],
    });
    expect(m['spec']).toEqual({
      limits: [
        { type: 'Container', default: { cpu: '1' }, defaultRequest: { cpu: '100m' } },
        { type: 'Pod', max: { memory: '1Gi' } },
      ],
    });
    const rules = kinds.limitRanges.rules;
    const a = {
      limits: [
        { type: 'Pod', max: { memory: '1Gi' } },
        { type: 'Container', min: { cpu: '1' } },
      ],
    };
    const b = {
      limits: [
        { type: 'Container', min: { cpu: '1000m' } },
        { type: 'Pod', max: { memory: '1024Mi' } },
      ],
    };
    expect(normalize(a, rules)).toEqual(normalize(b, rules));
  });

  it('replica sets select their pods by owner UID and child name, with one container named after them', () => {
    const m = resolve('replicaSets', { name: 'rs', image: 'nginx', replicas: '3', port: 80 });
    expect(at(m, 'spec.replicas')).toBe(3);
    expect(at(m, 'spec.template.metadata.labels')).toMatchObject(at(m, 'spec.selector.matchLabels') as Obj);
    expect(at(m, 'spec.selector.matchLabels')).toEqual({ [Labels.OwnerUid]: 'uid-1', [Labels.Child]: 'rs' });
    expect(at(m, 'spec.template.spec.containers.0.name')).toBe('rs');
    expect(m.metadata.labels?.[Labels.Child]).toBe('rs');
  });

  it('pods are create-only, with one container named after them, their port and restartPolicy Always', () => {
    const m = resolve('pods', { name: 'solo', image: 'busybox', port: '9090' });
    expect(m.apiVersion).toBe('v1');
    expect(m.kind).toBe('Pod');
    expect(at(m, 'spec.containers.0')).toMatchObject({ name: 'solo', image: 'busybox' });
    expect(at(m, 'spec.containers.0.ports.0.containerPort')).toBe(9090);
    expect(at(m, 'spec.restartPolicy')).toBe('Always');
    expect(kinds.pods.createOnly).toBe(true);
    expect(m.metadata.labels).toMatchObject({ [Labels.OwnerUid]: 'uid-1', [Labels.Child]: 'solo' });
    expect(at(resolve('pods', { image: 'x', restartPolicy: 'Never' }), 'spec.restartPolicy')).toBe('Never');
    expect(() => resolve('pods', { image: 'x', restartPolicy: 'Sometimes' })).toThrow(
      /must be one of Always/,
    );
  });

  it('network policy profiles and derived policyTypes', () => {
    expect(at(resolve('networkPolicies', { name: 'n', profile: 'deny-all' }), 'spec')).toEqual({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
    });
    const m = resolve('networkPolicies', {
      name: 'n',
      podSelector: { app: 'web' },
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: '53', protocol: 'UDP' }] }],
    });
    expect(at(m, 'spec')).toEqual({
      podSelector: { matchLabels: { app: 'web' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ protocol: 'UDP', port: 53 }] }],
    });
  });

  it('secrets base64-encode data; configMaps stringify non-string values; once Secrets are create-only', () => {
    expect(resolve('secrets', { data: { a: 'hi', n: 3 } })['data']).toEqual({ a: 'aGk=', n: 'Mw==' });
    expect(resolve('secrets', {})['type']).toBe('Opaque');
    expect(resolve('configMaps', { data: { n: 3, b: true, m: { x: 1 } } })['data']).toEqual({
      n: '3',
      b: 'true',
      m: '{"x":1}',
    });
    expect(kinds.secrets.resolve({ entry: { once: true }, path: 'p' }, owner).createOnly).toBe(true);
    expect(kinds.secrets.resolve({ entry: {}, path: 'p' }, owner).createOnly).toBe(false);
  });

  it('a copy takes the source data under the declared keys: Secrets keep the source type, ConfigMaps its binaryData (katalog.md §7.2)', () => {
    const secret = resolve('secrets', {
      data: { user: 'me' },
      copiedData: { user: 'b2xk', password: 'cHc=' },
      copiedType: 'kubernetes.io/basic-auth',
    });
    expect(secret['data']).toEqual({ user: 'bWU=', password: 'cHc=' });
    expect(secret['type']).toBe('kubernetes.io/basic-auth');
    const map = resolve('configMaps', {
      data: { level: 'debug', logo: 'text now' },
      copiedData: { level: 'info', region: 'eu' },
      copiedBinaryData: { logo: 'iVBO', blob: 'AAEC' },
    });
    expect(map['data']).toEqual({ level: 'debug', region: 'eu', logo: 'text now' });
    // A declared key wins over a binary one too: a key is never in both maps.
    expect(map['binaryData']).toEqual({ blob: 'AAEC' });
    expect(resolve('configMaps', { copiedData: {} })['binaryData']).toBeUndefined();
  });

  it('roleBindings default roleRef kind, subject kind and namespace', () => {
    const m = resolve('roleBindings', {
      roleRef: { name: 'r' },
      subjects: [{ name: 'sa' }, { kind: 'User', name: 'ann' }],
    });
    expect(m['roleRef']).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' });
    expect(m['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'sa', namespace: 'web' },
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'ann' },
    ]);
  });

  it('custom entries keep their shape, take metadata from `metadata` and need a scope', () => {
    const m = resolve('custom', {
      apiVersion: 'x.io/v1',
      kind: 'Thing',
      metadata: { name: 't', labels: { a: 'b' } },
      spec: { n: 1 },
      when: [],
      prune: false,
    });
    expect(m).toMatchObject({
      apiVersion: 'x.io/v1',
      kind: 'Thing',
      spec: { n: 1 },
      metadata: { name: 't', namespace: 'web', labels: { a: 'b' } },
    });
    expect(m).not.toHaveProperty('when');
    expect(m).not.toHaveProperty('prune');
    expect(() =>
      kinds.custom.resolve(
        { entry: { apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' } }, path: 'p' },
        owner,
      ),
    ).toThrow(/scope/);
    expect(
      kinds.custom.resolve(
        {
          entry: { apiVersion: 'x.io/v1', kind: 'C', namespaced: false, metadata: { name: 't' } },
          path: 'p',
        },
        owner,
      ).ref,
    ).toEqual({
      apiVersion: 'x.io/v1',
      kind: 'C',
      name: 't',
    });
  });
});
