import { DEFAULT_RULES } from '../compare.js';
import type { Fields } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';

const BOUNDS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

function quantities(fields: Fields, key: string): Record<string, string | undefined> | undefined {
  const map = fields.obj(key);
  return map == null ? undefined : Object.fromEntries(map.keys().map((k) => [k, map.quantity(k)]));
}

/**
 * limitRanges creates LimitRanges (default name `<cr>-limits`): `limits` items of a `type`
 * (default `Container`) with `max`, `min`, `default`, `defaultRequest` and `maxLimitRequestRatio`
 * quantities; items are matched by type and quantities compared canonically.
 */
export const limitRanges = defineKind({
  listKey: 'limitRanges',
  rules: {
    ...DEFAULT_RULES,
    keyedLists: {
      ...DEFAULT_RULES.keyedLists,
      limits: (item) => (typeof item['type'] === 'string' ? item['type'] : undefined),
    },
    // Not DEFAULT_RULES' quantity fields: here `limits` is the list of items, not container limits.
    quantityFields: new Set(BOUNDS),
  },
  build: ({ fields }) => ({
    body: {
      spec: {
        limits: (fields.list('limits') ?? []).map((item) =>
          compact({
            type: item.str('type') ?? 'Container',
            ...Object.fromEntries(BOUNDS.map((bound) => [bound, quantities(item, bound)])),
          }),
        ),
      },
    },
  }),
});
