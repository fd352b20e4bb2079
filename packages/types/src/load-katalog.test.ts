import { describe, expect, it } from 'vitest';
import { loadKatalog, loadKatalogOrThrow } from './load-katalog.js';
import { KatalogError } from './errors.js';
import { katalogPathOf, katalogSourceOf } from './source.js';

const HEAD = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: web}
spec:
`;
// Line 5 is the first line after HEAD.

function load(body: string, options = {}) {
  return loadKatalog({ text: HEAD + body, file: 'k.yaml' }, options);
}

function errors(body: string, options = {}) {
  const result = load(body, options);
  if (result.ok) throw new Error('expected errors');
  return result.errors.map(({ line, column, path, message }) => ({ line, column, path, message }));
}

const WEBSITE = `  crds:
    website:
      apiTypes: {group: demo.example.com, version: v1alpha1, kind: Website, plural: websites}
`;

describe('loadKatalog: success', () => {
  it('applies defaults, normalizes aliases and records sources', () => {
    const result = load(`  crds:
    - name: website
      apiTypes: {group: demo.example.com, version: v1alpha1, kind: Website, plural: websites}
      operatorBox:
        onReconcile:
          or: [{field: spec.on, equals: "true"}]
          pvcs: [{name: data, storage: 1Gi}]
          external: [{name: a, url: "http://a"}]
          deployments: [{image: nginx}]
        onCreate:
          external: [{name: b, url: "http://b"}]
        external: [{name: c, url: "http://c"}]
`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const entry = result.katalog.spec.crds['website'];
    expect(entry?.workers).toBe(3);
    expect(entry?.resync).toBe('10m');
    const group = entry?.operatorBox.onReconcile;
    expect(group?.anyOf).toEqual([{ field: 'spec.on', operator: 'equals', value: 'true', negate: false }]);
    expect(group?.persistentVolumeClaims[0]?.accessModes).toEqual(['ReadWriteOnce']);
    expect(group?.deployments[0]?.replicas).toBe(1);
    expect(entry?.operatorBox.external.map((call) => call.name)).toEqual(['a', 'b', 'c']);
    const pvc = group?.persistentVolumeClaims[0];
    expect(pvc && katalogPathOf(pvc)).toBe('website.operatorBox.onReconcile.pvcs[0]');
    expect(pvc && katalogSourceOf(pvc)).toMatchObject({
      documentPath: 'spec.crds[0].operatorBox.onReconcile.pvcs[0]',
      line: 11,
      column: 18,
    });
    const b = entry?.operatorBox.external[1];
    expect(b && katalogPathOf(b)).toBe('website.operatorBox.onCreate.external[0]');
    expect(Object.isFrozen(entry)).toBe(true);
    expect(result.warnings.map((w) => [w.line, w.column, w.path])).toEqual([
      [12, 11, 'spec.crds[0].operatorBox.onReconcile.external'],
      [15, 11, 'spec.crds[0].operatorBox.onCreate.external'],
    ]);
  });

  it('calls checkTemplate for template strings and reports its message with a position', () => {
    const seen: string[] = [];
    const checkTemplate = (source: string): string | undefined => {
      seen.push(source);
      return source.includes('bad') ? 'unknown helper bad' : undefined;
    };
    const body = `${WEBSITE}      operatorBox:
        onReconcile:
          deployments:
            - image: "{{ spec.image }}"
              name: "{{ bad spec.x }}"
`;
    expect(errors(body, { checkTemplate })).toEqual([
      {
        line: 12,
        column: 21,
        path: 'spec.crds.website.operatorBox.onReconcile.deployments[0].name',
        message: 'template error: unknown helper bad',
      },
    ]);
    expect(seen).toContain('{{ spec.image }}');
  });
});

describe('loadKatalog: validation.external', () => {
  const quota = (boxCall: string) =>
    WEBSITE +
    `      validation:
        external:
          - {name: quota, url: "http://quota/{{ .spec.team }}", fires: {reconcile: true}}
          - {name: admission, url: "http://hook", fires: {reconcile: false}}
        rules: [{field: external.quota.json.allowed, equals: "true", message: over quota}]
      operatorBox:
        external: [{name: ${boxCall}, url: "http://other"}]
