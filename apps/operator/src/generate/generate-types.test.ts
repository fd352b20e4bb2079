import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKatalog } from '@orkestra/types';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTypes } from './generate-types.js';

// `ork generate types` (docs/reference/katalog.md §14.5): the declarations compile, and a hook
// that misreads the spec does not.

const result = loadKatalog({
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: demo }
spec:
  crds:
    site:
      apiTypes: { group: demo.example.io, version: v1, kind: Site, plural: sites }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [host]
              properties:
                host: { type: string, description: The host name. }
                replicas: { type: integer }
                tier: { type: string, enum: [bronze, gold] }
                port: { x-kubernetes-int-or-string: true }
                labels: { type: object, additionalProperties: { type: string } }
                "x-extra": { type: array, items: { type: object, properties: { name: { type: string } } } }
            status:
              type: object
              properties:
                dnsRecord: { type: string }
    plain:
      apiTypes: { group: demo.example.io, version: v1, kind: Plain, plural: plains }
`,
  file: 'katalog.yaml',
});
if (!result.ok) throw new Error(JSON.stringify(result.errors));
const katalog = result.katalog;
const dir = mkdtempSync(join(tmpdir(), 'orkestra-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** compile typechecks the generated module with `use` beside it (HookCr declared inline; ES5 lib only, for speed). */
function compile(use: string): string[] {
  const generated = generateTypes(katalog).replace(
    "import type { HookCr } from '@orkestra/types';",
    'type HookCr<Spec, Status> = { readonly spec: Spec; readonly status: Partial<Status> };',
  );
  writeFileSync(join(dir, 'types.ts'), generated);
  writeFileSync(join(dir, 'use.ts'), `import type { Site, Plain } from './types.js';\n${use}\n`);
  const program = ts.createProgram([join(dir, 'use.ts')], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es5.d.ts'],
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('generateTypes', () => {
  it('writes Spec, Status and the CR type of each entry, with descriptions', () => {
    const text = generateTypes(katalog);
    expect(text).toContain('export interface SiteSpec {');
    expect(text).toContain('  /** The host name. */\n  readonly host: string;');
    expect(text).toContain('  readonly tier?: "bronze" | "gold";');
    expect(text).toContain('  readonly port?: number | string;');
    expect(text).toContain('  readonly "x-extra"?: readonly ({');
    expect(text).toContain('export type Site = HookCr<SiteSpec, SiteStatus>;');
    expect(text).toContain('export interface PlainSpec {\n  readonly [key: string]: unknown;\n}');
    expect(generateTypes(katalog, { entry: 'plain' })).not.toContain('SiteSpec');
    expect(() => generateTypes(katalog, { entry: 'nope' })).toThrow(/no entry nope/);
  });

  it('compiles, and a hook that misreads the spec does not', () => {
    const good = `export const f = (cr: Site, p: Plain): string =>
  cr.spec.host + String(cr.spec.replicas ?? 0) + (cr.spec.labels?.['a'] ?? '') + (cr.status.dnsRecord ?? '') + String(p.spec['x']);`;
    const bad = `export const h = (cr: Site): number => cr.spec.host;\nexport const g = (cr: Site): boolean => cr.spec.tier === 'silver';`;
    const diagnostics = compile(`${good}\n${bad}`);
    // Exactly the two misreadings: the good function compiles.
    expect(diagnostics).toHaveLength(2);
    expect(diagnostics[0]).toMatch(/Type 'string' is not assignable to type 'number'/);
    expect(diagnostics[1]).toMatch(/"silver"/);
  }, 120_000);
});
