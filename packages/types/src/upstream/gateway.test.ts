import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/**
 * Upstream's `gateway.clusters` and `serve.clusters` (docs/reference/katalog.md §24, ADR 0094): the
 * gateway is dropped, but what upstream's validator refuses there is refused at its key. Fixtures
 * are written here from upstream's type definitions and validator rules, not copied.
 */

const INRUN = 'inrun.dev/v1';

/** katalog is the `website` entry with `serve` lines and a `gateway` block, in `apiVersion`. */
const katalog = (serve: string, gateway: string, apiVersion = INRUN): string =>
  `${head(apiVersion).replace('kind: Katalog', apiVersion === INRUN ? 'kind: Catalog' : 'kind: Katalog')}${serve}gateway:
  enabled: true
${gateway}`;

const SERVE = `      serve:
        enabled: true
        namespace: default
`;

const cluster = (name: string, body: string) =>
  `    ${name}:\n      endpoint: https://${name}.example:6443\n${body}`;
const kubeconfig = '      secretRef: {name: creds, key: kubeconfig}\n';

const errorsOf = (text: string) => {
  const result = load(text);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.errors.map((e) => [e.line, e.column, e.path, e.message]);
};

describe('upstream gateway.clusters', () => {
  it.each([INRUN, 'orkestra.orkspace.io/v1'])('coherent clusters and references load (%s)', (v) => {
    const result = ok(
      load(
        katalog(
          `${SERVE}        clusters: [east, west]\n        target:\n          main:\n            clusters: [west]\n`,
          `  clusters:\n${cluster('east', kubeconfig)}${cluster('west', '      tokenRef: {name: t, key: token}\n      insecure: true\n')}`,
          v,
        ),
      ),
    );
    expect(result.katalog.spec.crds['website']).not.toHaveProperty('serve');
    expect(result.katalog).not.toHaveProperty('gateway');
  });

  it('a cluster without endpoint is refused at the cluster', () => {
    expect(errorsOf(katalog('', `  clusters:\n    east:\n${kubeconfig}`))).toEqual([
      [
        16,
        5,
        'gateway.clusters.east.endpoint',
        'endpoint is required (upstream refuses a cluster without one)',
      ],
    ]);
  });

  it('a cluster without a credential form is refused', () => {
    const [error] = errorsOf(katalog('', `  clusters:\n${cluster('east', '')}`));
    expect(error?.slice(0, 3)).toEqual([16, 5, 'gateway.clusters.east']);
    expect(error?.[3]).toMatch(/credential form is required/);
  });

  it('a kubeconfig and a token together are refused at tokenRef', () => {
    const [error] = errorsOf(
      katalog('', `  clusters:\n${cluster('east', `${kubeconfig}      tokenRef: {name: t, key: token}\n`)}`),
    );
    expect(error?.slice(0, 3)).toEqual([19, 7, 'gateway.clusters.east.tokenRef']);
    expect(error?.[3]).toMatch(/mutually exclusive/);
  });

  it('a token without caRef (and not insecure) and a ref without key are refused', () => {
    expect(
      errorsOf(katalog('', `  clusters:\n${cluster('east', '      tokenRef: {name: t}\n')}`)).map(
        (e) => e[2],
      ),
    ).toEqual(['gateway.clusters.east.tokenRef', 'gateway.clusters.east.tokenRef']);
  });

  it('insecure with a kubeconfig is refused', () => {
    const [error] = errorsOf(
      katalog('', `  clusters:\n${cluster('east', `${kubeconfig}      insecure: true\n`)}`),
    );
    expect(error?.[2]).toBe('gateway.clusters.east.insecure');
  });

  it.each([INRUN, 'orkestra.orkspace.io/v1'])(
    'a serve cluster not declared in gateway.clusters is refused at its item (%s)',
    (v) => {
      expect(
        errorsOf(
          katalog(`${SERVE}        clusters: [north]\n`, `  clusters:\n${cluster('east', kubeconfig)}`, v),
        ),
      ).toEqual([
        [
          16,
          20,
          'spec.crds.website.serve.clusters[0]',
          'cluster "north" is not defined in gateway.clusters (declared: east; upstream refuses it)',
        ],
      ]);
    },
  );

  it('a target cluster outside serve.clusters is refused', () => {
    const [error] = errorsOf(
      katalog(
        `${SERVE}        clusters: [east]\n        target:\n          main:\n            clusters: [west]\n`,
        `  clusters:\n${cluster('east', kubeconfig)}${cluster('west', kubeconfig)}`,
      ),
    );
    expect(error?.[2]).toBe('spec.crds.website.serve.target.main.clusters[0]');
    expect(error?.[3]).toMatch(/not declared in serve.clusters/);
  });

  it('the serve block of a disabled entry is not checked, as upstream', () => {
    const text = katalog(
      `      enabled: false\n${SERVE}        clusters: [north]\n        fields:\n          a-b: {value: x}\n`,
      `  clusters:\n${cluster('east', kubeconfig)}`,
    );
    ok(load(text));
    expect(load(text.replace('enabled: false\n', ''))).toMatchObject({ ok: false });
  });

  it('a disabled gateway is not checked, as upstream', () => {
    ok(
      load(
        katalog('', `  clusters:\n    east: {}\n`).replace(
          'enabled: true\n  clusters',
          'enabled: false\n  clusters',
        ),
      ),
    );
  });

  it('a cluster template is compiled with the loader’s checkTemplate, at its item', () => {
    const text = katalog(
      `${SERVE}        clusters: ['{{ nope .request.env }}', '{{ .request.env }}']\n`,
      `  clusters:\n${cluster('east', kubeconfig)}`,
    );
    const checkTemplate = (source: string) => (source.includes('nope') ? 'unknown helper "nope"' : undefined);
    const result = loadKatalog({ text, file: 'katalog.yaml' }, { checkTemplate });
    expect(result.ok ? [] : result.errors.map((e) => [e.line, e.column, e.path, e.message])).toEqual([
      [16, 20, 'spec.crds.website.serve.clusters[0]', 'invalid cluster template: unknown helper "nope"'],
    ]);
  });
});

describe('other upstream validator rules', () => {
  it('a second watch of the same object set is refused at the second item', () => {
    const text = `${head(INRUN).replace('kind: Katalog', 'kind: Catalog')}      operatorBox:
        observe:
          watch:
            - {apiVersion: v1, kind: ConfigMap}
            - {apiVersion: v1, kind: ConfigMap, namespace: other}
            - {apiVersion: v1, kind: ConfigMap}
`;
    expect(errorsOf(text)).toEqual([
      [
        18,
        15,
        'spec.crds.website.watch[2]',
        'duplicate watch entry v1/ConfigMap: watch entries must be unique (upstream refuses it); remove one',
      ],
    ]);
  });

  it('a serve field name with a hyphen is refused', () => {
    const [error] = errorsOf(
      `${head(INRUN).replace('kind: Katalog', 'kind: Catalog')}${SERVE}        fields:\n          team-name: {value: '{{ .value }}'}\n`,
    );
    expect(error?.slice(0, 3)).toEqual([17, 11, 'spec.crds.website.serve.fields.team-name']);
    expect(error?.[3]).toMatch(/must not contain a hyphen.*team_name/);
  });
});
