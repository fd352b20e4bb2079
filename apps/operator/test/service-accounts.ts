/**
 * ServiceAccounts for the integration tests that call the operator's cross-read and Control Center
 * ports as a Kubernetes user: a token from the TokenRequest API, and a namespaced Role bound to the
 * account, so the real TokenReview and SubjectAccessReview decide.
 */
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';

/** ServiceAccountTokenOptions names the account and the audiences its token is for. */
export interface ServiceAccountTokenOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  readonly audiences: readonly string[];
}

/** serviceAccountToken creates the ServiceAccount when it is absent and returns an hour-long token for it. */
export async function serviceAccountToken(o: ServiceAccountTokenOptions): Promise<string> {
  const core = o.kubeConfig.makeApiClient(CoreV1Api);
  await core
    .createNamespacedServiceAccount({ namespace: o.namespace, body: { metadata: { name: o.name } } })
    .catch(() => undefined);
  const answer = await core.createNamespacedServiceAccountToken({
    name: o.name,
    namespace: o.namespace,
    body: { spec: { audiences: [...o.audiences], expirationSeconds: 3600 } },
  });
  return answer.status?.token ?? '';
}

/** GrantOptions names the Role (and its binding) and what it allows the ServiceAccount. */
export interface GrantOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  /** The Role's and the RoleBinding's name. */
  readonly name: string;
  readonly group: string;
  readonly plural: string;
  readonly verbs: readonly string[];
  readonly serviceAccount: string;
}

/** grant creates a Role allowing `verbs` on `group`/`plural` and binds it to the ServiceAccount. */
export async function grant(o: GrantOptions): Promise<void> {
  const rbac = o.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: o.namespace,
    body: {
      metadata: { name: o.name },
      rules: [{ apiGroups: [o.group], resources: [o.plural], verbs: [...o.verbs] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: o.namespace,
    body: {
      metadata: { name: o.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: o.name },
      subjects: [{ kind: 'ServiceAccount', name: o.serviceAccount, namespace: o.namespace }],
    },
  });
}
