import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from './template-engine.js';

/**
 * Upstream's built-in Kubernetes notes (docs/reference/katalog.md §17.6.1), over child objects
 * written here from the Kubernetes API's shapes, as upstream's note fixture Katalog calls them.
 */

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web-app',
    namespace: 'shop',
    generation: 4,
    labels: { app: 'web' },
    annotations: { note: 'x' },
    ownerReferences: [{ kind: 'Website', name: 'web' }],
  },
  spec: {
    replicas: 3,
    resources: { requests: { cpu: '250m', memory: '128Mi' } },
    template: {
      spec: {
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            env: [{ name: 'APP_ENV', value: 'prod' }],
            ports: [{ name: 'http', containerPort: 8080 }, { containerPort: 9090 }],
          },
          { name: 'side', image: 'busybox' },
        ],
      },
    },
  },
  status: {
    observedGeneration: 4,
    readyReplicas: 2,
    availableReplicas: 2,
    updatedReplicas: 3,
    phase: 'Running',
    conditions: [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'progressed' },
    ],
  },
};
const service = {
  spec: { clusterIP: '10.96.0.7', ports: [{ port: 80, nodePort: 31234 }] },
  status: { loadBalancer: { ingress: [{ ip: '34.1.2.3', hostname: 'lb.example.com' }] } },
};
const slice = { endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }] };
const endpoints = { subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] };

const engine = createTemplateEngine();
const render = (source: string, children: Record<string, unknown> = { deployment, service }): string =>
  String(engine.renderTemplate(source, { metadata: { name: 'web' }, spec: {}, children } as never));

