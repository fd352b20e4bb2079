import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { evaluateCondition, evaluateConditions, loadKatalog } from '@orkestra/types';
import type { Condition, Katalog, ValidationRule } from '@orkestra/types';
import { afterAll, describe, expect, it } from 'vitest';
import { planAdmission } from '../src/generate/admission.js';
import { createApiTransport } from '../src/process/api-transport.js';
import { installCrds } from '../src/process/install-crds.js';
import { documentsOf } from './apply.js';
import { kubeRequest } from './kube-raw.js';
import type { RawResponse } from './kube-raw.js';
import { REPO_ROOT, runOrk } from './run-ork.js';

// Admission that the API client sees (docs/reference/katalog.md §2.4, §11, §12; ADR 0049, ADR 0050), on the
// real local control plane: the CEL `ork generate` writes gives the verdict of the reconcile-time
// evaluator on generated objects; a bad CR is denied with the rule's message, a warn rule admits
// with a Warning header, a default is stored, a protected CRD is deleted only when annotated.

const env = useControlPlane();
const work = mkdtempSync(join(tmpdir(), 'ork-admission-'));
const cleanup: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

function katalogFile(name: string, text: string): { file: string; katalog: Katalog } {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, text);
  const loaded = loadKatalog({ path: file });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return { file, katalog: loaded.katalog };
}

