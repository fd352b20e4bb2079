import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';

/** persistentVolumeClaims creates PVCs (`name` required): `storage` (required), `accessModes` (default `[ReadWriteOnce]`). */
export const persistentVolumeClaims = defineKind({
  listKey: 'persistentVolumeClaims',
  enrich: { volume: true, storageClass: true },
  build: ({ fields }) => {
    const storage = fields.quantity('storage');
    if (storage == null) throw templateError(fields.at('storage'), 'is required');
    return {
      body: {
        spec: compact({
          accessModes: fields.strList('accessModes') ?? ['ReadWriteOnce'],
          resources: { requests: { storage } },
          storageClassName: fields.str('storageClassName'),
          volumeMode: fields.str('volumeMode'),
          volumeName: fields.str('volumeName'),
        }),
      },
    };
  },
});
