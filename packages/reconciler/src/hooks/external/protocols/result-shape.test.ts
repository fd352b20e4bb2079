import { createTemplateEngine } from '@orkestra/template';
import { EXTERNAL_RESULT_KEYS } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { SHARED_RESULT, resultPathProblem } from './result-shape.js';
import { PROTOCOL_TABLE } from './table.js';

const units = Object.values(PROTOCOL_TABLE);

describe('protocol result shapes', () => {
  it('name every result key the upstream migration knows, and no other', () => {
    const declared = new Set([...Object.keys(SHARED_RESULT), ...units.flatMap((u) => Object.keys(u.result))]);
    expect([...declared].sort()).toEqual([...EXTERNAL_RESULT_KEYS].sort());
  });

  it('walk fields, lists and maps, and name the fields of the protocol at an unknown key', () => {
    const rows = PROTOCOL_TABLE.postgres.result;
    expect(resultPathProblem('postgres', rows, ['rows', '0', 'pending'], 'external.jobs')).toBeUndefined();
    expect(resultPathProblem('postgres', rows, ['rows', '*', 'pending'], 'external.jobs')).toBeUndefined();
    expect(resultPathProblem('postgres', rows, ['ok'], 'external.jobs')).toBeUndefined();
    expect(resultPathProblem('postgres', rows, ['rows', 'length'], 'external.jobs')).toBeUndefined();
    expect(resultPathProblem('postgres', rows, ['rows', 'length', 'x'], 'external.jobs')?.message).toBe(
      '`external.jobs.rows.length` is a number; it has no field `x`',
    );
    expect(resultPathProblem('postgres', rows, ['row', '0'], 'external.jobs')).toEqual({
      message:
        'protocol postgres has no result field `row`; its fields are called, ok, error, durationMs, rows, json, result, raw',
      unknown: {
        key: 'row',
        candidates: ['called', 'ok', 'error', 'durationMs', 'rows', 'json', 'result', 'raw'],
      },
    });
    expect(resultPathProblem('postgres', rows, ['rows', 'first'], 'external.jobs')?.message).toBe(
      '`external.jobs.rows` is a list: read an element by its index (`external.jobs.rows.0`)',
    );
    expect(resultPathProblem('postgres', rows, ['result', 'x'], 'external.jobs')?.message).toBe(
      '`external.jobs.result` is text; it has no field `x`',
    );
    const prom = PROTOCOL_TABLE.prometheus.result;
    expect(
      resultPathProblem('prometheus', prom, ['raw', 'data', 'result', '0'], 'external.q'),
    ).toBeUndefined();
    expect(resultPathProblem('prometheus', prom, ['raw', 'data', 'results'], 'external.q')?.message).toBe(
      '`external.q.raw.data` has no field `results`; its fields are resultType, result',
    );
    expect(
      resultPathProblem('kafka', PROTOCOL_TABLE.kafka.result, ['lags'], 'external.b')?.unknown?.key,
    ).toBe('lags');
  });

  it('declare each helper with as many arguments as the template engine takes', () => {
    const engine = createTemplateEngine();
    for (const unit of units) {
      for (const [helper, parameters] of Object.entries(unit.helpers ?? {})) {
        const call = (n: number): string => `{{ ${helper}${' x'.repeat(n)} }}`;
        expect(() => engine.compileTemplate(call(parameters.length))).not.toThrow();
        expect(() => engine.compileTemplate(call(parameters.length + 1))).toThrow(/argument/);
        expect(() => engine.compileTemplate(call(parameters.length - 1))).toThrow(/argument/);
      }
    }
  });
});
