import { canonicalJson } from '../canonical-json.js';
import { ensureObject } from '../ensure.js';
import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
import { refOf } from '../kube-object.js';
import { removeObject } from '../remove.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * roleBindings creates RoleBindings (default name `<cr>-rolebinding`). Kubernetes forbids changing
 * `roleRef`, so an apply whose roleRef differs from the cached one deletes the binding first.
 */
export const roleBindings = defineKind({
  listKey: 'roleBindings',
  build: ({ fields, namespace }) => {
    const roleRef = fields.obj('roleRef');
    if (roleRef == null) throw templateError(fields.at('roleRef'), 'is required');
    const refKind = roleRef.str('kind') ?? 'Role';
    if (refKind !== 'Role' && refKind !== 'ClusterRole') {
      throw templateError(roleRef.at('kind'), `must be Role or ClusterRole, got "${refKind}"`);
    }
    const subjects = fields.list('subjects');
    if (subjects == null) throw templateError(fields.at('subjects'), 'is required');
    return {
      body: {
        roleRef: { apiGroup: RBAC_GROUP, kind: refKind, name: roleRef.reqStr('name') },
        subjects: subjects.map((s) => {
          const kind = s.str('kind') ?? 'ServiceAccount';
          return kind === 'ServiceAccount'
            ? { kind, name: s.reqStr('name'), namespace: s.str('namespace') ?? namespace }
            : compact({ kind, apiGroup: RBAC_GROUP, name: s.reqStr('name') });
        }),
      },
    };
  },
  async ensure(manifest, options) {
    const cached = options.cache.get(refOf(manifest));
    if (
      options.mode === 'apply' &&
      cached != null &&
      canonicalJson(cached['roleRef']) !== canonicalJson(manifest['roleRef'])
    ) {
      await removeObject(refOf(manifest), {
        client: options.client,
        ...(cached.metadata.uid == null ? {} : { uid: cached.metadata.uid }),
      });
      // The cache still holds the deleted binding: ensure against an empty view so it applies.
      await ensureObject(manifest, { ...options, cache: { get: () => undefined, listOwned: () => [] } });
      return 'updated';
    }
    return ensureObject(manifest, options);
  },
});