`;

  it('loads validation calls beside the rules, with fires', () => {
    const result = load(quota('echo'));
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    const validation = result.katalog.spec.crds['website']?.validation;
    expect(validation?.external.map((call) => [call.name, call.fires?.reconcile])).toEqual([
      ['quota', true],
      ['admission', false],
    ]);
  });

  it('refuses a validation call named like an operatorBox call, at its name', () => {
    expect(errors(quota('quota'))).toEqual([
      expect.objectContaining({
        path: 'spec.crds.website.validation.external[0].name',
        message: expect.stringContaining('external call name quota is used twice'),
      }),
    ]);
  });
});

describe('loadKatalog: entry names', () => {
  it('takes camelCase and snake_case entry names as they are (ADR 0024)', () => {
    const result = load(WEBSITE.replace('    website:', '    declarativeApp:'));
    expect(result.ok && Object.keys(result.katalog.spec.crds)).toEqual(['declarativeApp']);
    const list = load(`  crds:
    - name: my_app2
      apiTypes: {group: demo.example.com, version: v1alpha1, kind: Website, plural: websites}
`);
    expect(list.ok && Object.keys(list.katalog.spec.crds)).toEqual(['my_app2']);
  });
  it('refuses entry names that are not label values, at the key', () => {
    for (const name of ['1app', 'my.app', 'app-', '-app', 'a'.repeat(64)]) {
      const found = errors(WEBSITE.replace('    website:', `    "${name}":`));
      expect(found.find((e) => e.path.startsWith('spec.crds') && e.line === 6)?.message, name).toMatch(
        /letters, digits|at most 63/,
      );
    }
  });
});

describe('loadKatalog: errors with positions', () => {
  it('reports unknown keys with a suggestion, at the key', () => {
    expect(
      errors(`${WEBSITE}      operatorBox:
        onReconcile:
          deployments:
            - image: nginx
              replica: 3
`),
    ).toEqual([
      {
        line: 12,
        column: 15,
        path: 'spec.crds.website.operatorBox.onReconcile.deployments[0].replica',
        message: 'unknown key `replica`; did you mean `replicas`?',
      },
    ]);
  });

  it('reports missing required keys and bad values, all at once', () => {
    expect(
      errors(`${WEBSITE}      workers: 80
      operatorBox:
        onReconcile:
          deployments:
            - replicas: three
`),
    ).toEqual([
      { line: 8, column: 16, path: 'spec.crds.website.workers', message: 'workers must be between 1 and 50' },
      {
        line: 12,
        column: 15,
        path: 'spec.crds.website.operatorBox.onReconcile.deployments[0].image',
        message: 'missing required key `image`',
      },
      {
        line: 12,
        column: 25,
        path: 'spec.crds.website.operatorBox.onReconcile.deployments[0].replicas',
        message: 'expected an integer or a template, got "three"',
      },
    ]);
  });

  it('reports duplicate child names within a group', () => {
    expect(
      errors(`${WEBSITE}      operatorBox:
        onReconcile:
          deployments:
            - {name: "{{ metadata.name }}-web", image: a}
            - {name: "{{ metadata.name }}-web", image: b}
          services: [{port: 80}, {port: 81}]
`),
    ).toEqual([
      {
        line: 12,
        column: 22,
        path: 'spec.crds.website.operatorBox.onReconcile.deployments[1].name',
        message:
          'duplicate child: onReconcile.deployments[0] and [1] both render the name "{{ metadata.name }}-web"',
      },
      {
        line: 13,
        column: 34,
        path: 'spec.crds.website.operatorBox.onReconcile.services[1]',
        message:
          'duplicate child: onReconcile.services[0] and [1] both get the default name; give each a `name`',
      },
    ]);
  });

  it('allows the same name when entries are gated', () => {
    const result = load(`${WEBSITE}      operatorBox:
        onReconcile:
          deployments:
            - {image: a, when: [{field: spec.a, exists: true}]}
            - {image: b, when: [{field: spec.a, exists: false}]}
