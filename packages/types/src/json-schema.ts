import { z } from 'zod';
import { Katalog } from './schema/katalog.js';

/** KATALOG_SCHEMA_ID is the `$id` of the generated Katalog JSON Schema. */
export const KATALOG_SCHEMA_ID = 'https://orkestra.konductor.io/schemas/katalog.schema.json';

/**
 * katalogJsonSchema generates the JSON Schema (draft-07, for editors such as yaml-language-server)
 * of a Katalog as written, from the zod schema. Aliases (`or`, `pvcs`, list-form `crds`) are
 * accepted; checks that need code (templates, cron, regex, cross-field rules) are not expressible
 * and are left to the loader.
 */
export function katalogJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Katalog, {
    io: 'input',
    target: 'draft-07',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return { $id: KATALOG_SCHEMA_ID, ...schema };
}
