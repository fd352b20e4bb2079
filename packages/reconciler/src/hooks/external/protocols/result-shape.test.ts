import { createTemplateEngine } from '@orkestra/template';
import { EXTERNAL_RESULT_KEYS } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { SHARED_RESULT, answerProblem, resultPathProblem } from './result-shape.js';
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

describe('scripted answers against result shapes (answerProblem)', () => {
  const { postgres, prometheus, http, kafka, mongo, redis } = PROTOCOL_TABLE;

  it('takes an answer that fits, a partial one, and anything in an `any` part', () => {
    expect(
      answerProblem('postgres', postgres.result, { result: '3', rows: [{ n: 3, x: null }] }),
    ).toBeUndefined();
    expect(
      answerProblem('http', http.result, { ok: false, status: 503, json: { a: [1] }, headers: { x: 'y' } }),
    ).toBeUndefined();
    expect(answerProblem('redis', redis.result, { raw: { value: ['a', 'b'] } })).toBeUndefined();
    expect(answerProblem('kafka', kafka.result, {})).toBeUndefined();
  });

  it('refuses a list given as anything else, naming the field', () => {
    expect(answerProblem('postgres', postgres.result, { rows: 'pending' })).toEqual({
      path: ['rows'],
      message: 'must be an array of objects; got a string',
    });
    expect(answerProblem('mongo', mongo.result, { documents: [{ a: 1 }, 'b'] })).toEqual({
      path: ['documents', 1],
      message: 'must be an object; got a string',
    });
  });

  it('refuses a scalar of the wrong type, and says to quote a number given for text', () => {
    expect(answerProblem('kafka', kafka.result, { lag: 1200 })?.message).toBe(
      'must be a string; got a number (quote it: "1200")',
    );
    expect(answerProblem('http', http.result, { status: '200' })?.message).toBe(
      'must be a number; got a string',
    );
    expect(answerProblem('http', http.result, { ok: 'yes' })?.message).toBe(
      'must be a boolean; got a string',
    );
    expect(answerProblem('http', http.result, { headers: { a: 1 } })).toMatchObject({
      path: ['headers', 'a'],
    });
  });

  it('refuses an unknown key with the fields that exist there, at any depth', () => {
    expect(answerProblem('postgres', postgres.result, { row: [] })).toEqual({
      path: ['row'],
      message:
        'protocol postgres has no result field `row`; its fields are called, ok, error, durationMs, rows, json, result, raw',
      unknown: {
        key: 'row',
        candidates: ['called', 'ok', 'error', 'durationMs', 'rows', 'json', 'result', 'raw'],
      },
    });
    expect(answerProblem('prometheus', prometheus.result, { raw: { data: { results: [] } } })).toMatchObject({
      path: ['raw', 'data', 'results'],
      message: 'has no field `results`; its fields are resultType, result',
    });
    expect(answerProblem('prometheus', prometheus.result, { raw: { data: { result: {} } } })?.message).toBe(
      'must be an array of values; got an object',
    );
    expect(answerProblem('kafka', kafka.result, 'lag')).toEqual({
      path: [],
      message: expect.stringMatching(/^must be an object \(fields called, ok/),
    });
  });

  it('checks a SQL call’s rows against the columns its select list names', () => {
    const fields = postgres.resultOf?.({
      name: 'jobs',
      url: 'postgres://db/x',
      query: 'SELECT count(*) AS pending FROM jobs',
    });
    expect(fields).toBeDefined();
    expect(
      answerProblem('postgres', fields ?? {}, { rows: [{ pending: '3' }], raw: { pending: '3' } }),
    ).toBeUndefined();
    expect(answerProblem('postgres', fields ?? {}, { rows: [{ count: '3' }] })).toMatchObject({
      path: ['rows', 0, 'count'],
      unknown: { key: 'count', candidates: ['pending'] },
    });
    expect(
      postgres.resultOf?.({ name: 'jobs', url: 'postgres://db/x', query: 'SELECT * FROM jobs' }),
    ).toBeUndefined();
  });
});

describe('a Redis call’s value by its command', () => {
  const { redis } = PROTOCOL_TABLE;
  const of = (query: string) => redis.resultOf?.({ name: 'r', url: 'redis://c', query });

  it('is a number for an integer reply, a list for MGET, open where the reply may be nil', () => {
    expect(of('LLEN "{{ spec.queue }}"')).toMatchObject({
      json: 'number',
      raw: { fields: { value: 'number' } },
    });
    expect(of('hmget h a b')).toMatchObject({ json: { list: 'any' } });
    expect(of('GET k')).toBeUndefined();
    expect(of('{{ spec.command }} k')).toBeUndefined();
    const llen = of('LLEN q') ?? {};
    expect(resultPathProblem('redis', llen, ['json', 'items'], 'external.r')?.message).toBe(
      '`external.r.json` is a number; it has no field `items`',
    );
    expect(answerProblem('redis', llen, { raw: { value: '5' } })?.message).toBe(
      'must be a number; got a string',
    );
    expect(answerProblem('redis', llen, { result: '5', raw: { value: 5 }, json: 5 })).toBeUndefined();
  });
});