describe('upstream kubernetes notes', () => {
  it('read metadata, owners and conditions, nil-safe', () => {
    expect(render('{{ name .children.deployment }}/{{ namespace .children.deployment }}')).toBe(
      'web-app/shop',
    );
    expect(render('{{ mapGet (labels .children.deployment) "app" }}')).toBe('web');
    expect(render('{{ mapGet (annotations .children.deployment) "note" }}')).toBe('x');
    expect(render('{{ mapGet (spec .children.deployment) "replicas" }}')).toBe('3');
    expect(render('{{ phase .children.deployment }}')).toBe('Running');
    expect(render('{{ ownerKind .children.deployment }} {{ ownerName .children.deployment }}')).toBe(
      'Website web',
    );
    expect(render('{{ conditionReason .children.deployment "Available" }}')).toBe('MinimumReplicasAvailable');
    expect(render('{{ conditionMessage .children.deployment "Progressing" }}')).toBe('progressed');
    expect(render('{{ conditionReason .children.deployment "Degraded" }}')).toBe('');
    expect(render('{{ name .children.missing }}{{ phase .children.missing }}')).toBe('');
  });

  it('track generation, termination and resource requests', () => {
    expect(
      render('{{ generation .children.deployment }} {{ observedGeneration .children.deployment }}'),
    ).toBe('4 4');
    expect(render('{{ isSynced .children.deployment }} {{ isTerminating .children.deployment }}')).toBe(
      'true false',
    );
    const stale = {
      ...deployment,
      metadata: { ...deployment.metadata, generation: 5, deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    expect(
      render('{{ isSynced .children.deployment }} {{ isTerminating .children.deployment }}', {
        deployment: stale,
      }),
    ).toBe('false true');
    expect(render('{{ resourceCPU .children.deployment }} {{ resourceMemory .children.deployment }}')).toBe(
      '250m 128Mi',
    );
    expect(render('{{ generation .children.missing }}')).toBe('0');
  });

  it('count replicas; a workload without spec.replicas wants one', () => {
    expect(
      render(
        '{{ desiredReplicas .children.deployment }} {{ availableReplicas .children.deployment }} {{ updatedReplicas .children.deployment }} {{ rolloutComplete .children.deployment }}',
      ),
    ).toBe('3 2 3 true');
    expect(render('{{ desiredReplicas .children.missing }} {{ rolloutComplete .children.missing }}')).toBe(
      '1 false',
    );
  });

  it('read containers in both generations of containerPort and containerEnv', () => {
    expect(render('{{ containerCount .children.deployment }}')).toBe('2');
    expect(render('{{ containerPort .children.deployment }}')).toBe('8080');
    expect(render('{{ containerPort .children.deployment 1 }}')).toBe('0');
    expect(render('{{ containerPort .children.deployment 0 9090 }}')).toBe('true');
    expect(
      render(
        '{{ hasContainerPort .children.deployment 0 8080 }} {{ hasContainerPort .children.deployment 0 81 }}',
      ),
    ).toBe('true false');
    expect(render('{{ containerPortByName .children.deployment 0 "http" }}')).toBe('8080');
    expect(render('{{ containerPorts .children.deployment 0 }}')).toBe('8080,9090');
    expect(render('{{ containerEnv .children.deployment 0 "APP_ENV" }}')).toBe('prod');
    expect(render('{{ containerEnv .children.deployment "APP_ENV" }}')).toBe('prod');
    expect(render('{{ containerEnv .children.deployment "APP_ENV" 1 }}')).toBe('');
  });

  it('read Services and endpoints', () => {
    expect(render('{{ serviceClusterIP .children.service }} {{ serviceNodePort .children.service }}')).toBe(
      '10.96.0.7 31234',
    );
    expect(
      render('{{ serviceLoadBalancerIP .children.service }} {{ serviceLoadBalancerHost .children.service }}'),
    ).toBe('34.1.2.3 lb.example.com');
    expect(render('{{ endpointsReady .children.endpointslice }}', { endpointslice: slice })).toBe('true');
    expect(render('{{ endpointsReady .children.endpoints }}', { endpoints })).toBe('true');
    expect(render('{{ endpointsReady .children.endpoints }}', { endpoints: { subsets: [] } })).toBe('false');
    expect(render('{{ endpointsReady .children.endpointslice }}', {})).toBe('false');
  });

  it('answer in a Go template too (if, pipelines)', () => {
    expect(
      render('{{ if isSynced .children.deployment }}{{ name .children.deployment | printf "%s!" }}{{ end }}'),
    ).toBe('web-app!');
    expect(render('{{ $d := .children.deployment }}{{ namespace $d }}/{{ generation $d }}')).toBe('shop/4');
  });

  it('leave the words to the context in a Handlebars template', () => {
    const out = engine.renderTemplate('{{name}} {{spec.image}} {{status}}', {
      name: 'n',
      spec: { image: 'i' },
      status: 's',
    } as never);
    expect(String(out)).toBe('n i s');
  });
});

describe('upstream hpa and job notes', () => {
  const hpa = {
    spec: { maxReplicas: 5, scaleTargetRef: { kind: 'Deployment', name: 'web-app' } },
    status: {
      currentReplicas: 3,
      desiredReplicas: 5,
      currentMetrics: [{ type: 'Resource' }, { type: 'External' }],
      conditions: [
        { type: 'ScalingActive', status: 'True' },
        { type: 'AbleToScale', status: 'True' },
        { type: 'ScalingLimited', status: 'False' },
      ],
    },
  };

  it('read replica bounds, scaling state and the target', () => {
    const r = (source: string, obj: unknown = hpa): string => render(source, { hpa: obj });
    expect(r('{{ hpaCurrentReplicas .children.hpa }}/{{ hpaDesiredReplicas .children.hpa }}')).toBe('3/5');
    expect(r('{{ hpaMinReplicas .children.hpa }}-{{ hpaMaxReplicas .children.hpa }}')).toBe('1-5');
    expect(r('{{ hpaScaling .children.hpa }} {{ hpaAtMax .children.hpa }}')).toBe('true false');
    expect(
      r(
        '{{ hpaScalingActive .children.hpa }} {{ hpaAbleToScale .children.hpa }} {{ hpaScalingLimited .children.hpa }}',
      ),
    ).toBe('true true false');
    expect(r('{{ hpaScaleTargetKind .children.hpa }}/{{ hpaScaleTargetName .children.hpa }}')).toBe(
      'Deployment/web-app',
    );
    expect(r('{{ hpaMetricTypes .children.hpa }}')).toBe('Resource, External');
    // Without a readable metric upstream does not call it scaling, whatever the counts say.
    const unknownMetric = { ...hpa, status: { ...hpa.status, desiredReplicas: 0, conditions: [] } };
    expect(r('{{ hpaScaling .children.hpa }}', unknownMetric)).toBe('false');
    expect(r('{{ hpaAtMax .children.hpa }}', { ...hpa, status: { ...hpa.status, currentReplicas: 5 } })).toBe(
      'true',
    );
  });

  it('read Ingresses, PersistentVolumeClaims and CronJobs', () => {
    const ingress = {
      spec: {
        ingressClassName: 'nginx',
        rules: [{ host: 'a.example.com' }, {}, { host: 'b.example.com' }],
        tls: [{ hosts: ['a.example.com', 'b.example.com'] }, { hosts: ['a.example.com'] }],
      },
      status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } },
    };
    const r = (source: string): string => render(source, { ingress, pvc, cronjob });
    const pvc = {
      spec: {
        storageClassName: 'standard',
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '10Gi' } },
      },
      status: { phase: 'Bound' },
    };
    const cronjob = {
      status: {
        active: [{ name: 'j1' }],
        lastScheduleTime: 't1',
        lastSuccessfulTime: 't0',
        nextScheduleTime: 't2',
      },
    };
    expect(
      r(
        '{{ ingressReady .children.ingress }} {{ ingressHost .children.ingress }}/{{ ingressIP .children.ingress }}',
      ),
    ).toBe('true lb.example.com/');
    expect(r('{{ ingressClassName .children.ingress }}: {{ ingressRules .children.ingress }}')).toBe(
      'nginx: a.example.com, b.example.com',
    );
    expect(r('{{ ingressTLSHosts .children.ingress }}')).toBe('a.example.com, b.example.com');
    expect(
      r('{{ pvcPhase .children.pvc }} {{ pvcBound .children.pvc }} {{ pvcCapacity .children.pvc }}'),
    ).toBe('Bound true 10Gi');
    expect(r('{{ pvcStorageClass .children.pvc }} {{ pvcAccessModes .children.pvc }}')).toBe(
      'standard ReadWriteOnce',
    );
    expect(
      r(
        '{{ cronJobActiveCount .children.cronjob }} {{ cronJobLastScheduleTime .children.cronjob }} {{ cronJobLastSuccessTime .children.cronjob }} {{ cronJobNextScheduleTime .children.cronjob }}',
      ),
    ).toBe('1 t1 t0 t2');
    expect(
      r(
        '{{ ingressReady .children.none }} {{ pvcBound .children.none }} {{ cronJobActiveCount .children.none }}',
      ),
    ).toBe('false false 0');
  });

  it('jobActive counts running pods', () => {
    expect(render('{{ jobActive .children.job }}', { job: { status: { active: 1 } } })).toBe('true');
    expect(render('{{ jobActive .children.job }}', { job: { status: { succeeded: 1 } } })).toBe('false');
  });

  it('a call of a helper upstream does not have either is refused with the equivalent', () => {
    expect(() => render('{{ joinList .spec.regions "," }}')).toThrow(/joinList.*join \.spec\.regions/);
  });
});

