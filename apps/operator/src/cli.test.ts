import { describe, expect, it } from 'vitest';
import { runOrk } from '../test/run-ork.js';

describe('ork', () => {
  it('prints the command list on --help and exits 2 without a command', async () => {
    const help = await runOrk(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/validate .*\n.*render .*\n.*generate /);
    const none = await runOrk([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: ork <command>');
  });

  it('rejects unknown commands and options with a usage error', async () => {
    const unknown = await runOrk(['deploy']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "deploy"');
    const option = await runOrk(['validate', 'examples/website/katalog.yaml', '--stric']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^ork validate: Unknown option '--stric'/);
    expect(option.stderr).toContain('Usage: ork validate');
    const target = await runOrk(['generate', 'helm', 'examples/website/katalog.yaml']);
    expect(target.code).toBe(2);
    expect(target.stderr).toContain(
      'unknown target "helm": expected crd, policies, rbac, bundle, helm-values or types',
    );
    const noCr = await runOrk(['render', 'examples/website/katalog.yaml']);
    expect(noCr.code).toBe(2);
    expect(noCr.stderr).toContain('missing --cr <file>');
  });
});

describe('ork validate', () => {
  it('prints one positioned line per load error and exits 1', async () => {
    const run = await runOrk(['validate', 'apps/operator/test/fixtures/broken.yaml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^apps\/operator\/test\/fixtures\/broken\.yaml:9:15: spec\.crds\.website\.resync: invalid duration "10 minutes"/,
      ),
      'apps/operator/test/fixtures/broken.yaml:13:22: spec.crds.website.operatorBox.onReconcile.deployments[0].image: template error: unknown helper "shout" (column 4)',
      'apps/operator/test/fixtures/broken.yaml:14:15: spec.crds.website.operatorBox.onReconcile.deployments[0].replica: unknown key `replica`; did you mean `replicas`?',
    ]);
  });

  it('reports a missing file as an error line', async () => {
    const run = await runOrk(['validate', 'nope/katalog.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^nope\/katalog\.yaml:1:1: cannot read file: /);
  });

  it('prints a version-scoped rule’s mechanism and refuses one judged nowhere, at its position (ADR 0069)', async () => {
    const file = 'apps/operator/test/fixtures/version-scoped-rules.yaml';
    const run = await runOrk(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '  admission: spec.crds.shop.validation.rules[0]: CRD x-kubernetes-validations of v1 (denied at admission)\n' +
        // Where requests at the other served version meet it (ADR 0102).
        '    at v1alpha1 requests: CRD x-kubernetes-validations of v1alpha1, fields translated through the conversion\n',
    );
    expect(run.stdout).toContain(
      '  admission: spec.crds.shop.validation.rules[1]: CRD x-kubernetes-validations of v1alpha1 (denied at admission on v1alpha1 requests only)\n',
    );
    expect(run.stderr.trim().split('\n')).toEqual([
      `${file}:30:13: spec.crds.shop.validation.rules[2].version: judged nowhere: a rule scoped to v1alpha1 is judged at admission only, and the message is a template rendered with the reconcile’s context (the webhook judges the runtime's version only)`,
    ]);
  });

  it('says where each admission-only mutation rule is applied, and warns of a call nothing makes (ADR 0112)', async () => {
    const file = 'apps/operator/test/fixtures/admission-only-mutation.yaml';
    const run = await runOrk(['validate', file]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter((l) => l.startsWith('  admission:'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^ {2}admission: spec\.crds\.release\.mutation\.rules\[0\]: operator mutating webhook \/mutate\/releases\.ship\.example\.com \(.*\); at admission only, the reconcile skips it \(it reads external\.registry, a call made at admission only \(fires\.reconcile: false\)\)$/,
      ),
      expect.stringMatching(
        /^ {2}admission: spec\.crds\.release\.mutation\.rules\[1\]: operator mutating webhook .*; at admission only, the reconcile skips it \(fires\.reconcile: false\)$/,
      ),
      expect.stringMatching(
        /^ {2}admission: spec\.crds\.release\.mutation\.rules\[2\]: applied nowhere: applied at admission only \(fires\.reconcile: false\), and reconcile time only: .*metadata the API server sets after mutating admission$/,
      ),
    ]);
    expect(run.stderr.trim().split('\n')).toEqual([
      `${file}:20:13: spec.crds.release.operatorBox.external[0]: warning: boxed is made at admission only (fires.reconcile: false), and admission makes only validation.external and mutation.external calls, so it is never made: move it to one of those, or drop \`fires\``,
    ]);
  });

  it('accepts a Katalog with bad template paths without --strict and rejects it with --strict', async () => {
    const file = 'apps/operator/test/fixtures/strict-typos.yaml';
    const plain = await runOrk(['validate', file]);
    expect(plain.code).toBe(0);
    const strict = await runOrk(['validate', file, '--strict']);
    expect(strict.code).toBe(1);
    const errors = strict.stderr.split('\n').filter((l) => l !== '' && !l.includes('warning:'));
    expect(errors).toEqual([
      `${file}:26:21: spec.crds.website.operatorBox.onReconcile.deployments[0].name: template path \`metadata.nmae\`: unknown metadata field \`nmae\``,
      `${file}:27:22: spec.crds.website.operatorBox.onReconcile.deployments[0].image: template path \`spec.imag\`: unknown field \`imag\` in \`spec\`; did you mean \`image\`?`,
      `${file}:28:25: spec.crds.website.operatorBox.onReconcile.deployments[0].replicas: template path \`spec.replicas.count\`: \`spec.replicas\` is an integer in the schema, not a map or list`,
      `${file}:29:31: spec.crds.website.operatorBox.onReconcile.deployments[0].when[0].field: condition field path \`spec.replica\`: unknown field \`replica\` in \`spec\`; did you mean \`replicas\`?`,
      `${file}:30:21: spec.crds.website.operatorBox.onReconcile.deployments[1].name: template path \`region.nam\`: unknown field \`nam\` in \`region\`; did you mean \`name\`?`,
      `${file}:35:20: spec.crds.website.operatorBox.onReconcile.configMaps[0].data.A: template path \`children.deployment.status.readyReplicas\`: \`children\` is not visible in onReconcile entries; it is visible in status fields only`,
      `${file}:36:20: spec.crds.website.operatorBox.onReconcile.configMaps[0].data.B: template path \`external.helth.ok\`: no external call is named \`helth\`; did you mean \`health\`?`,
      `${file}:37:20: spec.crds.website.operatorBox.onReconcile.configMaps[0].data.C: template path \`providers.aws.bucket\`: entry website declares nothing for provider \`aws\``,
      `${file}:38:20: spec.crds.website.operatorBox.onReconcile.configMaps[0].data.D: template path \`item\`: \`item\` is only visible in resource entries with forEach`,
      `${file}:39:20: spec.crds.website.operatorBox.onReconcile.configMaps[0].data.E: template path \`specs.image\`: unknown context key \`specs\`; did you mean \`spec\`?`,
      `${file}:40:20: spec.crds.website.operatorBox.onReconcile.configMaps[0].data.F: template path \`external.health.versoin\`: protocol http has no result field \`versoin\`; its fields are called, ok, error, durationMs, status, body, json, headers; a field of the JSON answer is \`external.health.json.versoin\` (the shorter form works at run time, but is not checked)`,
      `${file}:44:37: spec.crds.website.operatorBox.status.fields[1].value: template path \`children.deploymnt.status.readyReplicas\`: no declared child kind gives \`children.deploymnt\`; did you mean \`deployment\`?`,
      `${file}:45:36: spec.crds.website.operatorBox.status.fields[2].value: template path \`status.phse\`: unknown status field \`phse\`: not in the schema and not written by a status field; did you mean \`phase\`?`,
    ]);
  });
});
