import { compact, defineKind } from '../kind-module.js';

/** configMaps creates ConfigMaps (default name `<cr>-config`); `data` values become strings (maps and lists JSON). */
export const configMaps = defineKind({
  listKey: 'configMaps',
  build: ({ fields }) => {
    const data = fields.strMap('data', { json: true });
    return { body: compact({ data: data == null || Object.keys(data).length === 0 ? undefined : data }) };
  },
});
