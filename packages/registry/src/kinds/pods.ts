import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
import { buildPodSpec } from '../pod-template.js';
import { workloadSelector } from '../selector.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];

/**
 * pods creates bare Pods (default name `<cr>-pod`, upstream Orkestra's `pods`): the workload
 * fields, one container named after the Pod, `restartPolicy` (default `Always`). Pods are
 * create-only in every group, as Jobs are: the API server refuses most changes to a Pod's spec, so
 * a Pod is never updated in place; one that is gone is created again with the current spec. It
 * carries the owner-UID + child-name labels a service selects with `workload: <name>`.
 */
export const pods = defineKind({
  listKey: 'pods',
  enrich: { node: true },
  createOnly: true,
  build: ({ fields, name, owner, childLabel }) => {
    const restartPolicy = fields.str('restartPolicy') ?? 'Always';
    if (!RESTART_POLICIES.includes(restartPolicy))
      throw templateError(
        fields.at('restartPolicy'),
        `must be one of ${RESTART_POLICIES.join(', ')}, got "${restartPolicy}"`,
      );
    return {
      // The owner-UID + child-name labels of a workload's pods, so `services` select it with `workload: <name>`.
      extraLabels: workloadSelector(owner, childLabel),
      body: { spec: compact({ ...buildPodSpec(fields, name, { service: true }), restartPolicy }) },
    };
  },
});
