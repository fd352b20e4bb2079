import { OrkestraLabel } from '@orkestra/types';
import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
import { buildPodSpec, podTemplateMetadata } from '../pod-template.js';
import { workloadSelector } from '../selector.js';

/**
 * statefulSets creates StatefulSets (default name `<cr>`): the workload fields, `replicas`
 * (default 1), `serviceName` (default the StatefulSet's name), `volumeClaimTemplates` (each also
 * mounted in the container), `podManagementPolicy`, `rollingUpdate`.
 */
export const statefulSets = defineKind({
  listKey: 'statefulSets',
  enrich: { pods: 'selector', podOrdinals: true, claims: true, podEvents: true },
  sibling: { role: 'workload' },
  build: ({ fields, name, owner, hints, labels, childLabel }) => {
    const selector = workloadSelector(owner, childLabel);
    const claims = (fields.list('volumeClaimTemplates') ?? []).map((c) => {
      const claimName = c.str('name') ?? 'data';
      const storageKey = c.alias('storage', 'storageSize') ?? 'storage';
      const storage = c.quantity(storageKey);
      if (storage == null) throw templateError(c.at('storage'), 'is required');
      return {
        template: {
          metadata: { name: claimName },
          spec: compact({
            accessModes: c.strList('accessModes') ?? ['ReadWriteOnce'],
            storageClassName: c.str(c.alias('storageClassName', 'storageClass') ?? 'storageClassName'),
            resources: { requests: { storage } },
          }),
        },
        mount: { name: claimName, mountPath: c.str('mountPath') ?? '/data' },
      };
    });
    const rolling = fields.obj('rollingUpdate');
    const maxUnavailable = rolling?.intOrPercent('maxUnavailable');
    return {
      extraLabels: { [OrkestraLabel.Child]: childLabel },
      body: {
        spec: compact({
          replicas: hints.hpaTargeted === true ? undefined : (fields.int('replicas') ?? 1),
          serviceName: fields.str('serviceName') ?? name,
          selector: { matchLabels: selector },
          podManagementPolicy: fields.str('podManagementPolicy'),
          updateStrategy:
            maxUnavailable == null ? undefined : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } },
          template: {
            metadata: podTemplateMetadata(fields, labels, selector),
            spec: buildPodSpec(fields, name, { service: true, extraMounts: claims.map((c) => c.mount) }),
          },
          volumeClaimTemplates: claims.length === 0 ? undefined : claims.map((c) => c.template),
        }),
      },
    };
  },
});