`);
    expect(result.ok).toBe(true);
  });

  it('reports dependsOn cycles and unknown targets', () => {
    expect(
      errors(`  crds:
    a:
      apiTypes: {group: x.example.com, version: v1, kind: A, plural: as}
      dependsOn: [b]
    b:
      apiTypes: {group: x.example.com, version: v1, kind: B, plural: bs}
      dependsOn: {a: healthy, databse: started}
`),
    ).toEqual([
      { line: 8, column: 19, path: 'spec.crds.a.dependsOn[0]', message: 'dependsOn cycle: a → b → a' },
      {
        line: 11,
        column: 31,
        path: 'spec.crds.b.dependsOn.databse',
        message: 'dependsOn names unknown CRD entry databse',
      },
    ]);
  });

  it('reports provider blocks that name an undeclared provider', () => {
    expect(
      errors(`  providers: [{name: aws, package: "@orkestra/provider-aws"}]
${WEBSITE}      operatorBox:
        providers:
          awss: [{s3: {bucket: b}}]
`),
    ).toEqual([
      {
        line: 11,
        column: 11,
        path: 'spec.crds.website.operatorBox.providers.awss',
        message: 'provider awss is not declared in spec.providers; did you mean aws?',
      },
    ]);
  });

  it('reports a pattern RE2 cannot express at its position, and a templated one without the opt-in', () => {
    expect(
      errors(`${WEBSITE}      validation:
        rules:
          - {field: spec.name, regex: "^(?=a)", message: m}
          - {field: spec.name, regex: "{{ spec.pattern }}", message: m}
`),
    ).toEqual([
      {
        line: 10,
        column: 39,
        path: 'spec.crds.website.validation.rules[0].regex',
        message: expect.stringMatching(/^invalid regular expression: .*RE2 syntax/) as string,
      },
      {
        line: 11,
        column: 39,
        path: 'spec.crds.website.validation.rules[1].regex',
        message: expect.stringContaining('spec.allowTemplatedRegex: true') as string,
      },
    ]);
    const allowed = load(`  allowTemplatedRegex: true
${WEBSITE}      validation:
        rules:
          - {field: spec.name, regex: "{{ spec.pattern }}", message: m}
`);
    expect(allowed.ok).toBe(true);
  });

  it('reports invalid regular expressions and cron schedules', () => {
    expect(
      errors(`${WEBSITE}      operatorBox:
        onReconcile:
          when: [{field: spec.x, regex: "a(b"}]
          cronJobs: [{image: a, schedule: "61 * * * *"}]
        status:
          fields: [{path: p, value: v, when: [{cron: "* * *"}]}]
