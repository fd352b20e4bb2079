import { describe, expect, it } from 'vitest';
import type { Condition } from '@orkestra/types';
import type { KubeObject } from '../kube-object.js';
import { childReadiness } from './child-readiness.js';
import { isReady } from './readiness.js';
import { summarizeReadiness } from './summarize-readiness.js';

function obj(
  apiVersion: string,
  kind: string,
  fields: { generation?: number; spec?: unknown; status?: unknown; deletionTimestamp?: string } = {},
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: {
      name: 'x',
      namespace: 'ns',
      ...(fields.generation == null ? {} : { generation: fields.generation }),
      ...(fields.deletionTimestamp == null ? {} : { deletionTimestamp: fields.deletionTimestamp }),
    },
    ...(fields.spec == null ? {} : { spec: fields.spec }),
    ...(fields.status == null ? {} : { status: fields.status }),
  } as KubeObject;
}

const available = (status: string, reason = 'MinimumReplicasAvailable') => ({
  type: 'Available',
  status,
  reason,
});

function deployment(
  status: Record<string, unknown> | undefined,
  spec: Record<string, unknown> = { replicas: 2 },
) {
  return obj('apps/v1', 'Deployment', { generation: 3, spec, ...(status == null ? {} : { status }) });
}

describe('childReadiness: common states', () => {
  it('is NotFound for an absent object and Terminating for one being deleted', () => {
    expect(childReadiness(undefined).state).toBe('NotFound');
    expect(childReadiness(obj('v1', 'ConfigMap', { deletionTimestamp: '2026-01-01T00:00:00Z' })).state).toBe(
      'Terminating',
    );
  });

  it('treats kinds without a lifecycle (ConfigMap, Secret, Role) as Current once they exist', () => {
    for (const [apiVersion, kind] of [
      ['v1', 'ConfigMap'],
      ['v1', 'Secret'],
      ['rbac.authorization.k8s.io/v1', 'Role'],
    ] as const)
      expect(childReadiness(obj(apiVersion, kind))).toEqual({ state: 'Current', message: '' });
  });
});

describe('childReadiness: Deployment', () => {
  it('is InProgress before the controller observed the generation', () => {
    expect(childReadiness(deployment(undefined)).state).toBe('InProgress');
    expect(childReadiness(deployment({ observedGeneration: 2 })).message).toBe('observed generation 2 of 3');
  });

  it('names available replicas while rolling out', () => {
    const r = childReadiness(
      deployment({
        observedGeneration: 3,
        replicas: 2,
        updatedReplicas: 2,
        availableReplicas: 1,
        conditions: [available('False')],
      }),
    );
    expect(r).toEqual({ state: 'InProgress', message: '1/2 replicas available' });
  });

  it('reports updated replicas and old replicas pending termination', () => {
    expect(
      childReadiness(deployment({ observedGeneration: 3, replicas: 2, updatedReplicas: 1 })).message,
    ).toBe('1/2 replicas updated');
    expect(
      childReadiness(
        deployment({ observedGeneration: 3, replicas: 3, updatedReplicas: 2, availableReplicas: 2 }),
      ).message,
    ).toBe('1 old replicas pending termination');
  });

  it('is Current when every replica is available and Available=True', () => {
    const status = {
      observedGeneration: 3,
      replicas: 2,
      updatedReplicas: 2,
      availableReplicas: 2,
      readyReplicas: 2,
    };
    expect(childReadiness(deployment({ ...status, conditions: [available('True')] }))).toEqual({
      state: 'Current',
      message: '2/2 replicas available',
    });
    expect(childReadiness(deployment({ ...status, conditions: [available('False')] })).state).toBe(
      'InProgress',
    );
  });

  it('defaults spec.replicas to 1 and handles 0 replicas', () => {
    const one = {
      observedGeneration: 3,
      replicas: 1,
      updatedReplicas: 1,
      availableReplicas: 1,
      conditions: [available('True')],
    };
    expect(childReadiness(deployment(one, {})).state).toBe('Current');
    const zero = { observedGeneration: 3, conditions: [available('True')] };
    expect(childReadiness(deployment(zero, { replicas: 0 })).state).toBe('Current');
  });

  it('is Failed past the progress deadline and InProgress while paused', () => {
    const r = childReadiness(
      deployment({
        observedGeneration: 3,
        availableReplicas: 0,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
      }),
    );
    expect(r).toEqual({ state: 'Failed', message: 'progress deadline exceeded: 0/2 replicas available' });
    expect(childReadiness(deployment({ observedGeneration: 3 }, { replicas: 2, paused: true })).message).toBe(
      'rollout paused',
    );
  });
});

