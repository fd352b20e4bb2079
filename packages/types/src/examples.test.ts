import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadKatalog } from './load-katalog.js';

const examplesDir = join(import.meta.dirname, '../../../examples');
const examples = readdirSync(examplesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(examplesDir, entry.name, 'katalog.yaml')))
  .map((entry) => entry.name);

describe('examples', () => {
  it('has at least six examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  for (const name of examples) {
    it(`${name}: katalog.yaml loads without errors or warnings`, () => {
      const file = join(examplesDir, name, 'katalog.yaml');
      const result = loadKatalog({ path: file });
      expect(result.ok ? [] : result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(
        readFileSync(file, 'utf8').startsWith(
          '# yaml-language-server: $schema=../../packages/types/schema/katalog.schema.json\n',
        ),
      ).toBe(true);
      if (!result.ok) return;
      for (const entry of Object.values(result.katalog.spec.crds))
        expect(entry.schema?.openAPIV3Schema).toBeDefined();
    });

    it(`${name}: sample CRs match a CRD entry of the Katalog`, () => {
      const result = loadKatalog({ path: join(examplesDir, name, 'katalog.yaml') });
      if (!result.ok) throw new Error('katalog does not load');
      const kinds = Object.values(result.katalog.spec.crds).map(
        (e) => `${e.apiTypes.group}/${e.apiTypes.version}/${e.apiTypes.kind}`,
      );
      const crs = readdirSync(join(examplesDir, name, 'crs'));
      expect(crs.length).toBeGreaterThan(0);
      for (const cr of crs) {
        const doc = parse(readFileSync(join(examplesDir, name, 'crs', cr), 'utf8')) as {
          apiVersion: string;
          kind: string;
          metadata: { name: string };
        };
        expect(kinds).toContain(`${doc.apiVersion}/${doc.kind}`);
        expect(doc.metadata.name).toMatch(/^[a-z0-9-]+$/);
      }
    });
  }
});
