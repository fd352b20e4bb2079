// Regenerates schema/katalog.schema.json from the BUILT package (run `pnpm --filter @orkestra/types build` first):
//   pnpm --filter @orkestra/types generate-schema
// The unit test src/json-schema.test.ts fails when the committed file is not current.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { katalogJsonSchema } from '../dist/index.js';

const target = join(import.meta.dirname, '..', 'schema', 'katalog.schema.json');
const text = JSON.stringify(katalogJsonSchema(), null, 2);
const config = (await resolveConfig(target)) ?? {};
writeFileSync(target, await format(text, { ...config, filepath: target }));
console.log(`wrote ${target}`);
