import { compact, defineKind } from '../kind-module.js';

/**
 * configMaps creates ConfigMaps (default name `<cr>-config`); `data` values become strings (maps and
 * lists JSON). With `copyFrom` (docs/reference/katalog.md §7.2, ADR 0115) the runtime reads the source
 * ConfigMap and passes its `data` as `copiedData` and its `binaryData` as `copiedBinaryData`; the
 * declared `data` keys win over both (a key is in `data` or `binaryData`, never both).
 */
export const configMaps = defineKind({
  listKey: 'configMaps',
  build: ({ fields }) => {
    const declared = fields.strMap('data', { json: true }) ?? {};
    const data = { ...fields.strMap('copiedData'), ...declared };
    const binaryData = Object.fromEntries(
      Object.entries(fields.strMap('copiedBinaryData') ?? {}).filter(
        ([key]) => !Object.hasOwn(declared, key),
      ),
    );
    return {
      body: compact({
        data: Object.keys(data).length === 0 ? undefined : data,
        binaryData: Object.keys(binaryData).length === 0 ? undefined : binaryData,
      }),
    };
  },
});
