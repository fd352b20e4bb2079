import { describe, expect, it } from 'vitest';
import type { Katalog } from '@orkestra/types';
import { katalogFrom } from '../../../test/katalog-text.js';
import { ScenarioError, parseScenario } from './scenario.js';

const options = {
  file: 'scenario.yaml',
  baseDir: '/scenarios',
  readFile: (path: string): string => {
    if (path === '/scenarios/crs/app.yaml')
      return 'apiVersion: t.example.com/v1\nkind: App\nmetadata: {name: a}\n';
    if (path === '/scenarios/crs/two.yaml') return 'kind: App\n---\nkind: App\n';
    throw new Error('ENOENT');
  },
};

function errorOf(text: string): string {
  try {
    parseScenario(text, options);
  } catch (error) {
    if (error instanceof ScenarioError) return error.message;
    throw error;
  }
  throw new Error('expected a ScenarioError');
}

describe('parseScenario', () => {
  it('parses steps, CR files relative to the scenario, durations and expectations', () => {
    const scenario = parseScenario(
      `now: 2026-01-01T00:00:00Z
steps:
  - name: create
    apply: {cr: crs/app.yaml}
    context: {external: {api: {ok: true}}, providers: {aws: {bucket: {ready: true}}}}
    expect: {applies: [ConfigMap/a], status: {phase: Running}}
  - {advance: 90s, observe: {Deployment/a: null}}
  - {update: {spec: {x: 1}}}
  - {delete: true}
`,
      options,
    );
    expect(scenario.now?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    const [create, observe, update, remove] = scenario.steps;
    expect(create).toMatchObject({
      name: 'create',
      number: 1,
      apply: { source: 'crs/app.yaml', cr: { kind: 'App', metadata: { name: 'a' } } },
      context: { external: { api: { ok: true } } },
    });
    expect(create?.expect.map((e) => [e.key, e.position.line, e.position.column])).toEqual([
      ['applies', 6, 14],
      ['status', 6, 38],
    ]);
    expect(observe).toMatchObject({
      name: 'step 2',
      advanceMs: 90_000,
      observe: [{ ref: 'Deployment/a', patch: null }],
    });
    expect(update?.update).toEqual({ spec: { x: 1 } });
    expect(remove?.delete).toBe(true);
  });

  it('names the position of YAML syntax errors', () => {
    expect(errorOf('steps:\n  - name: a\n    apply: {cr: [\n')).toMatch(/^scenario\.yaml:\d+:\d+: /);
  });

  it('names the position of schema errors', () => {
    expect(errorOf('steps:\n  - name: a\n    aply: {}\n')).toBe(
      'scenario.yaml:3:5: steps[0].aply: unknown step key; expected name, cr, apply, update, observe, delete, katalog, rollout, context, deletionFailures, advance, expect',
    );
    expect(errorOf('steps:\n  - {update: {spec: {}}, delete: true}\n')).toBe(
      'scenario.yaml:2:26: steps[0]: a step has at most one of apply, update, observe, delete, katalog, rollout',
    );
    expect(errorOf('steps:\n  - expect: {applies: Deployment/a}\n')).toBe(
      'scenario.yaml:2:14: steps[0].expect.applies must be a list of strings',
    );
    expect(errorOf('steps:\n  - expect: {phase: Running}\n')).toMatch(
      /^scenario\.yaml:2:14: steps\[0\]\.expect: unknown key phase; expected applies, /,
    );
    expect(errorOf('steps:\n  - observe: {Deployment: {}}\n')).toBe(
      'scenario.yaml:2:15: steps[0].observe: Deployment is not Kind/name or Kind/namespace/name',
    );
    expect(errorOf('steps:\n  - context: {metrics: {}}\n')).toMatch(
      /^scenario\.yaml:2:15: steps\[0\]\.context: unknown key metrics/,
    );
    // ADR 0116: the keys are the hooks with a deletion step, as the hook table names them.
    expect(errorOf('steps:\n  - deletionFailures: {cross: {db: down}}\n')).toBe(
      'scenario.yaml:2:24: steps[0].deletionFailures: unknown key cross; the hooks with a deletion step are hooks (onDelete), remote (onDelete), providers (delete)',
    );
    expect(errorOf('steps:\n  - deletionFailures: {hooks: {audit: 3}}\n')).toBe(
      'scenario.yaml:2:32: steps[0].deletionFailures.hooks.audit must be the message the onDelete step fails with (a string), or null',
    );
    expect(errorOf('steps:\n  - deletionFailures: {providers: {aws: denied}}\n')).toMatch(
      /^scenario\.yaml:2:\d+: steps\[0\]\.deletionFailures\.providers\.aws must map declaration names to the message their delete fails with$/,
    );
    expect(errorOf('steps:\n  - advance: soon\n')).toMatch(/^scenario\.yaml:2:5: steps\[0\]\.advance: /);
    expect(errorOf('steps: []\n')).toBe('scenario.yaml:1:1: steps must be a non-empty list');
    expect(errorOf('now: yesterday\nsteps: [{}]\n')).toMatch(
      /^scenario\.yaml:1:1: now: yesterday is not a valid/,
    );
    expect(errorOf('steps:\n  - apply: {cr: crs/missing.yaml}\n')).toMatch(
      /^scenario\.yaml:2:13: cannot read crs\/missing\.yaml/,
    );
    expect(errorOf('steps:\n  - apply: {cr: crs/two.yaml}\n')).toBe(
      'scenario.yaml:2:13: crs/two.yaml must hold exactly one YAML document (one CR)',
    );
    expect(errorOf('steps:\n  - update: {kind: Other}\n')).toBe(
      "scenario.yaml:2:14: steps[0].update.kind: the CR's kind cannot change",
    );
  });
});

describe('parseScenario: rollout steps (docs/reference/runtime.md §24)', () => {
  const katalogs: string[] = [];
  const withKatalogs = {
    ...options,
    loadKatalog: (source: string, baseDir: string) => {
      katalogs.push(`${baseDir}/${source}`);
      if (source === 'broken.yaml') throw new Error('broken.yaml:3:7: spec.crds: Required');
      return { metadata: { name: 'k' }, spec: {} } as never;
    },
  };
  const rolloutError = (text: string): string => {
    try {
      parseScenario(text, withKatalogs);
    } catch (error) {
      if (error instanceof ScenarioError) return error.message;
      throw error;
    }
    throw new Error('expected a ScenarioError');
  };

  it('parses katalog, rollout and cr steps and rollout expectations', () => {
    const scenario = parseScenario(
      `steps:
  - {katalog: v2.yaml}
  - rollout: undo
    cr: web-b
    expect:
      rollout: {phase: Undone, step: 0, paused: false}
      revisions: {web-a: katalog.yaml}
      crs: {web-b: {children: [Deployment/web-b], ready: 'True'}}
`,
      withKatalogs,
    );
    const [change, undo] = scenario.steps;
    expect(change?.katalog?.source).toBe('v2.yaml');
    expect(katalogs).toEqual(['/scenarios/v2.yaml']);
    expect(undo).toMatchObject({ rollout: 'undo', cr: 'web-b' });
    expect(undo?.expect.map((e) => [e.key, e.position.line, e.position.column])).toEqual([
      ['rollout', 6, 7],
      ['revisions', 7, 7],
      ['crs', 8, 7],
    ]);
    const nested = undo?.expect[2]?.value as Record<
      string,
      { key: string; position: { line: number; column: number } }[]
    >;
    expect(nested['web-b']?.map((e) => [e.key, e.position.line, e.position.column])).toEqual([
      ['children', 8, 21],
      ['ready', 8, 51],
    ]);
  });

  it('names the position of bad rollout steps and expectations', () => {
    expect(rolloutError('steps:\n  - rollout: abort\n')).toBe(
      'scenario.yaml:2:5: steps[0].rollout: "abort" is not a rollout command; expected pause, resume, undo',
    );
    expect(rolloutError('steps:\n  - {katalog: v2.yaml, rollout: undo}\n')).toBe(
      'scenario.yaml:2:24: steps[0]: a step has at most one of apply, update, observe, delete, katalog, rollout',
    );
    expect(rolloutError('steps:\n  - katalog: {file: v2.yaml}\n')).toBe(
      'scenario.yaml:2:5: steps[0].katalog must be the path of a Katalog file (relative to the scenario)',
    );
    expect(rolloutError('steps:\n  - katalog: broken.yaml\n')).toBe(
      'scenario.yaml:2:5: broken.yaml:3:7: spec.crds: Required',
    );
    expect(rolloutError('steps:\n  - cr: {name: a}\n')).toBe(
      "scenario.yaml:2:5: steps[0].cr must be a CR's metadata.name",
    );
    expect(rolloutError('steps:\n  - expect: {rollout: {phase: Failed, wave: 1}}\n')).toBe(
      'scenario.yaml:2:39: steps[0].expect.rollout: unknown key wave; expected phase, step, paused, stable, target, message',
    );
    expect(rolloutError('steps:\n  - expect: {rollout: {step: first}}\n')).toBe(
      'scenario.yaml:2:24: steps[0].expect.rollout.step must be an integer',
    );
    expect(rolloutError('steps:\n  - expect: {revisions: {web-a: 2}}\n')).toBe(
      'scenario.yaml:2:26: steps[0].expect.revisions.web-a must be a Katalog file or revision (a string)',
    );
    expect(rolloutError('steps:\n  - expect:\n      crs:\n        web-a: {applies: []}\n')).toBe(
      'scenario.yaml:4:17: steps[0].expect.crs.web-a: unknown key applies; expected children, status, ready, synced, reason',
    );
  });
});

describe('parseScenario: the CR of an apply step', () => {
  it('checks inline and file CRs with the same shape check as ork render', () => {
    expect(errorOf('steps:\n  - apply: {cr: {apiVersion: {a: 1}, kind: App, metadata: {name: a}}}\n')).toBe(
      'scenario.yaml:2:13: the inline CR: apiVersion must be a string, got a map',
    );
    expect(
      errorOf(
        'steps:\n  - apply: {cr: {apiVersion: t.example.com/v1, kind: App, metadata: {name: {toString: x}}}}\n',
      ),
    ).toBe('scenario.yaml:2:13: the inline CR: metadata.name must be a string, got a map');
    expect(errorOf('steps:\n  - apply: {cr: crs/two.yaml}\n')).toBe(
      'scenario.yaml:2:13: crs/two.yaml must hold exactly one YAML document (one CR)',
    );
  });

  it('refuses an update that removes the metadata', () => {
    expect(errorOf('steps:\n  - update: {metadata: null}\n')).toBe(
      'scenario.yaml:2:14: steps[0].update.metadata must be a map',
    );
  });
});

describe('parseScenario: scripted answers name a declared call (docs/reference/katalog.md §15.1.1)', () => {
  const katalogWith = (calls: string): Katalog =>
    katalogFrom(`operatorBox:
  external:
${calls}`);
  const v1 = katalogWith('    - {name: api, url: "http://api.data"}');
  const v2 = katalogWith(
    '    - {name: api, url: "http://api.data"}\n    - {name: jobs, protocol: postgres, url: "postgres://r@db/x", query: "SELECT 1 AS n"}',
  );
  const parse = (text: string): unknown =>
    parseScenario(text, { file: 's.yaml', baseDir: '/s', katalog: v1, loadKatalog: () => v2 });

  it('takes an answer for a call of a later revision only from its katalog step on', () => {
    expect(() =>
      parse('steps:\n  - context: {external: {jobs: {rows: [{n: "1"}]}}}\n  - katalog: v2.yaml\n'),
    ).toThrow(/s.yaml:2:26: .*no external call is named `jobs` in the Katalog; its calls are api/);
    expect(() =>
      parse('steps:\n  - katalog: v2.yaml\n  - context: {external: {jobs: {rows: [{n: "1"}]}}}\n'),
    ).not.toThrow();
    expect(() =>
      parse('steps:\n  - katalog: v2.yaml\n  - context: {external: {jobs: {rows: [{m: "1"}]}}}\n'),
    ).toThrow(/rows\[0\] has no field `m`; its fields are n/);
  });
});
