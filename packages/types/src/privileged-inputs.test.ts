import { describe, expect, it } from 'vitest';
import { loadKatalog } from './load-katalog.js';

// Privileged Katalog inputs need a literal or an explicit opt-in (docs/reference/katalog.md §6,
// §7.2, §15, ADR 0033): a CR must not choose a credential and its recipient, nor the namespace the
// operator writes children into or reads from.

const katalog = (entry: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: k}
spec:
  crds:
    app:
      apiTypes: {group: a.example.com, version: v1, kind: App, plural: apps}
${entry}`;

function issues(text: string): { line: number; column: number; path: string; message: string }[] {
  const result = loadKatalog({ text, file: 'k.yaml' });
  return result.ok
    ? []
    : result.errors.map(({ line, column, path, message }) => ({ line, column, path, message }));
}

const lineOf = (text: string, needle: string): number =>
  text.slice(0, text.indexOf(needle)).split('\n').length;

describe('external calls with auth', () => {
  const call = (url: string, secretRef: string): string =>
    katalog(`      operatorBox:
        external:
          - name: notify
            url: '${url}'
            method: POST
            auth:
              secretRef: ${secretRef}
`);

  it('refuse a templated Secret name or key beside a literal namespace, each positioned', () => {
    const text = call(
      'https://hooks.example.com/x',
      "{ name: '{{ spec.credential }}', key: '{{ spec.key }}', namespace: platform }",
    );
    expect(issues(text)).toEqual([
      expect.objectContaining({
        line: lineOf(text, 'secretRef:'),
        path: 'spec.crds.app.operatorBox.external[0].auth.secretRef.name',
        message: expect.stringContaining(
          'must be a literal, not a template, when auth.secretRef.namespace is set',
        ),
      }),
      expect.objectContaining({ path: 'spec.crds.app.operatorBox.external[0].auth.secretRef.key' }),
    ]);
  });

  it('refuse a templated scheme, host or port, and accept a templated path and query', () => {
    for (const url of [
      '{{ spec.webhook }}',
      'https://{{ spec.host }}/collect',
      'https://hooks.example.com:{{ spec.port }}/collect',
      'https://hooks.example.com{{ spec.rest }}',
      '{{ spec.scheme }}://hooks.example.com/x',
    ]) {
      const text = call(url, '{ name: api, key: token }');
      expect(issues(text), url).toEqual([
        expect.objectContaining({
          line: lineOf(text, 'url:'),
          column: 18,
          path: 'spec.crds.app.operatorBox.external[0].url',
          message: expect.stringContaining("the URL's scheme, host and port must be literal"),
        }),
      ]);
    }
    expect(
      issues(
        call(
          'https://hooks.example.com/{{ spec.path }}?x={{ spec.q }}',
          "{ name: '{{ metadata.name }}-api', key: token }",
        ),
      ),
    ).toEqual([]);
    expect(
      issues(call('https://hooks.example.com/x', '{ name: api, key: token, namespace: platform }')),
    ).toEqual([]);
  });

  it('apply to validation.external and to env credentials too', () => {
    const text = katalog(`      validation:
        external:
          - name: quota
            url: '{{ spec.quotaUrl }}'
            auth: { env: $QUOTA_TOKEN }
`);
    expect(issues(text)).toEqual([
      expect.objectContaining({ path: 'spec.crds.app.validation.external[0].url' }),
    ]);
    // Without auth a templated URL stays allowed (the address guard still applies at run time).
    expect(issues(text.replace('            auth: { env: $QUOTA_TOKEN }\n', ''))).toEqual([]);
  });
});

describe('child namespaces in a namespaced entry', () => {
  const secrets = (item: string, extra = ''): string =>
    katalog(`${extra}      operatorBox:
        onReconcile:
          secrets:
            - ${item}
