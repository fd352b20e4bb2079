import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
import { podSelectorFor } from '../selector.js';

/**
 * pdb creates PodDisruptionBudgets (default name `<cr>-pdb`): `minAvailable` or `maxUnavailable`
 * (default `minAvailable: 1`), pods selected as for services, `unhealthyPodEvictionPolicy`.
 */
export const pdb = defineKind({
  listKey: 'pdb',
  build: ({ fields, owner, hints }) => {
    const minAvailable = fields.intOrPercent('minAvailable');
    const maxUnavailable = fields.intOrPercent('maxUnavailable');
    if (minAvailable != null && maxUnavailable != null)
      throw templateError(fields.at('maxUnavailable'), 'is exclusive with `minAvailable`');
    return {
      body: {
        spec: compact({
          minAvailable: maxUnavailable == null ? (minAvailable ?? 1) : undefined,
          maxUnavailable,
          selector: { matchLabels: podSelectorFor(fields, owner, hints) },
          unhealthyPodEvictionPolicy: fields.str('unhealthyPodEvictionPolicy'),
        }),
      },
    };
  },
});
