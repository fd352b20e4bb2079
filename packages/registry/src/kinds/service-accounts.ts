import { compact, defineKind } from '../kind-module.js';

/** serviceAccounts creates ServiceAccounts (default name `<cr>-sa`): `imagePullSecrets`, `automountServiceAccountToken`. */
export const serviceAccounts = defineKind({
  listKey: 'serviceAccounts',
  build: ({ fields }) => {
    const secrets = fields.strList('imagePullSecrets');
    return {
      body: compact({
        imagePullSecrets:
          secrets == null || secrets.length === 0 ? undefined : secrets.map((name) => ({ name })),
        automountServiceAccountToken: fields.bool('automountServiceAccountToken'),
      }),
    };
  },
});
