/**
 * RBAC variants for the "every verb is needed" scenario: the manifests of `ork generate rbac`,
 * and copies with exactly one verb on one resource of one rule of one (Cluster)Role removed, each
 * with the 403 that proves the e2e needed it (matched against the API server's audit log).
 */
import type { Manifest, PolicyRule } from '@orkestra/operator';

/** RemovedGrant is the one verb on one resource a variant takes away. */
export interface RemovedGrant {
  readonly role: string;
  readonly apiGroup: string;
  /** `shops`, or a subresource as `shops/status`. */
  readonly resource: string;
  readonly verb: string;
}

/** RbacVariant is a set of RBAC manifests with at most one verb removed. */
export interface RbacVariant {
  /** `all rules`, or `<Kind> <name>: <apiGroup>/<resource> [<verb>]`. */
  readonly label: string;
  readonly manifests: readonly Manifest[];
  /** Undefined for the full set. */
  readonly removed?: RemovedGrant;
}

const isRole = (m: Manifest): boolean => m.kind === 'Role' || m.kind === 'ClusterRole';

/** nameOf returns a manifest's `metadata.name`. */
function nameOf(manifest: Manifest): string {
  const metadata = manifest['metadata'] as { readonly name?: unknown } | undefined;
  return String(metadata?.name ?? '');
}

function rulesOf(manifest: Manifest): readonly PolicyRule[] {
  return (manifest as Manifest & { rules?: readonly PolicyRule[] }).rules ?? [];
}

/** describeRule renders a rule as `group/resource[,…] [verbs] (names)`. */
function describeRule(rule: PolicyRule): string {
  const groups = rule.apiGroups.map((g) => (g === '' ? 'core' : g)).join(',');
  const names =
    rule.resourceNames == null || rule.resourceNames.length === 0 ? '' : ` (${rule.resourceNames.join(',')})`;
  return `${groups}/${rule.resources.join(',')} [${rule.verbs.join(',')}]${names}`;
}

/** withoutGrant returns `rule` minus `verb` on `apiGroup`/`resource`, split into as few rules as that needs. */
function withoutGrant(rule: PolicyRule, apiGroup: string, resource: string, verb: string): PolicyRule[] {
  const names = rule.resourceNames == null ? {} : { resourceNames: rule.resourceNames };
  const out: PolicyRule[] = [];
  const otherGroups = rule.apiGroups.filter((g) => g !== apiGroup);
  if (otherGroups.length > 0) out.push({ ...rule, apiGroups: otherGroups });
  const otherResources = rule.resources.filter((r) => r !== resource);
  if (otherResources.length > 0) out.push({ ...rule, apiGroups: [apiGroup], resources: otherResources });
  const otherVerbs = rule.verbs.filter((v) => v !== verb);
  if (otherVerbs.length > 0)
    out.push({ apiGroups: [apiGroup], resources: [resource], verbs: otherVerbs, ...names });
  return out;
}

/**
 * rbacVariants returns the full manifests first, then one variant per verb per resource of every
 * rule of every Role and ClusterRole (minimality per verb, not only per rule).
 */
export function rbacVariants(manifests: readonly Manifest[]): RbacVariant[] {
  const out: RbacVariant[] = [{ label: 'all rules', manifests }];
  manifests.forEach((manifest, m) => {
    if (!isRole(manifest)) return;
    const rules = rulesOf(manifest);
    rules.forEach((rule, r) => {
      for (const apiGroup of rule.apiGroups)
        for (const resource of rule.resources)
          for (const verb of rule.verbs) {
            const reduced = {
              ...manifest,
              rules: rules.flatMap((x, i) => (i === r ? withoutGrant(x, apiGroup, resource, verb) : [x])),
            } as Manifest;
            const names =
              rule.resourceNames == null || rule.resourceNames.length === 0
                ? ''
                : ` (${rule.resourceNames.join(',')})`;
            out.push({
              label: `${manifest.kind} ${nameOf(manifest)}: ${apiGroup === '' ? 'core' : apiGroup}/${resource} [${verb}]${names}`,
              manifests: manifests.map((x, i) => (i === m ? reduced : x)),
              removed: { role: `${manifest.kind} ${nameOf(manifest)}`, apiGroup, resource, verb },
            });
          }
    });
  });
  return out;
}

/** AuditEvent is the part of a kube-apiserver audit event (audit.k8s.io/v1) the proof reads. */
export interface AuditEvent {
  readonly stage?: string;
  readonly verb?: string;
  readonly user?: { readonly username?: string };
  readonly objectRef?: {
    readonly resource?: string;
    readonly subresource?: string;
    readonly apiGroup?: string;
  };
  readonly responseStatus?: { readonly code?: number; readonly message?: string };
}

/** parseAuditLog reads the JSON lines of an audit log, skipping lines that are not events. */
export function parseAuditLog(text: string): AuditEvent[] {
  const events: AuditEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as AuditEvent);
    } catch {
      // a line cut by a concurrent write: not an event yet
    }
  }
  return events;
}

/**
 * forbiddenProof returns the first audit event that shows `username` got a 403 because of
 * `removed`: that verb on that resource (and subresource) of that API group. An `update` of
 * `<plural>/finalizers` is checked by the OwnerReferencesPermissionEnforcement admission plugin
 * inside another request (a child's create or patch with `blockOwnerDeletion`), so its proof is
 * that request's 403 naming finalizers.
 */
export function forbiddenProof(
  events: readonly AuditEvent[],
  username: string,
  removed: RemovedGrant,
): AuditEvent | undefined {
  const [resource, subresource] = removed.resource.split('/');
  return events.find((e) => {
    if (e.user?.username !== username || e.responseStatus?.code !== 403) return false;
    if (subresource === 'finalizers' && removed.verb === 'update')
      return /finalizers/.test(e.responseStatus.message ?? '');
    const ref = e.objectRef;
    // A server-side apply that creates is a PATCH the API server also authorizes as `create`:
    // its 403 names that verb in the message.
    const createByApply =
      removed.verb === 'create' &&
      e.verb === 'patch' &&
      (e.responseStatus.message ?? '').includes(`cannot create resource "${resource ?? ''}"`);
    // A 403 whose message names another verb is not a proof for this one.
    const named = /cannot (\w+) resource/.exec(e.responseStatus.message ?? '')?.[1];
    if (named != null && named !== removed.verb) return false;
    return (
      (e.verb === removed.verb || createByApply) &&
      ref != null &&
      ref.resource === resource &&
      ref.subresource === subresource &&
      (ref.apiGroup ?? '') === removed.apiGroup
    );
  });
}

/** wildcardsIn lists every `*` in the rules of the Roles and ClusterRoles of `manifests`. */
export function wildcardsIn(manifests: readonly Manifest[]): string[] {
  const found: string[] = [];
  for (const manifest of manifests.filter(isRole)) {
    for (const rule of rulesOf(manifest)) {
      const fields = [...rule.apiGroups, ...rule.resources, ...rule.verbs, ...(rule.resourceNames ?? [])];
      if (fields.some((f) => f.includes('*')))
        found.push(`${manifest.kind} ${nameOf(manifest)}: ${describeRule(rule)}`);
    }
  }
  return found;
}