describe('childReadiness: StatefulSet, DaemonSet, ReplicaSet', () => {
  const sts = (status: Record<string, unknown>, spec: Record<string, unknown> = { replicas: 2 }) =>
    obj('apps/v1', 'StatefulSet', { generation: 1, spec, status: { observedGeneration: 1, ...status } });

  it('StatefulSet: replicas created, ready, updated, then the revision', () => {
    expect(childReadiness(sts({ replicas: 1 })).message).toBe('1/2 replicas created');
    expect(childReadiness(sts({ replicas: 2, readyReplicas: 1 })).message).toBe('1/2 replicas ready');
    expect(childReadiness(sts({ replicas: 2, readyReplicas: 2, updatedReplicas: 1 })).message).toBe(
      '1/2 replicas updated',
    );
    expect(
      childReadiness(
        sts({ replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: 'a', updateRevision: 'b' }),
      ).state,
    ).toBe('InProgress');
    expect(
      childReadiness(
        sts({ replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: 'b', updateRevision: 'b' }),
      ),
    ).toEqual({ state: 'Current', message: '2/2 replicas ready' });
  });

  it('StatefulSet: OnDelete and partitioned updates', () => {
    expect(
      childReadiness(
        sts({ replicas: 2, readyReplicas: 2 }, { replicas: 2, updateStrategy: { type: 'OnDelete' } }),
      ).state,
    ).toBe('Current');
    const partitioned = {
      replicas: 3,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
    };
    expect(
      childReadiness(sts({ replicas: 3, readyReplicas: 3, updatedReplicas: 0 }, partitioned)).state,
    ).toBe('InProgress');
    expect(
      childReadiness(sts({ replicas: 3, readyReplicas: 3, updatedReplicas: 1 }, partitioned)).state,
    ).toBe('Current');
  });

  it('DaemonSet: scheduled, updated, available', () => {
    const ds = (status: Record<string, unknown>) =>
      obj('apps/v1', 'DaemonSet', {
        generation: 1,
        status: { observedGeneration: 1, desiredNumberScheduled: 3, ...status },
      });
    expect(childReadiness(ds({ currentNumberScheduled: 2 })).message).toBe('2/3 pods scheduled');
    expect(childReadiness(ds({ currentNumberScheduled: 3, updatedNumberScheduled: 1 })).message).toBe(
      '1/3 pods updated',
    );
    expect(
      childReadiness(ds({ currentNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2 }))
        .message,
    ).toBe('2/3 pods available');
    expect(
      childReadiness(ds({ currentNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 })).state,
    ).toBe('Current');
  });

  it('ReplicaSet: ready, available, replica failure', () => {
    const rs = (status: Record<string, unknown>) =>
      obj('apps/v1', 'ReplicaSet', {
        generation: 1,
        spec: { replicas: 2 },
        status: { observedGeneration: 1, ...status },
      });
    expect(childReadiness(rs({ readyReplicas: 1 })).message).toBe('1/2 replicas ready');
    expect(childReadiness(rs({ readyReplicas: 2, availableReplicas: 1 })).message).toBe(
      '1/2 replicas available',
    );
    expect(childReadiness(rs({ readyReplicas: 2, availableReplicas: 2 })).state).toBe('Current');
    expect(
      childReadiness(
        rs({ conditions: [{ type: 'ReplicaFailure', status: 'True', message: 'quota exceeded' }] }),
      ).message,
    ).toBe('replica failure: quota exceeded');
  });
});

