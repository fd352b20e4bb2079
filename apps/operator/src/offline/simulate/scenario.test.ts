import { describe, expect, it } from 'vitest';
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
      'scenario.yaml:3:5: steps[0].aply: unknown step key; expected name, apply, update, observe, delete, context, advance, expect',
    );
    expect(errorOf('steps:\n  - {update: {spec: {}}, delete: true}\n')).toBe(
      'scenario.yaml:2:26: steps[0]: a step has at most one of apply, update, observe, delete',
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
