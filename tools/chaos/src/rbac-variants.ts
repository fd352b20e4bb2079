/**
 * RBAC variants for the "every rule is needed" scenario: the manifests of `ork generate rbac`,
 * and copies with exactly one rule of one (Cluster)Role removed.
 */
import type { Manifest, PolicyRule } from '@orkestra/operator';

/** RbacVariant is a set of RBAC manifests with at most one rule removed. */
export interface RbacVariant {
  /** `all rules`, or `<Kind> <name> rule <i>: <apiGroups>/<resources> [verbs]`. */
  readonly label: string;
  readonly manifests: readonly Manifest[];
}

const isRole = (m: Manifest): boolean => m.kind === 'Role' || m.kind === 'ClusterRole';

/** nameOf returns a manifest's `metadata.name`. */
function nameOf(manifest: Manifest): string {
  const metadata = manifest['metadata'] as { readonly name?: unknown } | undefined;
  return String(metadata?.name ?? '');
}

/** describeRule renders a rule as `group/resource[,…] [verbs] (names)`. */
function describeRule(rule: PolicyRule): string {
  const groups = rule.apiGroups.map((g) => (g === '' ? 'core' : g)).join(',');
  const names =
    rule.resourceNames == null || rule.resourceNames.length === 0 ? '' : ` (${rule.resourceNames.join(',')})`;
  return `${groups}/${rule.resources.join(',')} [${rule.verbs.join(',')}]${names}`;
}

/** rbacVariants returns the full manifests first, then one variant per rule of every Role and ClusterRole. */
export function rbacVariants(manifests: readonly Manifest[]): RbacVariant[] {
  const out: RbacVariant[] = [{ label: 'all rules', manifests }];
  manifests.forEach((manifest, m) => {
    if (!isRole(manifest)) return;
    const rules = (manifest as Manifest & { rules?: readonly PolicyRule[] }).rules ?? [];
    rules.forEach((rule, r) => {
      const reduced = { ...manifest, rules: rules.filter((_, i) => i !== r) } as Manifest;
      out.push({
        label: `${manifest.kind} ${nameOf(manifest)} rule ${r}: ${describeRule(rule)}`,
        manifests: manifests.map((x, i) => (i === m ? reduced : x)),
      });
    });
  });
  return out;
}

/** wildcardsIn lists every `*` in the rules of the Roles and ClusterRoles of `manifests`. */
export function wildcardsIn(manifests: readonly Manifest[]): string[] {
  const found: string[] = [];
  for (const manifest of manifests.filter(isRole)) {
    for (const rule of (manifest as Manifest & { rules?: readonly PolicyRule[] }).rules ?? []) {
      const fields = [...rule.apiGroups, ...rule.resources, ...rule.verbs, ...(rule.resourceNames ?? [])];
      if (fields.some((f) => f.includes('*')))
        found.push(`${manifest.kind} ${nameOf(manifest)}: ${describeRule(rule)}`);
    }
  }
  return found;
}
