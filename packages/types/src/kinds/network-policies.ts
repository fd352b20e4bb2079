import { z } from 'zod';
import { gated } from '../schema/condition.js';
import { IntOrName, TemplateValue, Tpl, TplList, TplMap } from '../schema/primitives.js';
import { commonShape, exclusive, requireName } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

const NetworkPeer = z.strictObject({
  podSelector: TemplateValue.optional(),
  namespaceSelector: TemplateValue.optional(),
  ipBlock: z.strictObject({ cidr: Tpl, except: TplList.optional() }).optional(),
});
const NetworkPolicyPort = z.strictObject({ protocol: Tpl.optional(), port: IntOrName.optional() });

/** NetworkPolicyEntry is an item of `networkPolicies`; `name` is required. */
const NetworkPolicyEntrySchema = gated({
  ...commonShape,
  profile: z
    .enum(['deny-all', 'deny-all-ingress', 'deny-all-egress', 'allow-same-namespace', 'allow-dns-egress'])
    .optional(),
  podSelector: TplMap.default({}),
  ingress: z
    .array(
      z.strictObject({ from: z.array(NetworkPeer).optional(), ports: z.array(NetworkPolicyPort).optional() }),
    )
    .optional(),
  egress: z
    .array(
      z.strictObject({ to: z.array(NetworkPeer).optional(), ports: z.array(NetworkPolicyPort).optional() }),
    )
    .optional(),
  policyTypes: z.array(z.enum(['Ingress', 'Egress'])).optional(),
}).superRefine((entry, ctx) => {
  requireName(entry, ctx, 'networkPolicies');
  exclusive(ctx, entry, 'profile', 'ingress');
  exclusive(ctx, entry, 'profile', 'egress');
});
/** NetworkPolicyEntry is a network policy entry. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface NetworkPolicyEntry extends z.output<typeof NetworkPolicyEntrySchema> {}
/** NetworkPolicyEntry is an item of `networkPolicies`; `name` is required. */
export const NetworkPolicyEntry: z.ZodType<NetworkPolicyEntry> = NetworkPolicyEntrySchema.meta({
  id: 'NetworkPolicyEntry',
});

/** networkPolicies is the `networkPolicies` list: NetworkPolicy children (networking.k8s.io/v1). */
export const networkPolicies = defineResourceKind({
  listKey: 'networkPolicies',
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  namespaced: true,
  defaultNameSuffix: null,
  wave: 5,
  entry: NetworkPolicyEntry,
});
