import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';
import type { RenderedEntry } from '../kind-module.js';
import { podSelectorFor } from '../selector.js';

/**
 * services creates Services (default name `<cr>-svc`): `type` (`ClusterIP`), `headless`, one
 * `port` (with `targetPort`, `protocol`, `nodePort`) or `ports`, and a selector of owner UID + the
 * workload's child label + `selector`.
 */
export const services = defineKind({
  listKey: 'services',
  enrich: { endpoints: true, backingPods: true },
  sibling: { role: 'service', port: firstPort },
  maxNameLength: 63,
  build: ({ fields, owner, hints }) => {
    if (fields.has('port') && fields.has('ports'))
      throw templateError(fields.at('ports'), 'is exclusive with `port`');
    let ports: Record<string, unknown>[];
    const port = fields.int('port');
    const list = fields.list('ports');
    if (port != null) {
      ports = [
        compact({
          port,
          targetPort: fields.intOrString('targetPort') ?? port,
          protocol: fields.str('protocol') ?? 'TCP',
          nodePort: fields.int('nodePort'),
        }),
      ];
    } else if (list != null && list.length > 0) {
      ports = list.map((p) => {
        const n = p.reqInt('port');
        const name = p.str('name');
        if (name == null && list.length > 1)
          throw templateError(p.at('name'), 'is required when there is more than one port');
        return compact({
          name,
          port: n,
          targetPort: p.intOrString('targetPort') ?? n,
          protocol: p.str('protocol') ?? 'TCP',
          nodePort: p.int('nodePort'),
        });
      });
    } else {
      throw templateError(fields.at('port'), 'is required unless `ports` is set');
    }
    return {
      body: {
        spec: compact({
          type: fields.str('type') ?? 'ClusterIP',
          clusterIP: fields.bool('headless') === true ? 'None' : undefined,
          ports,
          selector: podSelectorFor(fields, owner, hints),
        }),
      },
    };
  },
});

/** firstPort is a rendered services entry's first port (`ports[0].port`, else `port`), an ingress's default backend port. */
function firstPort(entry: RenderedEntry): number | undefined {
  const ports = entry['ports'];
  const first = Array.isArray(ports)
    ? (ports[0] as Record<string, unknown> | undefined)?.['port']
    : entry['port'];
  const port =
    typeof first === 'number' ? first : typeof first === 'string' ? Number.parseInt(first, 10) : undefined;
  return port == null || Number.isNaN(port) ? undefined : port;
}
