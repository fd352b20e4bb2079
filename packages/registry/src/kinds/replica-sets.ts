import { OrkestraLabel } from '@orkestra/types';
import { compact, defineKind } from '../kind-module.js';
import { buildPodSpec, podTemplateMetadata } from '../pod-template.js';
import { workloadSelector } from '../selector.js';

/**
 * replicaSets creates ReplicaSets (default name `<cr>-replicaset`, upstream Orkestra's
 * `replicaSets`): the workload fields, one container named after the ReplicaSet, `replicas`
 * (default 1), and the same owner-UID + child-name selector as deployments.
 */
export const replicaSets = defineKind({
  listKey: 'replicaSets',
  enrich: { pods: 'selector', podEvents: true },
  build: ({ fields, name, owner, labels, childLabel }) => {
    const selector = workloadSelector(owner, childLabel);
    return {
      extraLabels: { [OrkestraLabel.Child]: childLabel },
      body: {
        spec: compact({
          replicas: fields.int('replicas') ?? 1,
          selector: { matchLabels: selector },
          template: {
            metadata: podTemplateMetadata(fields, labels, selector),
            spec: buildPodSpec(fields, name, { service: true }),
          },
        }),
      },
    };
  },
});
