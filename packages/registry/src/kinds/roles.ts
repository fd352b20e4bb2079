import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';

/** roles creates Roles (default name `<cr>-role`); each rule's `apiGroups` defaults to `[""]`. */
export const roles = defineKind({
  listKey: 'roles',
  build: ({ fields }) => {
    const rules = fields.list('rules');
    if (rules == null) throw templateError(fields.at('rules'), 'is required');
    return {
      body: {
        rules: rules.map((r) =>
          compact({
            apiGroups: r.strList('apiGroups') ?? [''],
            resources: r.strList('resources'),
            verbs: r.strList('verbs') ?? [],
            resourceNames: r.strList('resourceNames'),
          }),
        ),
      },
    };
  },
});
