import { DEFAULT_RULES } from '../compare.js';
import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';

/**
 * resourceQuotas creates ResourceQuotas (default name `<cr>-quota`): `hard` limits by resource
 * name (quantities, compared canonically, so `1Gi` and `1024Mi` are no change), `scopes`, and
 * `scopeSelector` as written.
 */
export const resourceQuotas = defineKind({
  listKey: 'resourceQuotas',
  rules: { ...DEFAULT_RULES, quantityFields: new Set([...DEFAULT_RULES.quantityFields, 'hard', 'used']) },
  build: ({ fields }) => {
    const hard = fields.obj('hard');
    if (hard == null) throw templateError(fields.at('hard'), 'is required');
    const scopes = fields.strList('scopes');
    return {
      body: {
        spec: compact({
          hard: Object.fromEntries(hard.keys().map((key) => [key, hard.quantity(key)])),
          scopes: scopes == null || scopes.length === 0 ? undefined : scopes,
          scopeSelector: fields.raw('scopeSelector') ?? undefined,
        }),
      },
    };
  },
});
