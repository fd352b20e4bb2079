import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { katalogJsonSchema } from './json-schema.js';

describe('katalogJsonSchema', () => {
  it('matches the committed schema/katalog.schema.json (run `pnpm --filter @orkestra/types build && pnpm --filter @orkestra/types generate-schema` to update)', () => {
    const committed: unknown = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'schema', 'katalog.schema.json'), 'utf8'),
    );
    expect(committed).toEqual(katalogJsonSchema());
  });

  it('accepts upstream aliases and rejects unknown keys at the top level', () => {
    const schema = katalogJsonSchema() as {
      definitions: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }>;
    };
    expect(schema.definitions['Katalog']?.additionalProperties).toBe(false);
    const group = JSON.stringify(schema.definitions['OperatorBox']);
    expect(group).toContain('"pvcs"');
    expect(group).toContain('"or"');
  });
});
