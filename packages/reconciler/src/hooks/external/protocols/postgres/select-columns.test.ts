import { describe, expect, it } from 'vitest';
import { selectColumns } from './select-columns.js';

describe('selectColumns', () => {
  it('names each column as PostgreSQL does', () => {
    expect(
      selectColumns(
        'SELECT count(*) AS Pending, "Max" AS "Last", t.owner, pg_catalog.now() FROM jobs t WHERE owner = $1',
      ),
    ).toEqual(['pending', 'Last', 'owner', 'now']);
    expect(selectColumns(' -- pending\n select distinct state from jobs; ')).toEqual(['state']);
    expect(selectColumns('SELECT coalesce(max(n), 0) AS n, 1 AS one')).toEqual(['n', 'one']);
    expect(selectColumns("SELECT 'a,b' AS s, (SELECT 1 FROM x) AS sub FROM y")).toEqual(['s', 'sub']);
  });

  it('leaves the columns open when an item does not name its column plainly', () => {
    for (const sql of [
      'SELECT * FROM jobs',
      'SELECT t.* FROM jobs t',
      'SELECT n + 1 FROM jobs',
      'SELECT n::int FROM jobs',
      'SELECT count(*) pending FROM jobs',
      'SELECT count(*) FILTER (WHERE done) FROM jobs',
      'SELECT CAST(n AS int) FROM jobs',
      'SELECT true',
      'SELECT DISTINCT ON (a) a FROM t',
      'SELECT a FROM t UNION SELECT b FROM u',
      'WITH x AS (SELECT 1 AS a) SELECT a FROM x',
      'VALUES (1)',
      'SELECT $$a$$ AS s',
      'SELECT "unterminated',
    ])
      expect(selectColumns(sql), sql).toBeUndefined();
  });
});