describe('Inrun’s label, annotation and status notes', () => {
  const obj = {
    metadata: {
      labels: { team: 'shop', 'replica-count': '3', env: 'prod', empty: '' },
      annotations: { 'autoscale/min-replicas': '2', bad: 'x2' },
    },
    status: { readyReplicas: 3, loadBalancer: { ingress: [{ ip: '1.2.3.4' }] }, idle: {}, phase: '' },
  };
  const r = (source: string) => render(source, { deployment: obj });

  it('read one label or annotation by key, as text or integer, nil-safe', () => {
    expect(r('{{ getLabel .children.deployment "team" }}|{{ getLabel .children.deployment "none" }}')).toBe(
      'shop|',
    );
    expect(r('{{ getLabelInt .children.deployment "replica-count" }}')).toBe('3');
    expect(r('{{ getAnnotation .children.deployment "autoscale/min-replicas" }}')).toBe('2');
    expect(r('{{ getAnnotationInt .children.deployment "bad" }}')).toBe('0');
    expect(r('{{ hasLabel .children.deployment "team" }} {{ hasLabel .children.deployment "empty" }}')).toBe(
      'true false',
    );
    expect(r('{{ hasAnnotation .children.deployment "autoscale/min-replicas" }}')).toBe('true');
    expect(r('{{ getLabel .children.missing "team" }}{{ hasLabel .children.missing "team" }}')).toBe('false');
  });

  it('labelMatches holds when every key/value pair given is a label of the object', () => {
    expect(r('{{ labelMatches .children.deployment "team" "shop" "env" "prod" }}')).toBe('true');
    expect(r('{{ labelMatches .children.deployment "team" "shop" "env" "dev" }}')).toBe('false');
    expect(r('{{ labelMatches .children.deployment "team" }}')).toBe('false');
  });

  it('getStatus gives one status field as text; hasStatus tells a set, non-empty one', () => {
    expect(r('{{ getStatus .children.deployment "readyReplicas" }}')).toBe('3');
    expect(
      r(
        '{{ hasStatus .children.deployment "loadBalancer" }} {{ hasStatus .children.deployment "idle" }} {{ hasStatus .children.deployment "phase" }}',
      ),
    ).toBe('true false false');
  });
});

describe('Inrun’s domain notes', () => {
  const d = (source: string, domain: unknown) =>
    String(engine.renderTemplate(source, { metadata: { name: 'web' }, spec: { domain } } as never));

  it.each([
    ['https://acme.example.com/', 'acme.example.com', 'acme.example.com'],
    [' http://acme.example.com ', 'acme.example.com', 'acme.example.com'],
    ['acme.example.com', 'acme.example.com', 'acme.example.com'],
    ['https://www.acme.com/', 'www.acme.com', 'acme.com'],
    ['www.acme.com', 'www.acme.com', 'acme.com'],
    [undefined, '', ''],
  ])('%j: domainHost %j, domainBare %j', (domain, host, bare) => {
    expect(d('{{ domainHost .spec.domain }}', domain)).toBe(host);
    expect(d('{{ domainBare .spec.domain }}', domain)).toBe(bare);
  });
});