async function established(name: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const crd = await kubeRequest(
      env.kubeConfig,
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    const conditions = (crd.body['status'] as { conditions?: { type: string; status: string }[] } | undefined)
      ?.conditions;
    if (conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`CRD ${name} not established`);
}

/** install applies `ork generate crd` and `ork generate policies` output for real. */
async function install(file: string): Promise<void> {
  const crds = await runOrk(['generate', 'crd', file]);
  expect(crds.code, crds.stderr).toBe(0);
  const policies = await runOrk(['generate', 'policies', file, '-n', env.namespace]);
  expect(policies.code, policies.stderr).toBe(0);
  // Created as the JSON `ork generate` writes: a typed client would drop the `x-kubernetes-*` keys.
  const crdObjects = documentsOf(crds.stdout);
  for (const crd of crdObjects) {
    const created = await kubeRequest(
      env.kubeConfig,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  for (const crd of crdObjects) {
    const name = crd.metadata?.name ?? '';
    cleanup.push(async () => {
      await kubeRequest(
        env.kubeConfig,
        'PATCH',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
        {
          metadata: { annotations: { 'orkestra.konductor.io/allow-delete': 'true' } },
        },
      ).catch(() => undefined);
      return kubeRequest(
        env.kubeConfig,
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
    });
    await established(name);
  }
  const policyObjects = documentsOf(policies.stdout);
  for (const policy of policyObjects) {
    const plural =
      policy.kind === 'ValidatingAdmissionPolicy'
        ? 'validatingadmissionpolicies'
        : 'validatingadmissionpolicybindings';
    const created = await kubeRequest(
      env.kubeConfig,
      'POST',
      `/apis/admissionregistration.k8s.io/v1/${plural}`,
      policy,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    cleanup.push(() =>
      kubeRequest(
        env.kubeConfig,
        'DELETE',
        `/apis/admissionregistration.k8s.io/v1/${plural}/${policy.metadata?.name ?? ''}`,
      ),
    );
  }
}

function crPath(katalog: Katalog, entry: string, dryRun: boolean): string {
  const types = katalog.spec.crds[entry]?.apiTypes;
  if (types == null) throw new Error(`no entry ${entry}`);
  return `/apis/${types.group}/${types.version}/namespaces/${env.namespace}/${types.plural}${dryRun ? '?dryRun=All' : ''}`;
}

function crBody(katalog: Katalog, entry: string, spec: unknown): Record<string, unknown> {
  const types = katalog.spec.crds[entry]?.apiTypes;
  return {
    apiVersion: `${types?.group ?? ''}/${types?.version ?? ''}`,
    kind: types?.kind,
    metadata: { generateName: 'cr-', namespace: env.namespace },
    ...(spec === undefined ? {} : { spec }),
  };
}

/** Polls until `probe` is true: a new policy takes effect after the API server reloads its policies. */
async function eventually(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// ---- the same verdict both ways ------------------------------------------------------------------

/** mulberry32 is a small seeded generator, so a failing object can be made again from its seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  '',
  'myorg/app',
  'myorg/',
  'nginx',
  'x',
  'v',
  'development',
  'production',
  '5',
  '2.5',
  '0',
  '-1',
  '12',
  '3.5',
  '1e1',
  ' 7',
  '+4',
  '.5',
  '5.',
  'abc-x',
  'tmp-1',
  'true',
  'app.io',
  'my-app/api',
  'ünïcode/ok',
  '[1]',
  '{}',
  'a',
  'b',
];
const INTS = [-3, 0, 1, 2, 3, 5, 7, 10, 11, 150, 2 ** 40];
const DOUBLES = [2.5, 0.5, -1.5, 3.25, 150.5, 1e-7, 1234567.5];

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

function anyValue(rand: () => number, depth = 0): unknown {
  const kind = Math.floor(rand() * (depth > 1 ? 5 : 7));
  switch (kind) {
    case 0:
      return pick(rand, STRINGS);
    case 1:
      return pick(rand, INTS);
    case 2:
      return pick(rand, DOUBLES);
    case 3:
      return rand() < 0.5;
    case 4:
      return null;
    case 5:
      return Array.from({ length: Math.floor(rand() * 3) }, () => anyValue(rand, depth + 1));
    default:
      return rand() < 0.3 ? {} : { k: anyValue(rand, depth + 1) };
  }
}

/** A spec for the entry without a schema: each field absent or any JSON value. */
function looseSpec(rand: () => number): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const key of ['image', 'replicas', 'env', 'rate', 'kind', 'm', 'list', 'flag', 'gone']) {
    if (rand() < 0.2) continue;
    // Fields compared as text are mostly strings, and spec.m is often {k: "v"}, so each rule both passes and fails.
    if ((key === 'image' || key === 'kind') && rand() < 0.6) spec[key] = pick(rand, STRINGS);
    else if (key === 'm' && rand() < 0.3) spec[key] = { k: rand() < 0.5 ? 'v' : pick(rand, STRINGS) };
    else spec[key] = anyValue(rand);
  }
  return spec;
}

/** A spec for the entry with a schema: each field absent or a value of its declared type. */
function typedSpec(rand: () => number): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  const maybe = (key: string, make: () => unknown): void => {
    if (rand() >= 0.15) spec[key] = make();
  };
  maybe('s', () => pick(rand, STRINGS));
  maybe('t', () => pick(rand, STRINGS));
  maybe('i', () => pick(rand, INTS));
  maybe('n', () => (rand() < 0.5 ? pick(rand, INTS) : pick(rand, DOUBLES)));
  maybe('b', () => rand() < 0.5);
  maybe('arr', () => Array.from({ length: Math.floor(rand() * 3) }, () => pick(rand, STRINGS)));
  maybe('obj', () => (rand() < 0.3 ? {} : { k: pick(rand, STRINGS) }));
  return spec;
}

const EQUIVALENCE = (group: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: admission-equivalence }
spec:
  crds:
    typed:
      apiTypes: { group: ${group}, version: v1, kind: Typed, plural: typeds }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                s: { type: string }
                t: { type: string }
                i: { type: integer }
                n: { type: number }
                b: { type: boolean }
                arr: { type: array, items: { type: string } }
                obj: { type: object, properties: { k: { type: string } } }
      validation:
        rules:
          - { field: spec.s, prefix: "myorg/", message: T00 }
          - { field: spec.s, regex: "^[a-z]+/[a-z0-9-]+$", message: T01 }
          - { field: spec.s, contains: "app", negate: true, message: T02 }
          - { field: spec.t, gt: 2, message: T03 }
          - { field: spec.t, in: "a,b,5", message: T04 }
          - { field: spec.i, between: [1, 5], message: T05 }
          - { field: spec.i, equals: "3", message: T06 }
          - { field: spec.n, lte: 2.5, message: T07 }
          - { field: spec.b, equals: "true", message: T08 }
          - { field: spec.arr, contains: "x", message: T09 }
          - { field: spec.obj.k, exists: true, message: T10 }
          - { field: spec.s, operator: typeString, message: T11 }
          - { field: spec.i, notEquals: "0", when: [{ field: spec.b, equals: "true" }], message: T12 }
          - field: spec.s
            suffix: ".io"
            anyOf: [{ field: spec.i, gt: 3 }, { field: spec.t, exists: true }]
            message: T13
          - { field: spec.s, notIn: [nginx, x], message: T14 }
          - { field: spec.n, notBetween: "-1,1", message: T15 }
    loose:
      apiTypes: { group: ${group}, version: v1, kind: Loose, plural: looses }
      validation:
        rules:
          - { field: spec.image, prefix: "myorg/", action: warn, message: L00 }
          - { field: spec.replicas, gt: 0, action: warn, message: L01 }
          - { field: spec.replicas, lte: 10, action: warn, message: L02 }
          - { field: spec.env, in: "development,production,5,2.5", action: warn, message: L03 }
          - { field: spec.env, equals: "2.5", action: warn, message: L04 }
          - { field: spec.rate, exists: true, action: warn, message: L05 }
          - { field: spec.kind, suffix: "-x", action: warn, message: L06 }
          - { field: spec.kind, notPrefix: "tmp", action: warn, message: L07 }
          - { field: spec.m.k, equals: "v", action: warn, message: L08 }
          - { field: spec.replicas, between: "1,5", action: warn, message: L09 }
          - { field: spec.env, operator: typeOf, value: string, action: warn, message: L10 }
          - { field: spec.m, operator: typeMap, action: warn, message: L11 }
          - { field: spec.list, operator: typeList, action: warn, message: L12 }
          - { field: spec.rate, operator: typeNumber, action: warn, message: L13 }
          - { field: spec.flag, operator: typeBool, action: warn, message: L14 }
          - { field: spec.gone, operator: typeNull, action: warn, message: L15 }
          - { field: spec.image, operator: typeString, when: [{ field: spec.flag, exists: true }], action: warn, message: L16 }
          - { field: spec.replicas, notBetween: [100, 200], action: warn, message: L17 }
          - { field: spec.flag, exists: false, negate: true, action: warn, message: L18 }
`;

/** The reconcile's verdict (the loop of validateCr, docs/reference/katalog.md §12): the messages of the rules that fail. */
function reconcileFailures(rules: readonly ValidationRule[], spec: unknown): string[] {
  const context = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'cr' }, spec: spec ?? {}, status: {} };
  return rules
    .filter(
      (rule) =>
        evaluateConditions(rule, context).passed &&
        !evaluateCondition(rule.condition as Condition, context).passed,
    )
    .map((rule) => rule.message)
    .sort();
}

const ids = (text: string, prefix: 'T' | 'L'): string[] =>
  [...new Set(text.match(new RegExp(`\\b${prefix}\\d\\d\\b`, 'g')) ?? [])].sort();

/** The API server's verdict on a dry-run create: CRD rule messages of a 422, or Warn policy messages. */
function serverFailures(response: RawResponse, prefix: 'T' | 'L'): string[] {
  if (prefix === 'T') {
    if (response.status === 201) return [];
    const text = JSON.stringify(response.body);
    // Anything but the rules' own messages (a type error, a rule that failed to evaluate) is a bug here.
    const causes =
      (response.body['details'] as { causes?: { message?: string }[] } | undefined)?.causes ?? [];
    for (const cause of causes)
      expect(cause.message ?? '', `unexpected cause in ${text}`).toMatch(/^Invalid value: "object": T\d\d$/);
    expect(response.status, text).toBe(422);
    return ids(text, 'T');
  }
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  for (const warning of response.warnings) expect(warning).toMatch(/: L\d\d$/);
  return ids(response.warnings.join('\n'), 'L');
}

describe('the same rule gives the same verdict at admission and at reconcile time', () => {
  const group = `t${randomBytes(3).toString('hex')}.adm.example.com`;
  const { file, katalog } = katalogFile('equivalence', EQUIVALENCE(group));
  const OBJECTS = 200;

  it('every rule of the fixture is translated (CRD rules for the schema, Warn policy without)', () => {
    const typed = planAdmission(katalog.spec.crds['typed'] as never).rules;
    const loose = planAdmission(katalog.spec.crds['loose'] as never).rules;
    expect(typed.filter((r) => r.mechanism !== 'crd-rule')).toEqual([]);
    expect(loose.filter((r) => r.mechanism !== 'policy-warn')).toEqual([]);
  });

  it(`agrees on ${OBJECTS} seeded objects per rule, on both entries`, { timeout: 240_000 }, async () => {
    await install(file);
    const typedRules = katalog.spec.crds['typed']?.validation?.rules ?? [];
    const looseRules = katalog.spec.crds['loose']?.validation?.rules ?? [];
    // The Warn policy is live once an object failing L05 (no rate) gets its warning.
    await eventually(async () => {
      const r = await kubeRequest(
        env.kubeConfig,
        'POST',
        crPath(katalog, 'loose', true),
        crBody(katalog, 'loose', {}),
      );
      return r.warnings.some((w) => w.endsWith('L05'));
    }, 'the Warn policy');
    const disagreements: string[] = [];
    const counts = { T: new Map<string, number>(), L: new Map<string, number>() };
    for (let seed = 1; seed <= OBJECTS; seed++) {
      for (const [entry, prefix, rules, make] of [
        ['typed', 'T', typedRules, typedSpec],
        ['loose', 'L', looseRules, looseSpec],
      ] as const) {
        const rand = seeded(seed * 2 + (prefix === 'T' ? 0 : 1));
        // One object in ten has no spec at all (the reconcile reads it as {}).
        const spec = rand() < 0.1 ? undefined : make(rand);
        const response = await kubeRequest(
          env.kubeConfig,
          'POST',
          crPath(katalog, entry, true),
          crBody(katalog, entry, spec),
        );
        const server = serverFailures(response, prefix);
        const reconcile = reconcileFailures(rules, spec);
        for (const id of reconcile) counts[prefix].set(id, (counts[prefix].get(id) ?? 0) + 1);
        if (JSON.stringify(server) !== JSON.stringify(reconcile))
          disagreements.push(
            `${entry} seed ${seed} spec ${JSON.stringify(spec)}: admission ${JSON.stringify(server)}, reconcile ${JSON.stringify(reconcile)}`,
          );
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
    // Each rule both passed and failed on some objects, so the agreement is not vacuous.
    for (const [prefix, rules] of [
      ['T', typedRules],
      ['L', looseRules],
    ] as const) {
      for (const rule of rules) {
        const failed = counts[prefix].get(rule.message) ?? 0;
        expect(failed, `${rule.message} failed on ${failed} of ${OBJECTS}`).toBeGreaterThan(0);
        expect(failed, `${rule.message} failed on ${failed} of ${OBJECTS}`).toBeLessThan(OBJECTS);
      }
    }
  });
});

// ---- what kubectl sees ---------------------------------------------------------------------------

const SCENARIO = (group: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: admission-scenario-${group.slice(0, 7)} }
spec:
  deletionProtection: { crds: true, children: true }
  crds:
    shop:
      apiTypes: { group: ${group}, version: v1alpha1, kind: Shop, plural: shops }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                image: { type: string }
                replicas: { type: integer }
                tier: { type: string }
      mutation:
        rules:
          - { field: spec.replicas, default: "2", valueType: int }
      validation:
        rules:
          - field: spec.image
            prefix: registry.internal/
            message: images must come from registry.internal/
          - { field: spec.tier, exists: true, action: warn, message: declare spec.tier for production readiness }
    stall:
      apiTypes: { group: ${group}, version: v1alpha1, kind: Stall, plural: stalls }
      validation:
        rules:
          - { field: spec.image, prefix: registry.internal/, message: stall images must come from registry.internal/ }
`;

describe('what the API client sees', () => {
  const group = `t${randomBytes(3).toString('hex')}.adm.example.com`;
  const { file, katalog } = katalogFile('scenario', SCENARIO(group));
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/shops.${group}`;

  it('ork validate names the mechanism of each rule', async () => {
    const run = await runOrk(['validate', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('spec.crds.shop.mutation.rules[0]: CRD schema default (set at admission)');
    expect(run.stdout).toContain(
      'spec.crds.shop.validation.rules[0]: CRD x-kubernetes-validations (denied at admission)',
    );
    expect(run.stdout).toMatch(
      /spec\.crds\.shop\.validation\.rules\[1\]: ValidatingAdmissionPolicy \S+ \(Warn/,
    );
    expect(run.stdout).toMatch(
      /spec\.crds\.stall\.validation\.rules\[0\]: ValidatingAdmissionPolicy \S+ \(Deny\)/,
    );
    expect(run.stdout).toContain(
      'spec.deletionProtection: ValidatingAdmissionPolicy refuses deleting its CRDs',
    );
  });

  it('denies, warns, defaults and protects', { timeout: 120_000 }, async () => {
    await install(file);
    await eventually(async () => {
      const r = await kubeRequest(
        env.kubeConfig,
        'POST',
        crPath(katalog, 'stall', true),
        crBody(katalog, 'stall', { image: 'nginx' }),
      );
      return r.status === 422;
    }, 'the Deny policy');

    // A deny rule of the CRD: refused with the rule's message, nothing stored.
    const bad = await kubeRequest(
      env.kubeConfig,
      'POST',
      crPath(katalog, 'shop', false),
      crBody(katalog, 'shop', { image: 'nginx', tier: 'gold' }),
    );
    expect(bad.status).toBe(422);
    expect(String(bad.body['message'])).toContain('images must come from registry.internal/');

    // A deny rule of a policy (the entry has no schema): refused with the rule's message.
    const stall = await kubeRequest(
      env.kubeConfig,
      'POST',
      crPath(katalog, 'stall', false),
      crBody(katalog, 'stall', { image: 'nginx' }),
    );
    expect(stall.status).toBe(422);
    expect(String(stall.body['message'])).toContain('stall images must come from registry.internal/');

    // A warn rule admits with a Warning header; the default is on the stored object.
    const warned = await kubeRequest(
      env.kubeConfig,
      'POST',
      crPath(katalog, 'shop', false),
      crBody(katalog, 'shop', { image: 'registry.internal/shop' }),
    );
    expect(warned.status, JSON.stringify(warned.body)).toBe(201);
    expect(warned.warnings.join('\n')).toContain('declare spec.tier for production readiness');
    const name = String((warned.body['metadata'] as { name: string }).name);
    const stored = await kubeRequest(env.kubeConfig, 'GET', `${crPath(katalog, 'shop', false)}/${name}`);
    expect(stored.body['spec']).toEqual({ image: 'registry.internal/shop', replicas: 2 });

    // An update that leaves spec alone (what the runtime writes: finalizers, labels) is not judged again.
    const relabel = await kubeRequest(env.kubeConfig, 'PATCH', `${crPath(katalog, 'shop', false)}/${name}`, {
      metadata: { labels: { touched: 'yes' } },
    });
    expect(relabel.status, JSON.stringify(relabel.body)).toBe(200);
    expect(relabel.warnings).toEqual([]);

    // Deletion protection of a child: labelled as a child of the entry, it is kept until annotated.
    const childLabels = { 'app.kubernetes.io/managed-by': 'orkestra', 'orkestra.konductor.io/crd': 'shop' };
    const cmPath = `/api/v1/namespaces/${env.namespace}/configmaps`;
    const child = await kubeRequest(env.kubeConfig, 'POST', cmPath, {
      metadata: { name: 'shop-child', labels: childLabels },
      data: { k: 'v' },
    });
    expect(child.status, JSON.stringify(child.body)).toBe(201);
    await eventually(async () => {
      const r = await kubeRequest(env.kubeConfig, 'DELETE', `${cmPath}/shop-child?dryRun=All`);
      return r.status === 403;
    }, 'the child deletion protection policy');
    const keptChild = await kubeRequest(env.kubeConfig, 'DELETE', `${cmPath}/shop-child`);
    expect(keptChild.status).toBe(403);
    expect(String(keptChild.body['message'])).toContain('child protected by Katalog');
    await kubeRequest(env.kubeConfig, 'PATCH', `${cmPath}/shop-child`, {
      metadata: { annotations: { 'orkestra.konductor.io/allow-delete': 'true' } },
    });
    expect((await kubeRequest(env.kubeConfig, 'DELETE', `${cmPath}/shop-child`)).status).toBe(200);
    // An object without the child labels is not matched.
    await kubeRequest(env.kubeConfig, 'POST', cmPath, { metadata: { name: 'not-a-child' } });
    expect((await kubeRequest(env.kubeConfig, 'DELETE', `${cmPath}/not-a-child`)).status).toBe(200);

    // Deletion protection: the CRD is kept until it is annotated.
    await eventually(async () => {
      const r = await kubeRequest(env.kubeConfig, 'DELETE', `${crdPath}?dryRun=All`);
      return r.status !== 200;
    }, 'the deletion protection policy');
    const refused = await kubeRequest(env.kubeConfig, 'DELETE', crdPath);
    expect(refused.status).toBe(403);
    expect(String(refused.body['message'])).toContain('protected by Katalog');
    expect((await kubeRequest(env.kubeConfig, 'GET', crdPath)).status).toBe(200);
    const annotated = await kubeRequest(env.kubeConfig, 'PATCH', crdPath, {
      metadata: { annotations: { 'orkestra.konductor.io/allow-delete': 'true' } },
    });
    expect(annotated.status).toBe(200);
    const allowed = await kubeRequest(env.kubeConfig, 'DELETE', crdPath);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  });
});

describe('a rule scoped to one served version (docs/reference/katalog.md §12, ADR 0069)', () => {
  it('judges the requests made at that version only', { timeout: 120_000 }, async () => {
    const group = `t${randomBytes(3).toString('hex')}.scoped.example.com`;
    const { file } = katalogFile(
      'scoped',
      `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: scoped }
spec:
  crds:
    db:
      apiTypes: { group: ${group}, version: v1, kind: Db, plural: dbs }
      versions: [{ name: v1alpha1 }, { name: v1, storage: true }]
      conversion:
        paths: [{ from: v1alpha1, to: v1, rules: [] }]
      validation:
        rules:
          - { field: spec.size, lte: 100, version: v1alpha1, message: v1alpha1 allows at most 100 }
`,
    );
    const validate = await runOrk(['validate', file]);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain(
      `spec.crds.db.validation.rules[0]: ValidatingAdmissionPolicy dbs.${group}.orkestra-deny-v1alpha1 (Deny on v1alpha1 requests only)`,
    );
    await install(file);
    // No conversion webhook runs here: the API server relabels objects between the two versions.
    const patched = await kubeRequest(
      env.kubeConfig,
      'PATCH',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/dbs.${group}`,
      { spec: { conversion: { strategy: 'None', webhook: null } } },
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const create = (version: string) =>
      kubeRequest(
        env.kubeConfig,
        'POST',
        `/apis/${group}/${version}/namespaces/${env.namespace}/dbs?dryRun=All`,
        {
          apiVersion: `${group}/${version}`,
          kind: 'Db',
          metadata: { generateName: 'db-', namespace: env.namespace },
          spec: { size: 500 },
        },
      );
    await eventually(async () => (await create('v1alpha1')).status === 422, 'the v1alpha1 policy');
    expect(JSON.stringify((await create('v1alpha1')).body)).toContain('v1alpha1 allows at most 100');
    const atV1 = await create('v1');
    expect(atV1.status, JSON.stringify(atV1.body)).toBe(201);
  });
});

