import { templateError } from '../fields.js';
import { compact, defineKind } from '../kind-module.js';

/**
 * ingresses creates Ingresses (default name `<cr>-ingress`) with one rule and one path: `host`,
 * `path` (`/`), `pathType` (`Prefix`), `className`, `serviceName`/`servicePort` (default the CR's
 * single Service and its first port, from ResolveHints) and `tls`. Generating the TLS Secret
 * (`tls.create`) is the runtime's job; the Ingress only references it.
 */
export const ingresses = defineKind({
  listKey: 'ingresses',
  build: ({ fields, owner, hints }) => {
    const host = fields.str('host');
    const serviceName = fields.str('serviceName') ?? hints.defaultService?.name;
    if (serviceName == null || serviceName === '')
      throw templateError(fields.at('serviceName'), 'is required (the CR has no single Service child)');
    const servicePort = fields.intOrString('servicePort') ?? hints.defaultService?.port;
    if (servicePort == null)
      throw templateError(fields.at('servicePort'), 'is required (the CR has no single Service child)');
    const tls = fields.obj('tls');
    const rule = compact({
      host: host === '' ? undefined : host,
      http: {
        paths: [
          {
            path: fields.str('path') ?? '/',
            pathType: fields.str('pathType') ?? 'Prefix',
            backend: {
              service: {
                name: serviceName,
                port: typeof servicePort === 'number' ? { number: servicePort } : { name: servicePort },
              },
            },
          },
        ],
      },
    });
    const tlsHosts = tls?.strList('hosts') ?? (host == null || host === '' ? undefined : [host]);
    return {
      body: {
        spec: compact({
          ingressClassName: fields.str('className'),
          rules: [rule],
          tls:
            tls == null
              ? undefined
              : [compact({ hosts: tlsHosts, secretName: tls.str('secretName') ?? `${owner.name}-tls` })],
        }),
      },
    };
  },
});