describe('childReadiness: Job, CronJob, Pod, PVC, Service, Namespace', () => {
  it('Job: running, complete, failed', () => {
    const job = (status: Record<string, unknown>) => obj('batch/v1', 'Job', { status });
    expect(childReadiness(job({ active: 1 }))).toEqual({
      state: 'InProgress',
      message: 'running: 1 active, 0 succeeded, 0 failed',
    });
    expect(childReadiness(job({ conditions: [{ type: 'Complete', status: 'True' }] })).state).toBe('Current');
    expect(
      childReadiness(
        job({ conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] }),
      ),
    ).toEqual({ state: 'Failed', message: 'failed: BackoffLimitExceeded' });
    expect(childReadiness(obj('batch/v1', 'CronJob')).state).toBe('Current');
  });

  it('Pod: pending, unschedulable, ready, succeeded, failed, crash loop', () => {
    const pod = (status: Record<string, unknown>) => obj('v1', 'Pod', { status });
    expect(childReadiness(pod({ phase: 'Pending' })).message).toBe('Pending, not ready');
    expect(
      childReadiness(
        pod({ conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }),
      ).message,
    ).toBe('not scheduled: Unschedulable');
    expect(
      childReadiness(pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] })).state,
    ).toBe('Current');
    expect(childReadiness(pod({ phase: 'Succeeded' })).state).toBe('Current');
    expect(childReadiness(pod({ phase: 'Failed' })).state).toBe('Failed');
    expect(
      childReadiness(
        pod({
          phase: 'Running',
          containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }],
        }),
      ),
    ).toEqual({ state: 'Failed', message: 'container waiting: CrashLoopBackOff' });
  });

  it('PVC, Service, Namespace', () => {
    expect(childReadiness(obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Pending' } })).state).toBe(
      'InProgress',
    );
    expect(childReadiness(obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Bound' } })).state).toBe(
      'Current',
    );
    expect(childReadiness(obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Lost' } })).state).toBe(
      'Failed',
    );
    expect(childReadiness(obj('v1', 'Service', { spec: { type: 'ClusterIP' } })).state).toBe('Current');
    expect(childReadiness(obj('v1', 'Service', { spec: { type: 'LoadBalancer' } })).state).toBe('InProgress');
    expect(
      childReadiness(
        obj('v1', 'Service', {
          spec: { type: 'LoadBalancer' },
          status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
        }),
      ).state,
    ).toBe('Current');
    expect(childReadiness(obj('v1', 'Namespace', { status: { phase: 'Terminating' } })).state).toBe(
      'InProgress',
    );
  });
});

describe('childReadiness: custom kinds', () => {
  const custom = (fields: Parameters<typeof obj>[2]) => obj('example.com/v1', 'Certificate', fields);

  it('follows a Ready condition and observedGeneration', () => {
    expect(childReadiness(custom({ generation: 2, status: { observedGeneration: 1 } })).state).toBe(
      'InProgress',
    );
    expect(
      childReadiness(
        custom({
          status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Pending', message: 'issuing' }] },
        }),
      ),
    ).toEqual({ state: 'InProgress', message: 'not Ready: Pending: issuing' });
    expect(
      childReadiness(custom({ status: { conditions: [{ type: 'Ready', status: 'True' }] } })).state,
    ).toBe('Current');
    // No status at all: nothing says it is not ready (kstatus' generic rule).
    expect(childReadiness(custom({ generation: 1 })).state).toBe('Current');
  });

  it('honours kstatus Stalled and Reconciling', () => {
    expect(
      childReadiness(
        custom({ status: { conditions: [{ type: 'Stalled', status: 'True', reason: 'Bad' }] } }),
      ),
    ).toEqual({
      state: 'Failed',
      message: 'Stalled: Bad',
    });
    expect(
      childReadiness(custom({ status: { conditions: [{ type: 'Reconciling', status: 'True' }] } })).state,
    ).toBe('InProgress');
  });
});

describe('childReadiness: readyWhen', () => {
  const readyWhen: Condition[] = [
    { field: 'status.phase', operator: 'equals', value: 'Issued', negate: false },
  ];

  it('replaces the kind rule: Current only when every condition passes', () => {
    const pending = obj('example.com/v1', 'Certificate', {
      status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const r = childReadiness(pending, { readyWhen });
    expect(r.state).toBe('InProgress');
    expect(r.message).toMatch(/^readyWhen\[0\]: /);
    expect(
      childReadiness(obj('example.com/v1', 'Certificate', { status: { phase: 'Issued' } }), { readyWhen })
        .state,
    ).toBe('Current');
  });

  it('applies to built-in kinds too, and an absent child is still NotFound', () => {
    const gte: Condition[] = [{ field: 'status.readyReplicas', operator: 'gte', value: 1, negate: false }];
    expect(
      childReadiness(deployment({ observedGeneration: 3, readyReplicas: 1 }), { readyWhen: gte }).state,
    ).toBe('Current');
    expect(childReadiness(undefined, { readyWhen: gte }).state).toBe('NotFound');
  });
});

describe("childReadiness: the kind table's readyWhen rule (ADR 0051)", () => {
  const bound: Condition[] = [{ field: 'status.phase', operator: 'equals', value: 'Bound', negate: false }];
  const kindOf = (apiVersion: string, kind: string) =>
    apiVersion === 'v1' && (kind === 'PersistentVolume' || kind === 'Pod') ? { readyWhen: bound } : undefined;

  it("decides before the kstatus rule; an entry's readyWhen still replaces it", () => {
    const pod = obj('v1', 'Pod', {
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect([childReadiness(pod).state, childReadiness(pod, { kindOf }).state]).toEqual([
      'Current',
      'InProgress',
    ]);
    const volume = (phase: string) => obj('v1', 'PersistentVolume', { status: { phase } });
    expect(childReadiness(volume('Available'), { kindOf }).state).toBe('InProgress');
    expect(childReadiness(volume('Bound'), { kindOf }).state).toBe('Current');
    expect(childReadiness(volume('Available')).state).toBe('Current'); // the generic rule
    const available: Condition[] = [
      { field: 'status.phase', operator: 'equals', value: 'Available', negate: false },
    ];
    expect(childReadiness(volume('Available'), { kindOf, readyWhen: available }).state).toBe('Current');
  });
});

describe('summarizeReadiness', () => {
  const ready = { state: 'Current', message: '' } as const;

  it('is Ready when every child is Current (and with no children)', () => {
    expect(summarizeReadiness([])).toEqual({ ready: true, reason: 'ReconcileSucceeded', message: '' });
    expect(summarizeReadiness([{ kind: 'ConfigMap', name: 'a', readiness: ready }]).ready).toBe(true);
  });

  it('names the first child not ready, in declaration order, and counts the others', () => {
    const s = summarizeReadiness([
      { kind: 'ConfigMap', name: 'a', readiness: ready },
      {
        kind: 'Deployment',
        name: 'shop-web',
        readiness: { state: 'InProgress', message: '1/2 replicas available' },
      },
      { kind: 'Job', name: 'migrate', readiness: { state: 'Failed', message: 'failed' } },
    ]);
    expect(s).toEqual({
      ready: false,
      reason: 'ChildNotReady',
      message: 'Deployment shop-web: 1/2 replicas available (and 1 other child not ready)',
    });
  });

  it('says ChildFailed for a failed child and WaitingForChildren for one held back', () => {
    expect(
      summarizeReadiness([{ kind: 'Job', name: 'm', readiness: { state: 'Failed', message: 'x' } }]).reason,
    ).toBe('ChildFailed');
    const waiting = summarizeReadiness([
      {
        kind: 'Deployment',
        name: 'web',
        readiness: { state: 'NotFound', message: 'waiting for jobs/migrate' },
        waitingFor: ['migrate'],
      },
    ]);
    expect(waiting).toEqual({
      ready: false,
      reason: 'WaitingForChildren',
      message: 'Deployment web: waiting for jobs/migrate',
    });
  });

  it('isReady is true only for Current', () => {
    for (const state of ['InProgress', 'Failed', 'NotFound', 'Terminating'] as const)
      expect(isReady({ state })).toBe(false);
    expect(isReady({ state: 'Current' })).toBe(true);
  });
});