describe('the examples', () => {
  it(
    'every CRD ork generate writes for an example is accepted as written (x-kubernetes-* keys kept)',
    { timeout: 120_000 },
    async () => {
      const examples = readdirSync(join(REPO_ROOT, 'examples')).filter((name) =>
        existsSync(join(REPO_ROOT, 'examples', name, 'katalog.yaml')),
      );
      for (const example of examples) {
        const prefix = `t${randomBytes(3).toString('hex')}`;
        const text = readFileSync(join(REPO_ROOT, 'examples', example, 'katalog.yaml'), 'utf8').replace(
          /\bgroup: ([a-z0-9.-]+)/g,
          `group: ${prefix}.$1`,
        );
        const file = join(work, `example-${example}.yaml`);
        writeFileSync(file, text);
        const run = await runOrk(['generate', 'crd', file]);
        expect(run.code, run.stderr).toBe(0);
        for (const crd of documentsOf(run.stdout)) {
          const created = await kubeRequest(
            env.kubeConfig,
            'POST',
            '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
            crd,
          );
          expect(created.status, `${example}: ${JSON.stringify(created.body)}`).toBe(201);
          cleanup.push(() =>
            kubeRequest(
              env.kubeConfig,
              'DELETE',
              `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata?.name ?? ''}`,
            ),
          );
        }
      }
    },
  );
});

