import { OrkestraLabel } from '@orkestra/types';
import { compact, defineKind } from '../kind-module.js';
import { buildPodSpec, podTemplateMetadata } from '../pod-template.js';
import { workloadSelector } from '../selector.js';

/**
 * deployments creates Deployments (default name `<cr>-deployment`): one container named after the
 * Deployment, `replicas` (default 1; left out when an hpa targets it), `rollingUpdate`, and a
 * selector of owner UID + child name, so two Deployments of one CR never select each other's pods.
 */
export const deployments = defineKind({
  listKey: 'deployments',
  enrich: { pods: 'replicaSets', ownedReplicaSets: true, podEvents: true },
  sibling: { role: 'workload' },
  build: ({ fields, name, owner, hints, labels, childLabel }) => {
    const selector = workloadSelector(owner, childLabel);
    const rolling = fields.obj('rollingUpdate');
    const rollingUpdate =
      rolling == null
        ? undefined
        : compact({
            maxSurge: rolling.intOrPercent('maxSurge'),
            maxUnavailable: rolling.intOrPercent('maxUnavailable'),
          });
    return {
      extraLabels: { [OrkestraLabel.Child]: childLabel },
      body: {
        spec: compact({
          replicas: hints.hpaTargeted === true ? undefined : (fields.int('replicas') ?? 1),
          selector: { matchLabels: selector },
          strategy: rollingUpdate == null ? undefined : { type: 'RollingUpdate', rollingUpdate },
          template: {
            metadata: podTemplateMetadata(fields, labels, selector),
            spec: buildPodSpec(fields, name, { service: true }),
          },
        }),
      },
    };
  },
});
