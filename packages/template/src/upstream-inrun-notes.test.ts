import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from './template-engine.js';
import { UPSTREAM_HELPER_HINTS } from './upstream-helpers.js';
import { toInt64 } from './upstream-inrun-notes.js';

/**
 * The notes of upstream's newest generation (docs/reference/katalog.md §17.6.1, §17.6.2), over
 * objects written here from the Kubernetes API's shapes and the shapes upstream's enrichment adds,
 * with the results upstream's documentation gives for each.
 */

const engine = createTemplateEngine();
const render = (source: string, children: Record<string, unknown> = {}, spec: unknown = {}): string =>
  String(engine.renderTemplate(source, { metadata: { name: 'web' }, spec, children } as never));

const deployment = {
  metadata: {
    name: 'web',
    labels: {
      'app.kubernetes.io/name': 'my-app',
      'replica-count': '3',
      app: 'frontend',
      env: 'prod',
      empty: '',
    },
    annotations: { 'autoscale/min-replicas': '0x10', 'autoscale/enabled': 'yes', bad: 'many' },
  },
  spec: { replicas: 3 },
  status: {
    readyReplicas: 3,
    currentReplicaSet: 'web-b',
    loadBalancer: { ingress: [{ ip: '1.2.3.4' }] },
    conditions: [],
    paused: false,
    ratio: 1.5,
  },
  _warnings: [
    { reason: 'BackOff', message: 'Back-off restarting failed container' },
    { reason: 'Unhealthy', message: 'Liveness probe failed' },
  ],
  _replicaSets: [{ metadata: { name: 'web-a' } }, { metadata: { name: 'web-b' } }],
};

describe('upstream single-key notes', () => {
  it('getLabel, getLabelInt, hasLabel', () => {
    const c = { deployment };
    expect(render('{{ getLabel .children.deployment "app.kubernetes.io/name" }}', c)).toBe('my-app');
    expect(render('{{ getLabel .children.deployment "missing" }}|{{ getLabel .children.none "x" }}', c)).toBe(
      '|',
    );
    expect(render('{{ getLabelInt .children.deployment "replica-count" }}', c)).toBe('3');
    expect(render('{{ getLabelInt .children.deployment "app" }}', c)).toBe('0');
    expect(
      render('{{ hasLabel .children.deployment "app" }} {{ hasLabel .children.deployment "empty" }}', c),
    ).toBe('true false');
  });

  it('getAnnotation, getAnnotationInt (hexadecimal too), hasAnnotation', () => {
    const c = { deployment };
    expect(render('{{ getAnnotation .children.deployment "autoscale/enabled" }}', c)).toBe('yes');
    expect(render('{{ getAnnotationInt .children.deployment "autoscale/min-replicas" }}', c)).toBe('16');
    expect(render('{{ getAnnotationInt .children.deployment "bad" }}', c)).toBe('0');
    expect(render('{{ hasAnnotation .children.deployment "autoscale/enabled" }}', c)).toBe('true');
    expect(render('{{ hasAnnotation .children.deployment "nope" }}', c)).toBe('false');
  });

  it('labelMatches needs every pair; an odd count is a non-match', () => {
    const c = { deployment };
    expect(render('{{ labelMatches .children.deployment "app" "frontend" "env" "prod" }}', c)).toBe('true');
    expect(render('{{ labelMatches .children.deployment "app" "frontend" "env" "dev" }}', c)).toBe('false');
    expect(render('{{ labelMatches .children.deployment "app" }}', c)).toBe('false');
    expect(render('{{ labelMatches .children.deployment }}', c)).toBe('true');
  });

  it('getStatus gives scalars as text and "" for structures; hasStatus is true for false and 0', () => {
    const c = { deployment };
    expect(render('{{ getStatus .children.deployment "readyReplicas" }}', c)).toBe('3');
    expect(render('{{ getStatus .children.deployment "ratio" }}', c)).toBe('1.5');
    expect(render('{{ getStatus .children.deployment "loadBalancer" }}|', c)).toBe('|');
    expect(render('{{ hasStatus .children.deployment "loadBalancer" }}', c)).toBe('true');
    expect(render('{{ hasStatus .children.deployment "conditions" }}', c)).toBe('false');
    expect(render('{{ hasStatus .children.deployment "paused" }}', c)).toBe('true');
    expect(render('{{ hasStatus .children.deployment "missing" }}', c)).toBe('false');
  });

  it('domainHost and domainBare', () => {
    const r = (d: unknown): string => render('{{ domainHost .spec.d }}|{{ domainBare .spec.d }}', {}, { d });
    expect(r('https://www.acme.com/')).toBe('www.acme.com|acme.com');
    expect(r(' http://acme.example.com ')).toBe('acme.example.com|acme.example.com');
    expect(r('acme.example.com')).toBe('acme.example.com|acme.example.com');
    expect(r(42)).toBe('|');
  });

  it('replicasReady: absent or zero replicas count as one', () => {
    const r = (obj: unknown): string =>
      render('{{ replicasReady .children.deployment }}', { deployment: obj });
    expect(r(deployment)).toBe('true');
    expect(r({ spec: { replicas: 3 }, status: { readyReplicas: 2 } })).toBe('false');
    expect(r({ spec: {}, status: { readyReplicas: 1 } })).toBe('true');
    expect(r({ spec: { replicas: 0 }, status: {} })).toBe('false');
    expect(r({ spec: { replicas: 0 }, status: { readyReplicas: 1 } })).toBe('true');
    expect(r(undefined)).toBe('false');
  });

  it('toInt64 converts as upstream does', () => {
    expect([
      toInt64('12'),
      toInt64(' 7 '),
      toInt64('0x1f'),
      toInt64('2.9'),
      toInt64('x'),
      toInt64(true),
    ]).toEqual([12, 7, 31, 2, 0, 1]);
  });
});