describe('ork run --install-crds', () => {
  it(
    'applies the policies with the CRDs and deletes those the Katalog no longer asks for',
    { timeout: 120_000 },
    async () => {
      const group = `t${randomBytes(3).toString('hex')}.adm.example.com`;
      const text = SCENARIO(group);
      const { katalog } = katalogFile('install', text);
      const api = createApiTransport({
        kubeConfig: env.kubeConfig,
        katalogName: katalog.metadata.name,
        restRequest: () => undefined,
      });
      const policyPath = (name: string): string =>
        `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${name}`;
      const warn = policyPath(`shops.${group}.orkestra-warn`);
      const children = policyPath(`${katalog.metadata.name}.orkestra-protect-children`);
      cleanup.push(async () => {
        for (const name of [`shops.${group}`, `stalls.${group}`]) {
          const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
          await kubeRequest(env.kubeConfig, 'PATCH', path, {
            metadata: { annotations: { 'orkestra.konductor.io/allow-delete': 'true' } },
          });
          await kubeRequest(env.kubeConfig, 'DELETE', path);
        }
      });
      await installCrds(api.client, katalog, { namespace: env.namespace });
      expect((await kubeRequest(env.kubeConfig, 'GET', warn)).status).toBe(200);
      const protect = await kubeRequest(env.kubeConfig, 'GET', children);
      // The user the test authenticates as may delete children (the operator outside the cluster).
      expect(JSON.stringify(protect.body)).toMatch(/request\.userInfo\.username != \\"[^"\\]+\\"/);

      // The warn rule and the children protection are gone from the Katalog: so are their policies.
      const { katalog: next } = katalogFile(
        'install-next',
        text
          .replace(
            '  deletionProtection: { crds: true, children: true }\n',
            '  deletionProtection: { crds: true }\n',
          )
          .replace(/ {10}- \{ field: spec\.tier.*\n/, ''),
      );
      await installCrds(api.client, next, { namespace: env.namespace });
      expect((await kubeRequest(env.kubeConfig, 'GET', warn)).status).toBe(404);
      expect((await kubeRequest(env.kubeConfig, 'GET', children)).status).toBe(404);
      expect(
        (await kubeRequest(env.kubeConfig, 'GET', policyPath(`shops.${group}.orkestra-deny`))).status,
      ).toBe(404);
      expect(
        (await kubeRequest(env.kubeConfig, 'GET', policyPath(`stalls.${group}.orkestra-deny`))).status,
      ).toBe(200);
      for (const name of [`stalls.${group}.orkestra-deny`, `${katalog.metadata.name}.orkestra-protect-crds`])
        cleanup.push(async () => {
          await kubeRequest(env.kubeConfig, 'DELETE', policyPath(name));
          await kubeRequest(
            env.kubeConfig,
            'DELETE',
            `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${name}`,
          );
        });
    },
  );
});
