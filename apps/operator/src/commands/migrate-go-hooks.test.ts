import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOrk } from '../../test/run-ork.js';

/**
 * `ork validate` and `ork migrate` on upstream's Go `hooks` and `constructor` (docs/reference/katalog.md
 * §14.5, §15.3.1), both generations' forms written here from upstream's documentation: one refusal
 * per block with a reference that works when pasted, and a migration that drops no key silently.
 */
const G3_HOOKS = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: webapp}
spec:
  crds:
    app:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: WebApp, plural: webapps}
      operatorBox:
        reconcile:
          default: true
          hooks:
            location: github.com/acme/webapp/hooks
            function: WebAppHooks
            alias: webhooks
            runHooksFirst: true
            managedResources:
              - kind: Service
          onCreate:
            deployments:
              - name: "{{ .metadata.name }}"
                image: nginx
`;

const G2_CONSTRUCTOR = `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: pipeline}
spec:
  crds:
    pipeline:
      apiTypes: {group: demo.example.io, version: v1alpha1, kind: Pipeline, plural: pipelines}
      operatorBox:
        reconciler:
          default: false
          constructor:
            location: github.com/acme/pipeline/reconciler
            function: NewPipelineReconciler
            managedResources:
              - {kind: Job, group: batch, version: v1, plural: jobs}
`;

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ork-go-hooks-')), 'katalog.yaml');
  writeFileSync(path, text);
  return path;
}

describe('ork migrate of Go hooks and constructors', () => {
  it('prints a change line for each key of a Go hook it maps or drops, and the result validates', async () => {
    const path = file(G3_HOOKS);
    const migrated = await runOrk(['migrate', path]);
    expect(migrated.stderr).not.toContain('does not validate');
    expect(migrated.code).toBe(0);
    expect(migrated.stderr).toContain(
      `${path}:11:11: spec.crds.app.operatorBox.reconcile.hooks: Go hooks rewritten to the module reconciler @acme/webapp-hooks#WebAppHooks (operatorBox.remote, managedResources from the hooks block’s \`managedResources\`: a module hook cannot write to the cluster)`,
    );
    expect(migrated.stderr).toContain(
      `${path}:14:13: spec.crds.app.operatorBox.reconcile.hooks.alias: removed: the Go import alias of the package`,
    );
    expect(migrated.stderr).toContain(
      `${path}:15:13: spec.crds.app.operatorBox.reconcile.hooks.runHooksFirst: removed: module hooks and a module reconciler already run at step 12`,
    );
    expect(migrated.stdout).toMatch(
      /remote:\n {10}module: "@acme\/webapp-hooks"\n {10}function: WebAppHooks\n {10}managedResources:\n {12}- \{ group: "", plural: services \}/,
    );
    const copy = file(migrated.stdout);
    const strict = await runOrk(['validate', copy, '--strict']);
    expect(strict.stderr).not.toMatch(/error|ork migrate/);
    expect(strict.code).toBe(0);
  });

  it('refuses a G2 constructor once, and migrates it with the kinds of its own managedResources', async () => {
    const path = file(G2_CONSTRUCTOR);
    const refused = await runOrk(['validate', path]);
    expect(refused.code).toBe(1);
    const errors = refused.stderr.split('\n').filter((l) => l.includes(': spec.crds.'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      `${path}:12:13: spec.crds.pipeline.operatorBox.reconciler.constructor.location`,
    );
    expect(errors[0]).toContain(
      "`operatorBox.remote: {module: '@acme/pipeline-reconciler', function: NewPipelineReconciler, managedResources: [{group: batch, plural: jobs}]}`",
    );
    const migrated = await runOrk(['migrate', path]);
    expect(migrated.code).toBe(0);
    expect(migrated.stderr).toContain(
      `${path}:10:11: spec.crds.pipeline.operatorBox.reconciler.default: removed: the Go constructor becomes a module reconciler (operatorBox.remote)`,
    );
    expect(migrated.stdout).toContain('managedResources:\n            - { group: batch, plural: jobs }');
  });
});