`),
    ).toEqual([
      {
        line: 10,
        column: 41,
        path: 'spec.crds.website.operatorBox.onReconcile.when[0].regex',
        message: expect.stringContaining('invalid regular expression') as string,
      },
      {
        line: 11,
        column: 43,
        path: 'spec.crds.website.operatorBox.onReconcile.cronJobs[0].schedule',
        message: 'minute value 61 is out of range 0-59',
      },
      {
        line: 13,
        column: 54,
        path: 'spec.crds.website.operatorBox.status.fields[0].when[0].cron',
        message:
          'cron schedule "* * *" must have five fields (minute hour day-of-month month day-of-week), found 3',
      },
    ]);
  });

  it('reports bad durations', () => {
    expect(errors(`${WEBSITE}      resync: 10 minutes\n`)).toEqual([
      {
        line: 8,
        column: 15,
        path: 'spec.crds.website.resync',
        message:
          'invalid duration "10 minutes": expected <number><unit> pairs with units ms, s, m, h, d, w, mo, y (e.g. "30s", "1h30m", "1.5d") or 0',
      },
    ]);
  });

  it('reports YAML syntax errors with their position', () => {
    const result = loadKatalog({
      text: 'apiVersion: x\nkind: [Katalog\nmetadata: {}\n',
      file: 'broken.yaml',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({
      file: 'broken.yaml',
      path: '',
      message: expect.stringContaining('YAML syntax error') as string,
    });
    expect(result.errors[0]?.line).toBeGreaterThanOrEqual(2);
  });

  it('rejects multi-document files clearly', () => {
    const result = loadKatalog({ text: `${HEAD}${WEBSITE}---\nkind: Other\n` });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      {
        file: '<inline>',
        line: 8,
        column: 1,
        path: '',
        message:
          'a Katalog file holds exactly one YAML document, found 2 (separated by ---); split them into separate files',
      },
    ]);
  });

  it('rejects an empty file and a wrong apiVersion', () => {
    expect(loadKatalog({ text: '' })).toMatchObject({
      ok: false,
      errors: [{ line: 1, column: 1, message: 'the file holds no YAML document; expected a Katalog' }],
    });
    const result = loadKatalog({
      text: 'apiVersion: v1\nkind: Katalog\nmetadata: {name: x}\nspec: {crds: {}}\n',
    });
    expect(result.ok ? [] : result.errors.map((e) => [e.line, e.column, e.path, e.message])).toEqual([
      [
        1,
        13,
        'apiVersion',
        'apiVersion must be orkestra.konductor.io/v1alpha1 (or an upstream one: orkestra.konductor.io/v1Alpha, orkestra.orkspace.io/v1, controller.orkestra.io/v1, inrun.dev/v1 with kind Catalog)',
      ],
      [4, 14, 'spec.crds', 'spec.crds needs at least one entry'],
    ]);
  });

  it('rejects using or together with anyOf', () => {
    expect(
      errors(`${WEBSITE}      operatorBox:
        onReconcile:
          anyOf: [{field: a}]
          or: [{field: b}]
`),
    ).toEqual([
      {
        line: 11,
        column: 15,
        path: 'spec.crds.website.operatorBox.onReconcile.or',
        message: '`or` is an alias of `anyOf`; use one of them, not both',
      },
    ]);
  });

  it('accepts env written as a map (upstream) and converts it to the list form', () => {
    const result = load(`${WEBSITE}      operatorBox:
        onReconcile:
          deployments: [{image: a, env: {A: b}}]
`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.katalog.spec.crds['website']?.operatorBox.onReconcile.deployments[0]?.env).toEqual([
      { name: 'A', value: 'b' },
    ]);
    // Two: the env map, and `readiness: reconciled` (an upstream Katalog keeps upstream's Ready).
    expect(result.warnings.map((w) => w.message)).toEqual([
      expect.stringContaining('2 keys were mapped onto the canonical form'),
    ]);
  });

  it('reports a file that cannot be read instead of throwing', () => {
    const result = loadKatalog({ path: '/nonexistent/katalog.yaml' });
    expect(result).toMatchObject({
      ok: false,
      errors: [{ file: '/nonexistent/katalog.yaml', line: 1, column: 1 }],
    });
  });

  it('loadKatalogOrThrow throws a KatalogError carrying every issue', () => {
    expect(() => loadKatalogOrThrow({ text: 'kind: Katalog\n' })).toThrow(KatalogError);
    try {
      loadKatalogOrThrow({ text: 'kind: Katalog\n' });
    } catch (error) {
      expect((error as KatalogError).issues.length).toBe(3);
      expect((error as KatalogError).code).toBe('KatalogInvalid');
    }
  });
});

describe('loadKatalog: kinds registered in the kind table', () => {
  it('loads resourceQuotas, limitRanges and replicaSets with defaults, and reports their errors with positions', () => {
    const result = load(`${WEBSITE}      operatorBox:
        onReconcile:
          resourceQuotas: [{hard: {pods: 10, requests.cpu: "4"}}]
          limitRanges: [{limits: [{max: {cpu: "2"}}]}]
          replicaSets: [{image: nginx}]
        onDelete:
          ordered: true
          groups: [{name: g, replicaSets: [{name: web}], resourceQuotas: [{name: q}]}]
