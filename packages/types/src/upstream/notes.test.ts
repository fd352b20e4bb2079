import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('upstream notes and Katalog-level imports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ork-notes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'team.yaml'),
    `apiVersion: orkestra.orkspace.io/v1
kind: Motif
metadata: {name: team}
notes:
  - name: fullImage
    expression: '{{ .spec.image }}:{{ .spec.tag | default "latest" }}'
  - name: appLabel
    expression: "{{ .metadata.name }}"
resources:
  configMaps: [{name: not-imported-here}]
`,
  );
  writeFileSync(
    join(dir, 'other.yaml'),
    'kind: Motif\nnotes:\n  functions:\n    - {name: fullImage, expression: "{{ .spec.x }}"}\n',
  );
  writeFileSync(join(dir, 'more.yaml'), 'functions:\n  - {name: region, expression: "{{ .spec.region }}"}\n');
  const katalog = (notes: string, imports = '  imports:\n    - motif: ./team.yaml\n') =>
    head().replace('spec:\n', `spec:\n${imports}`) +
    `      operatorBox:
        onReconcile:
          deployments:
            - name: "{{ appLabel }}"
              image: "{{ fullImage }}"
              labels: {region: "{{ region }}"}
${notes}`;
  const local =
    'notes:\n  include: ./more.yaml\n  functions:\n    - {name: appLabel, description: wins, expression: "{{ .metadata.name }}-app"}\n';

  it('writes out notes of the Katalog, its notes file and its spec.imports motifs where they are called', () => {
    const result = ok(load(katalog(local), dir));
    const deployment = result.katalog.spec.crds['website']?.operatorBox.onReconcile.deployments[0];
    expect(deployment?.name).toBe('{{ .metadata.name }}-app'); // the Katalog's own note wins
    expect(deployment?.image).toBe('{{ .spec.image }}:{{ .spec.tag | default "latest" }}');
    expect(deployment?.labels).toEqual({ region: '{{ .spec.region }}' });
    // The motif's resources are not imported at Katalog level (upstream reads only notes and profiles there).
    expect(result.katalog.spec.crds['website']?.operatorBox.onReconcile.configMaps).toEqual([]);
    const migrated = migrateKatalog(katalog(local), { baseDir: dir });
    expect(migrated.text).not.toMatch(/notes:|imports:|appLabel|fullImage/);
    expect(migrated.changes.map((c) => c.message)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('resources not imported'),
        'removed: 2 notes read from its motifs, written out where they are called',
        'removed: 2 notes written out where they are called',
      ]),
    );
  });

  it('refuses the same note from two motifs, a bad name, an empty expression and a note that calls itself', () => {
    const errors = (text: string) => {
      const result = load(text, dir);
      return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`);
    };
    expect(errors(katalog('', '  imports:\n    - motif: ./team.yaml\n    - motif: ./other.yaml\n'))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /notes.functions\[0\].name: note `fullImage` is declared by two imported motifs/,
        ),
      ]),
    );
    const bad = errors(
      katalog(
        'notes:\n  - {name: full-image, expression: x}\n  - {name: region, expression: ""}\n  - {name: loop, expression: "{{ loop }}"}\n',
      ),
    );
    expect(bad).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\d+:\d+ notes\[0\]\.name: note name "full-image" must be a Go identifier/),
        expect.stringMatching(/notes\[1\]\.expression: note `region` needs an `expression`/),
        expect.stringMatching(/notes\[2\]\.expression: note `loop` calls itself \(loop → loop\)/),
      ]),
    );
  });
});
