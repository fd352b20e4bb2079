import { describe, expect, it } from 'vitest';
import { parseMongoQuery } from './mongo-query.js';

describe('parseMongoQuery', () => {
  it('reads upstream’s grammar: database.collection and an optional filter', () => {
    expect(parseMongoQuery('orkestra.test')).toEqual({
      ok: true,
      query: { database: 'orkestra', collection: 'test', filter: {}, placeholders: 0 },
    });
    expect(parseMongoQuery('orkestra.test {"status": "active"}')).toMatchObject({
      ok: true,
      query: { filter: { status: 'active' } },
    });
  });

  it('binds a parameter as a string value: a CR value shaped like an operator stays a value', () => {
    const parsed = parseMongoQuery('shop.orders {"owner": "$1", "tags": {"$in": ["$2", "x"]}}', [
      '{"$ne": null}',
      '$where',
    ]);
    expect(parsed).toMatchObject({
      ok: true,
      query: { filter: { owner: '{"$ne": null}', tags: { $in: ['$where', 'x'] } }, placeholders: 2 },
    });
  });

  it('refuses server-side JavaScript and a parameter read as code or a pattern', () => {
    for (const op of ['$where', '$function', '$accumulator'])
      expect(parseMongoQuery(`a.b {"${op}": "1"}`)).toMatchObject({ ok: false });
    for (const op of ['$regex', '$expr', '$jsonSchema', '$options'])
      expect(parseMongoQuery(`a.b {"x": {"${op}": ["$1"]}}`, ['.*'])).toMatchObject({
        ok: false,
        error: expect.stringMatching(/operand of/) as unknown,
      });
  });

  it('refuses a missing parameter, a filter that is not an object and a system collection', () => {
    expect(parseMongoQuery('a.b {"x": "$3"}', ['1'])).toMatchObject({ ok: false });
    expect(parseMongoQuery('a.b [1]')).toMatchObject({ ok: false });
    expect(parseMongoQuery('a.b {x: 1}')).toMatchObject({ ok: false });
    expect(parseMongoQuery('a.system.users')).toMatchObject({ ok: false });
    expect(parseMongoQuery('a')).toMatchObject({ ok: false });
  });
});
