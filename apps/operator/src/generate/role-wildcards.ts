import { LineCounter, isMap, parseDocument, visit } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import { formatPath, katalogSourceOf } from '@orkestra/types';
import type { CrdEntry, Katalog, KatalogIssue, PathSegment } from '@orkestra/types';

/** ALLOW_RBAC_WILDCARDS_FLAG is the flag of `ork validate` and `ork generate` that accepts privileged role rules. */
const ALLOW_RBAC_WILDCARDS_FLAG = '--allow-rbac-wildcards';

const RULE_FIELDS = ['apiGroups', 'resources', 'verbs', 'resourceNames'] as const;

/** PRIVILEGED_VERBS let a holder grant, bind or act as more than it holds (docs/reference/katalog.md §7.1). */
const PRIVILEGED_VERBS: ReadonlySet<string> = new Set(['escalate', 'bind', 'impersonate']);

const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';

/** PrivilegedRbacIssue is one privileged value in a role rule, and whether its entry accepts it. */
export interface PrivilegedRbacIssue extends KatalogIssue {
  /** True when the entry sets `allowEscalation: true`: reported as a warning, never an error. */
  readonly allowed: boolean;
}

/**
 * roleRuleSources lists every role a Katalog entry declares whose rules `ork generate rbac` copies
 * into the operator's own ClusterRole: `roles` items, and `custom` Role and ClusterRole items
 * (upstream's `clusterRoles` are loaded as such, docs/reference/katalog.md §24).
 */
function roleRuleSources(entry: CrdEntry): { role: Record<string, unknown>; rel: PathSegment[] }[] {
  const found: { role: Record<string, unknown>; rel: PathSegment[] }[] = [];
  for (const group of ['onCreate', 'onReconcile'] as const) {
    const lists = entry.operatorBox[group] as unknown as Record<string, readonly Record<string, unknown>[]>;
    (lists['roles'] ?? []).forEach((role, i) =>
      found.push({ role, rel: ['operatorBox', group, 'roles', i] }),
    );
    (lists['custom'] ?? []).forEach((custom, i) => {
      if (custom['apiVersion'] !== RBAC_API_VERSION) return;
      if (custom['kind'] !== 'Role' && custom['kind'] !== 'ClusterRole') return;
      found.push({ role: custom, rel: ['operatorBox', group, 'custom', i] });
    });
  }
  return found;
}

/** privilegeOf says why a rule value is privileged, or undefined when it is not. */
function privilegeOf(field: (typeof RULE_FIELDS)[number], value: string): string | undefined {
  if (value.includes('*')) return `wildcard ${JSON.stringify(value)}`;
  if (field === 'verbs' && PRIVILEGED_VERBS.has(value)) return `verb ${JSON.stringify(value)}`;
  return undefined;
}

/**
 * roleWildcardIssues finds every wildcard and every `escalate`, `bind` or `impersonate` verb in the
 * rules of the roles a Katalog declares (`roles`, and `custom` Roles and ClusterRoles). The operator
 * must hold every permission it grants, so `ork generate rbac` copies those rules into the
 * operator's own ClusterRole: such a value there would give the operator (and every CR author
 * whose CR makes it write RBAC) that power. Each issue names the file, line, column and field path;
 * `ork validate` and `ork generate` report them as errors unless the entry sets `allowEscalation:
 * true` or {@link ALLOW_RBAC_WILDCARDS_FLAG} is given (ADR 0033).
 */
export function roleWildcardIssues(file: string, text: string, katalog: Katalog): PrivilegedRbacIssue[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const issues: PrivilegedRbacIssue[] = [];
  for (const [entryName, entry] of Object.entries(katalog.spec.crds)) {
    for (const { role, rel } of roleRuleSources(entry)) {
      const source = katalogSourceOf(role);
      const itemNode =
        source != null && source.file === file ? nodeAt(document, lineCounter, source) : undefined;
      const rules = (role['rules'] as readonly Record<string, unknown>[] | undefined) ?? [];
      rules.forEach((rule, ruleIndex) => {
        for (const field of RULE_FIELDS) {
          const values = rule[field];
          if (!Array.isArray(values)) continue;
          values.forEach((value: unknown, valueIndex) => {
            if (typeof value !== 'string') return;
            const what = privilegeOf(field, value);
            if (what == null) return;
            const inRole: PathSegment[] = ['rules', ruleIndex, field, valueIndex];
            const node = (itemNode?.getIn(inRole, true) ?? itemNode) as YamlNode | undefined;
            const offset = node?.range?.[0];
            const at =
              offset != null
                ? lineCounter.linePos(offset)
                : { line: source?.line ?? 1, col: source?.column ?? 1 };
            issues.push({
              file: source?.file ?? file,
              line: at.line,
              column: at.col,
              path:
                source == null
                  ? formatPath(['spec', 'crds', entryName, ...rel, ...inRole])
                  : `${source.documentPath}.${formatPath(inRole)}`,
              message:
                entry.allowEscalation === true
                  ? `${what} in a role rule: the operator is granted it too (accepted by allowEscalation: true on entry ${entryName})`
                  : `${what} in a role rule: the operator would be granted it too (ork generate rbac copies role rules into the operator's ClusterRole); list the ${field} explicitly, or set allowEscalation: true on entry ${entryName} (or pass ${ALLOW_RBAC_WILDCARDS_FLAG}) to accept it`,
              allowed: entry.allowEscalation === true,
            });
          });
        }
      });
    }
  }
  return issues.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** nodeAt finds the map node of the file that starts where a loaded node was declared, if any. */
function nodeAt(
  document: Document,
  lineCounter: LineCounter,
  source: { readonly line: number; readonly column: number },
): (YamlNode & { getIn: (path: readonly unknown[], keepScalar: true) => unknown }) | undefined {
  const lineStart = lineCounter.lineStarts[source.line - 1];
  if (lineStart == null) return undefined;
  const offset = lineStart + source.column - 1;
  let found: YamlNode | undefined;
  visit(document, {
    Map(_key, node) {
      if (node.range?.[0] === offset) {
        found = node;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return isMap(found) ? found : undefined;
}