`);

  it('refuse a templated namespace without allowedNamespaces, positioned at the namespace', () => {
    const text = secrets(
      "{ name: '{{ metadata.name }}-copy', namespace: '{{ spec.dest }}', data: { a: b } }",
    );
    expect(issues(text)).toEqual([
      expect.objectContaining({
        line: lineOf(text, "{ name: '{{ metadata.name }}-copy'"),
        path: 'spec.crds.app.operatorBox.onReconcile.secrets[0].namespace',
        message: expect.stringContaining('needs `allowedNamespaces`'),
      }),
    ]);
    // The same for a custom child's metadata.namespace.
    const custom = katalog(`      operatorBox:
        onReconcile:
          custom:
            - apiVersion: rbac.authorization.k8s.io/v1
              kind: RoleBinding
              metadata: { name: x, namespace: '{{ spec.dest }}' }
              roleRef: { kind: ClusterRole, name: view, apiGroup: rbac.authorization.k8s.io }
`);
    expect(issues(custom).map((i) => i.path)).toEqual([
      'spec.crds.app.operatorBox.onReconcile.custom[0].metadata.namespace',
    ]);
  });

  it("accept the CR's namespace, a literal, a template with allowedNamespaces, and any namespace in a cluster-scoped entry", () => {
    expect(issues(secrets("{ name: a, namespace: '{{ metadata.namespace }}', data: { a: b } }"))).toEqual([]);
    expect(issues(secrets("{ name: a, namespace: '{{.metadata.namespace}}', data: { a: b } }"))).toEqual([]);
    expect(issues(secrets('{ name: a, namespace: shared, data: { a: b } }'))).toEqual([]);
    expect(
      issues(
        secrets(
          "{ name: a, namespace: '{{ spec.dest }}', data: { a: b } }",
          '      allowedNamespaces: [team-*]\n',
        ),
      ),
    ).toEqual([]);
    expect(
      issues(
        secrets("{ name: a, namespace: '{{ spec.dest }}', data: { a: b } }", '      namespaced: false\n'),
      ),
    ).toEqual([]);
  });

  it('refuse a templated copy source name when the copy may land in another namespace', () => {
    for (const namespace of ['shared', "'{{ spec.dest }}'"]) {
      const text = secrets(
        `{ name: '{{ metadata.name }}-copy', namespace: ${namespace}, copyFrom: { name: '{{ spec.src }}' } }`,
        '      allowedNamespaces: [team-*, shared]\n',
      );
      expect(issues(text), namespace).toEqual([
        expect.objectContaining({
          path: 'spec.crds.app.operatorBox.onReconcile.secrets[0].copyFrom.name',
          message: expect.stringContaining("the copy's namespace may differ from the CR's"),
        }),
      ]);
    }
    expect(
      issues(secrets("{ name: '{{ metadata.name }}-copy', copyFrom: { name: '{{ spec.src }}' } }")),
    ).toEqual([]);
    expect(issues(secrets('{ name: x, namespace: shared, copyFrom: { name: literal-source } }'))).toEqual([]);
  });

  it('refuse a templated cross selector.namespace without allowedNamespaces', () => {
    const cross = (extra = ''): string =>
      katalog(`${extra}      operatorBox:
        cross:
          - { crd: app, selector: { name: payments, namespace: '{{ spec.team }}' } }
`);
    expect(issues(cross())).toEqual([
      expect.objectContaining({
        path: 'spec.crds.app.operatorBox.cross[0].selector.namespace',
        message: expect.stringContaining('needs `allowedNamespaces`'),
      }),
    ]);
    expect(issues(cross('      allowedNamespaces: [team-*]\n'))).toEqual([]);
  });
});

describe('the docker hook', () => {
  const docker = (body: string, git = ''): string =>
    katalog(`      operatorBox:
