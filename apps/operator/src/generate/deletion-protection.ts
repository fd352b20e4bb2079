/**
 * Deletion protection (docs/reference/katalog.md §2.4, ADR 0050): ValidatingAdmissionPolicies on DELETE that the
 * API server evaluates itself, so no webhook has to be reachable for a delete to be judged.
 */
import { MANAGED_BY, OrkestraAnnotation, OrkestraLabel } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { celString } from './admission-cel.js';
import { manifestMetadata } from './manifest-meta.js';
import type { Manifest } from './manifest-meta.js';

/** DeletionProtectionOptions names the operator's namespace, whose service accounts may delete children. */
export interface DeletionProtectionOptions {
  readonly namespace: string;
  /** More user names that may delete children: the operator's own when it runs outside the cluster (`ork dev`). */
  readonly users?: readonly string[];
}

const ALLOWED = `has(oldObject.metadata.annotations) && ${celString(OrkestraAnnotation.AllowDelete)} in oldObject.metadata.annotations && oldObject.metadata.annotations[${celString(OrkestraAnnotation.AllowDelete)}] == 'true'`;

function policy(katalog: Katalog, name: string, spec: Record<string, unknown>): Manifest[] {
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: manifestMetadata(katalog, name),
      spec: { failurePolicy: 'Fail', ...spec },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: manifestMetadata(katalog, name),
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}

/**
 * deletionProtectionPolicies returns the policies and bindings `spec.deletionProtection` asks for
 * (none when it is absent): DELETE of the Katalog's CRDs, and with `children: true` DELETE of an
 * object labelled as a child of one of its entries, is refused unless the object is annotated
 * `orkestra.konductor.io/allow-delete: "true"`. Children stay deletable by the operator (a service
 * account of its namespace), by Kubernetes' own controllers (garbage collection, namespace
 * deletion: service accounts of kube-system), and when a controller other than the CR owns them
 * (a Deployment's pods).
 */
export function deletionProtectionPolicies(katalog: Katalog, options: DeletionProtectionOptions): Manifest[] {
  const protection = katalog.spec.deletionProtection;
  if (protection == null) return [];
  const entries = Object.entries(katalog.spec.crds);
  const out: Manifest[] = [];
  if (protection.crds) {
    const names = entries.map(([, e]) => `${e.apiTypes.plural}.${e.apiTypes.group}`);
    out.push(
      ...policy(katalog, `${katalog.metadata.name}.orkestra-protect-crds`, {
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['apiextensions.k8s.io'],
              apiVersions: ['*'],
              resources: ['customresourcedefinitions'],
              operations: ['DELETE'],
              resourceNames: names,
            },
          ],
        },
        validations: [
          {
            expression: ALLOWED,
            message: `this CustomResourceDefinition is protected by Katalog ${katalog.metadata.name} (deleting it deletes every custom resource of its kind); annotate it ${OrkestraAnnotation.AllowDelete}=true to delete it`,
            reason: 'Forbidden',
          },
        ],
      }),
    );
  }
  if (protection.children) {
    const kinds = entries.map(([, e]) => e.apiTypes.kind);
    out.push(
      ...policy(katalog, `${katalog.metadata.name}.orkestra-protect-children`, {
        matchConstraints: {
          resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['DELETE'] }],
          objectSelector: {
            matchLabels: { [OrkestraLabel.ManagedBy]: MANAGED_BY },
            matchExpressions: [
              { key: OrkestraLabel.Crd, operator: 'In', values: entries.map(([name]) => name) },
            ],
          },
        },
        matchConditions: [
          {
            name: 'not-the-operator-or-a-controller',
            expression: `!(${celString(`system:serviceaccounts:${options.namespace}`)} in request.userInfo.groups) && !('system:serviceaccounts:kube-system' in request.userInfo.groups)${(options.users ?? []).map((u) => ` && request.userInfo.username != ${celString(u)}`).join('')}`,
          },
          {
            name: 'not-owned-by-another-controller',
            expression: `!has(oldObject.metadata.ownerReferences) || !oldObject.metadata.ownerReferences.exists(r, has(r.controller) && r.controller == true && !(r.kind in [${kinds.map(celString).join(', ')}]))`,
          },
        ],
        validations: [
          {
            expression: ALLOWED,
            message: `this object is a child protected by Katalog ${katalog.metadata.name}: delete its custom resource instead, or annotate it ${OrkestraAnnotation.AllowDelete}=true`,
            reason: 'Forbidden',
          },
        ],
      }),
    );
  }
  return out;
}