describe('upstream serve provenance notes', () => {
  const cr = (annotations: Record<string, unknown>) => ({ metadata: { name: 'web', annotations } });
  const all =
    '{{ getServeTarget .children.x }}|{{ getServeAlias .children.x }}|{{ getServeSource .children.x }}|' +
    '{{ hasServeTarget .children.x }} {{ hasServeAlias .children.x }} {{ hasServeSource .children.x }} {{ isDirectApply .children.x }}';

  it('read the annotations Inrun’s gateway stamps', () => {
    const x = cr({
      'inrun.dev/serve-target': 'smartapp',
      'inrun.dev/serve-alias': 'public',
      'inrun.dev/serve-source': 'github',
    });
    expect(render(all, { x })).toBe('smartapp|public|github|true true true false');
  });

  it('read the older generation’s keys too; a primary-target CR has no alias', () => {
    const x = cr({ 'orkestra.orkspace.io/serve-target': 'smartapp' });
    expect(render(all, { x })).toBe('smartapp|||true false false false');
  });

  it('a CR applied any other way is a direct apply; a non-string or an absent object gives ""', () => {
    expect(render(all, { x: cr({ 'inrun.dev/serve-alias': 7 }) })).toBe('|||false false false true');
    expect(render(all, {})).toBe('|||false false false true');
  });
});

