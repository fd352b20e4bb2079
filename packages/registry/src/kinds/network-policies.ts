import type { Fields } from '../fields.js';
import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';

type Obj = Record<string, unknown>;

const PROFILES: Readonly<Record<string, (podSelector: Obj) => Obj>> = {
  'deny-all': (podSelector) => ({ podSelector, policyTypes: ['Ingress', 'Egress'] }),
  'deny-all-ingress': (podSelector) => ({ podSelector, policyTypes: ['Ingress'] }),
  'deny-all-egress': (podSelector) => ({ podSelector, policyTypes: ['Egress'] }),
  'allow-same-namespace': (podSelector) => ({
    podSelector,
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ podSelector: {} }] }],
  }),
  'allow-dns-egress': (podSelector) => ({
    podSelector,
    policyTypes: ['Egress'],
    egress: [
      {
        to: [{ namespaceSelector: {} }],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
    ],
  }),
};

function selector(f: Fields | undefined): Obj | undefined {
  if (f == null) return undefined;
  const labels: Record<string, string> = {};
  for (const key of f.keys()) labels[key] = f.str(key) ?? '';
  return Object.keys(labels).length === 0 ? {} : { matchLabels: labels };
}

function peer(p: Fields): Obj {
  const block = p.obj('ipBlock');
  return compact({
    podSelector: selector(p.obj('podSelector')),
    namespaceSelector: selector(p.obj('namespaceSelector')),
    ipBlock:
      block == null ? undefined : compact({ cidr: block.reqStr('cidr'), except: block.strList('except') }),
  });
}

function rule(r: Fields, peersKey: 'from' | 'to'): Obj {
  return compact({
    [peersKey]: r.list(peersKey)?.map(peer),
    ports: r.list('ports')?.map((p) => compact({ protocol: p.str('protocol'), port: p.intOrString('port') })),
  });
}

/**
 * networkPolicies creates NetworkPolicies (`name` required): a `profile` preset, or `ingress` and
 * `egress` rules; `podSelector` (`{}` selects every pod); `policyTypes` derived from the rules.
 */
export const networkPolicies = defineKind({
  listKey: 'networkPolicies',
  build: ({ fields }) => {
    const podSelector = selector(fields.obj('podSelector')) ?? {};
    const profile = fields.str('profile');
    if (profile != null) {
      if (fields.has('ingress') || fields.has('egress'))
        throw templateError(fields.at('profile'), 'is exclusive with `ingress`/`egress`');
      const preset = PROFILES[profile];
      if (preset == null)
        throw templateError(
          fields.at('profile'),
          `must be one of ${Object.keys(PROFILES).join(', ')}, got "${profile}"`,
        );
      return { body: { spec: preset(podSelector) } };
    }
    const ingress = fields.list('ingress')?.map((r) => rule(r, 'from'));
    const egress = fields.list('egress')?.map((r) => rule(r, 'to'));
    const derived = [...(ingress == null ? [] : ['Ingress']), ...(egress == null ? [] : ['Egress'])];
    const policyTypes = fields.strList('policyTypes') ?? (derived.length === 0 ? ['Ingress'] : derived);
    return { body: { spec: compact({ podSelector, policyTypes, ingress, egress }) } };
  },
});
