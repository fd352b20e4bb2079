import { LineCounter, parseDocument } from 'yaml';
import { formatPath } from '@orkestra/types';
import type { Katalog, KatalogIssue, PathSegment } from '@orkestra/types';

/** ALLOW_RBAC_WILDCARDS_FLAG is the flag of `ork validate` and `ork generate` that accepts wildcards in `roles`. */
const ALLOW_RBAC_WILDCARDS_FLAG = '--allow-rbac-wildcards';

const RULE_FIELDS = ['apiGroups', 'resources', 'verbs', 'resourceNames'] as const;

/**
 * roleWildcardIssues finds every `*` in the rules of the Katalog's `roles` entries. The operator
 * must hold every permission it grants, so `ork generate rbac` copies those rules into the
 * operator's own ClusterRole: a wildcard there would silently give the operator that wildcard.
 * Each issue names the file, line, column and field path of the wildcard; `ork validate` and
 * `ork generate` report them as errors unless {@link ALLOW_RBAC_WILDCARDS_FLAG} is given.
 */
export function roleWildcardIssues(file: string, text: string, katalog: Katalog): KatalogIssue[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const issues: KatalogIssue[] = [];
  for (const [entryName, entry] of Object.entries(katalog.spec.crds)) {
    for (const group of ['onCreate', 'onReconcile'] as const) {
      const roles = (entry.operatorBox[group] as { roles?: readonly Record<string, unknown>[] }).roles ?? [];
      roles.forEach((role, roleIndex) => {
        const rules = (role['rules'] as readonly Record<string, unknown>[] | undefined) ?? [];
        rules.forEach((rule, ruleIndex) => {
          for (const field of RULE_FIELDS) {
            const values = rule[field];
            if (!Array.isArray(values)) continue;
            values.forEach((value: unknown, valueIndex) => {
              if (typeof value !== 'string' || !value.includes('*')) return;
              const path: PathSegment[] = [
                'spec',
                'crds',
                entryName,
                'operatorBox',
                group,
                'roles',
                roleIndex,
                'rules',
                ruleIndex,
                field,
                valueIndex,
              ];
              const node = document.getIn(path, true) as { range?: readonly number[] } | undefined;
              const offset = node?.range?.[0] ?? 0;
              const { line, col } = lineCounter.linePos(offset);
              issues.push({
                file,
                line,
                column: col,
                path: formatPath(path),
                message: `wildcard ${JSON.stringify(value)} in a role rule: the operator would be granted it too (ork generate rbac copies role rules into the operator's ClusterRole); list the ${field} explicitly, or pass ${ALLOW_RBAC_WILDCARDS_FLAG} to accept it`,
              });
            });
          }
        });
      });
    }
  }
  return issues;
}