describe('upstream notes over enrichment', () => {
  it('events: _warnings', () => {
    const c = { deployment };
    expect(render('{{ hasWarnings .children.deployment }} {{ warningCount .children.deployment }}', c)).toBe(
      'true 2',
    );
    expect(render('{{ firstWarning .children.deployment }}', c)).toBe('Back-off restarting failed container');
    expect(render('{{ warningMessages .children.deployment }}', c)).toBe(
      'Back-off restarting failed container, Liveness probe failed',
    );
    expect(render('{{ warningReasons .children.deployment }}', c)).toBe('BackOff, Unhealthy');
    expect(
      render(
        '{{ hasWarnings .children.none }} {{ warningCount .children.none }}|{{ firstWarning .children.none }}',
      ),
    ).toBe('false 0|');
  });

  it('replicasets and owner', () => {
    const c = { deployment, replicaset: { _owner: { kind: 'Deployment', name: 'web' } } };
    expect(render('{{ deploymentReplicaSetCount .children.deployment }}', c)).toBe('2');
    expect(render('{{ join (deploymentReplicaSets .children.deployment) "," }}', c)).toBe('web-a,web-b');
    expect(render('{{ join (oldDeploymentReplicaSets .children.deployment) "," }}', c)).toBe('web-a');
    expect(
      render(
        '{{ replicaSetOwnerKind .children.replicaset }}/{{ replicaSetOwnerName .children.replicaset }}',
        c,
      ),
    ).toBe('Deployment/web');
    expect(
      render('{{ deploymentReplicaSetCount .children.none }}|{{ replicaSetOwnerName .children.none }}|', c),
    ).toBe('0||');
  });

  it('node, pvc, pvcs, backingpods, cronjob, ingress', () => {
    const c = {
      pod: { _node: { name: 'n1', zone: 'us-east-2a', region: 'us-east-2', instanceType: 't3.medium' } },
      pvc: {
        _pv: {
          metadata: { annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com' } },
          spec: { volumeMode: 'Block' },
        },
      },
      statefulset: { _pvcs: [{}, {}, {}] },
      service: { _backingPods: [{ name: 'app-abc' }, { name: '' }, { name: 'app-def' }] },
      cronjob: {
        _lastJob: { metadata: { name: 'j-2' }, status: { succeeded: 0 } },
        _lastSuccessfulJob: { metadata: { name: 'j-1' }, status: { succeeded: 1 } },
      },
      ingress: { _loadBalancerIPs: ['1.2.3.4', 'example.com'], _tlsSecrets: [{}, {}] },
    };
    expect(
      render(
        '{{ podNodeName .children.pod }} {{ podNodeZone .children.pod }} {{ podNodeRegion .children.pod }} {{ podNodeInstanceType .children.pod }}',
        c,
      ),
    ).toBe('n1 us-east-2a us-east-2 t3.medium');
    expect(render('{{ pvcProvisioner .children.pvc }} {{ pvcVolumeMode .children.pvc }}', c)).toBe(
      'ebs.csi.aws.com Block',
    );
    expect(render('{{ statefulSetPVCCount .children.statefulset }}', c)).toBe('3');
    // Upstream reads the reclaim policy at `spec.reclaimPolicy`, where a StorageClass has none.
    const sc = { _storageClass: { provisioner: 'ebs.csi.aws.com', reclaimPolicy: 'Retain' } };
    expect(
      render(
        '{{ pvcStorageClassProvisioner .children.pvc }}|{{ pvcStorageClassReclaimPolicy .children.pvc }}',
        {
          pvc: sc,
        },
      ),
    ).toBe('ebs.csi.aws.com|');
    expect(
      render('{{ pvcStorageClassReclaimPolicy .children.pvc }}', {
        pvc: { _storageClass: { spec: { reclaimPolicy: 'Delete' } } },
      }),
    ).toBe('Delete');
    expect(
      render('{{ backingPodCount .children.service }}: {{ backingPodNames .children.service }}', c),
    ).toBe('3: app-abc, app-def');
    expect(
      render(
        '{{ cronJobLastJobName .children.cronjob }} {{ cronJobLastJobSucceeded .children.cronjob }} {{ cronJobLastSuccessfulJobName .children.cronjob }}',
        c,
      ),
    ).toBe('j-2 false j-1');
    expect(
      render(
        '{{ ingressLoadBalancerIPs .children.ingress }} {{ ingressTLSSecretCount .children.ingress }}',
        c,
      ),
    ).toBe('1.2.3.4, example.com 2');
    expect(
      render(
        '[{{ podNodeName .children.x }}{{ pvcVolumeMode .children.x }}{{ backingPodNames .children.x }}{{ cronJobLastJobName .children.x }}] {{ cronJobLastJobSucceeded .children.x }} {{ ingressTLSSecretCount .children.x }}',
      ),
    ).toBe('[] false 0');
  });
});

describe('hints for upstream helpers that stay refused', () => {
  it.each(Object.entries(UPSTREAM_HELPER_HINTS))(
    'the hint for %s holds templates that compile and render',
    (_name, hint) => {
      const templates = [...hint.matchAll(/`(\{\{[^`]*\}\})`/g)].map((m) => m[1] ?? '');
      expect(templates.length).toBeGreaterThan(0);
      for (const source of templates)
        expect(() =>
          engine.renderTemplate(source, {
            metadata: { name: 'web' },
            spec: { regions: ['a', 'b'] },
            children: {},
          } as never),
        ).not.toThrow();
    },
  );
});