`);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const group = result.katalog.spec.crds['website']?.operatorBox.onReconcile;
    expect(group?.resourceQuotas[0]?.hard).toEqual({ pods: 10, 'requests.cpu': '4' });
    expect(group?.limitRanges[0]?.limits[0]?.type).toBe('Container');
    expect(group?.replicaSets[0]?.replicas).toBe(1);
    expect(
      errors(`${WEBSITE}      operatorBox:
        onReconcile:
          resourceQuotas: [{hard: {pods: lots}}]
          limitRanges: [{name: lr}]
          replicaSets: [{image: nginx, replica: 2}]
`),
    ).toEqual([
      expect.objectContaining({
        line: 10,
        path: 'spec.crds.website.operatorBox.onReconcile.resourceQuotas[0].hard.pods',
      }),
      expect.objectContaining({
        line: 11,
        path: 'spec.crds.website.operatorBox.onReconcile.limitRanges[0].limits',
      }),
      {
        line: 12,
        column: 40,
        path: 'spec.crds.website.operatorBox.onReconcile.replicaSets[0].replica',
        message: 'unknown key `replica`; did you mean `replicas`?',
      },
    ]);
  });
});

describe('loadKatalog: keys and names that look like Object.prototype members', () => {
  it('refuses a `__proto__` key in a map of names, where zod would drop it silently', () => {
    expect(
      errors(`${WEBSITE}    __proto__:
      cacheFor: [1]
`),
    ).toEqual([
      {
        line: 8,
        column: 5,
        path: 'spec.crds.__proto__',
        message: 'a key named `__proto__` is not allowed (JavaScript reads it as the object prototype)',
      },
    ]);
  });

  it('refuses a `__proto__` key in a strict object once, without an `[object Object]` hint', () => {
    const found = errors(`${WEBSITE}      operatorBox:
        status:
          fields:
            - {path: phase, value: x, __proto__: {a: 1}}
`);
    expect(found).toEqual([
      {
        line: 11,
        column: 39,
        path: 'spec.crds.website.operatorBox.status.fields[0].__proto__',
        message: 'a key named `__proto__` is not allowed (JavaScript reads it as the object prototype)',
      },
    ]);
  });

  it('gives unknown keys named after Object.prototype members no hint from the prototype', () => {
    const found = errors(`${WEBSITE}      toString: 1
      constructor: 2
`).map((e) => e.message);
    expect(found).toHaveLength(2);
    for (const message of found) {
      expect(message).toMatch(/^unknown key `(toString|constructor)`/);
      expect(message).not.toMatch(/object Object|native code|function/);
    }
  });

  it('refuses a `__proto__` segment in a written path (mutation field, status path, normalize key)', () => {
    const found = errors(`${WEBSITE}      normalize:
        spec: {"a.__proto__.b": x}
      mutation:
        rules: [{field: spec.__proto__.polluted, default: x}]
      operatorBox:
        status:
          fields: [{path: __proto__.polluted, value: x}]
`).map((e) => `${e.path}: ${e.message}`);
    expect(found).toEqual([
      'spec.crds.website.normalize.spec["a.__proto__.b"]: a path must not contain a `__proto__` segment',
      'spec.crds.website.mutation.rules[0].field: a path must not contain a `__proto__` segment',
      'spec.crds.website.operatorBox.status.fields[0].path: a path must not contain a `__proto__` segment',
    ]);
  });

  it('keeps spec.crds free of prototype members, so unknown names such as `constructor` are reported', () => {
    const result = load(`${WEBSITE}      dependsOn: [constructor]
`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.message)).toEqual(['dependsOn names unknown CRD entry constructor']);
    const loaded = load(WEBSITE);
    expect(loaded.ok && loaded.katalog.spec.crds['constructor']).toBeUndefined();
  });
});