${git}        docker:
${body}`);
  const GIT = "        git: { repo: 'https://git.example.com/app.git' }\n";

  it('refuses a templated workingDirectory without a git hook, and accepts it with one', () => {
    const body = "          image: 'web:{{ spec.tag }}'\n          workingDirectory: '{{ spec.dir }}'\n";
    expect(issues(docker(body))).toEqual([
      expect.objectContaining({
        path: 'spec.crds.app.operatorBox.docker.workingDirectory',
        message: expect.stringContaining('must be a literal without a git hook'),
      }),
    ]);
    expect(issues(docker(body, GIT))).toEqual([]);
    expect(
      issues(docker('          image: web:1\n          workingDirectory: /var/lib/orkestra/site\n')),
    ).toEqual([]);
  });

  it('refuses push: true unless the image names a literal registry host', () => {
    for (const image of ["'{{ spec.registry }}/x:1'", 'web:1', "'reg{{ spec.r }}.example.com/x:1'"]) {
      expect(issues(docker(`          image: ${image}\n          push: true\n`, GIT)), image).toEqual([
        expect.objectContaining({
          path: 'spec.crds.app.operatorBox.docker.image',
          message: expect.stringContaining('literal registry host'),
        }),
      ]);
    }
    expect(
      issues(
        docker(
          "          image: 'registry.example.com/team/web:{{ spec.tag }}'\n          push: true\n",
          GIT,
        ),
      ),
    ).toEqual([]);
    expect(issues(docker("          image: 'localhost:5000/web:1'\n          push: true\n", GIT))).toEqual(
      [],
    );
  });
});

describe('a remote reconciler with auth', () => {
  it('refuses a templated endpoint, positioned at the endpoint (ADR 0046)', () => {
    const text = katalog(`      operatorBox:
        remote:
          endpoint: 'http://{{ spec.host }}/reconcile'
          auth: { env: TOKEN }
`);
    expect(issues(text)).toEqual([
      expect.objectContaining({
        line: lineOf(text, 'endpoint:'),
        path: 'spec.crds.app.operatorBox.remote.endpoint',
        message: expect.stringContaining('endpoint must be literal when `auth` sends a credential'),
      }),
    ]);
  });
});

describe('spec.allowedRepoHosts', () => {
  const withGit = (hosts: string, repo: string): string =>
    katalog(`      operatorBox:
        git:
          repo: '${repo}'
`).replace('spec:\n', `spec:\n  allowedRepoHosts: ${hosts}\n`);

  it('refuses a literal git repo on another host, positioned at the repo', () => {
    const text = withGit('[git.example.com, "*.corp.example"]', 'https://evil.example.org/org/r.git');
    expect(issues(text)).toEqual([
      expect.objectContaining({
        line: lineOf(text, 'repo:'),
        path: 'spec.crds.app.operatorBox.git.repo',
        message:
          'git repo host "evil.example.org" is not in spec.allowedRepoHosts (git.example.com, *.corp.example)',
      }),
    ]);
  });

  it('accepts a listed host, a subdomain of a *. item, a templated repo (checked when it renders) and no list', () => {
    expect(issues(withGit('[git.example.com]', 'https://git.example.com/org/r.git'))).toEqual([]);
    expect(issues(withGit('["*.corp.example"]', 'git@src.corp.example:org/r.git'))).toEqual([]);
    expect(issues(withGit('[git.example.com]', '{{ spec.repo }}'))).toEqual([]);
    expect(
      issues(
        withGit('[git.example.com]', 'https://evil.example.org/r.git').replace(
          / {2}allowedRepoHosts.*\n/,
          '',
        ),
      ),
    ).toEqual([]);
  });

  it('refuses a git repo with whitespace or a control character, positioned at the repo', () => {
    const plain = (repo: string): string =>
      katalog(`      operatorBox:
        git:
          repo: "${repo}"
`);
    for (const repo of [
      'git@a\\ntouch\\tPWNED\\n.attacker.example:org/repo.git',
      'ssh://git@a\\rb.example/org/r.git',
      'https://git.example.com/org/r .git',
      '{{ spec.org }}\\n/r.git',
    ]) {
      const text = plain(repo);
      expect(issues(text)).toEqual([
        expect.objectContaining({
          line: lineOf(text, 'repo:'),
          path: 'spec.crds.app.operatorBox.git.repo',
          message: expect.stringContaining('a repository URL has no whitespace or control character'),
        }),
      ]);
    }
    expect(issues(plain('https://{{ spec.host }}/org/r.git'))).toEqual([]);
  });

  it('refuses an item that is not a host name, and an empty list', () => {
    const text = withGit('["https://git.example.com", "*"]', 'https://git.example.com/r.git');
    expect(issues(text).map((i) => i.path)).toEqual(
      expect.arrayContaining(['spec.allowedRepoHosts[0]', 'spec.allowedRepoHosts[1]']),
    );
    expect(issues(withGit('[]', 'https://git.example.com/r.git')).map((i) => i.message)).toEqual([
      'list at least one host, or leave allowedRepoHosts out',
    ]);
  });
});
