import { DEFAULT_IMAGE_REPOSITORY, generateBundle, generatePolicies } from '../generate/generate-bundle.js';
import { generateCrds, untypedProperties, webhookClientConfigOf } from '../generate/generate-crds.js';
import { generateHelmValues } from '../generate/generate-helm-values.js';
import { generateRbac } from '../generate/generate-rbac.js';
import { generateTypes } from '../generate/generate-types.js';
import { formatIssue, loadKatalogFile } from '../katalog-file.js';
import { roleWildcardIssues } from '../generate/role-wildcards.js';
import { toMultiDocumentYaml } from '../generate/manifest-yaml.js';
import { stringify } from 'yaml';
import { operatorVersion } from '../version.js';
import type { CliIo, Command } from './command.js';
import { ExitCode, UsageError, parseCommandArgs } from './command.js';

const DEFAULT_NAMESPACE = 'orkestra-system';

const usage = `Usage: ork generate crd|policies|rbac|bundle|helm-values|types <katalog> [-n <namespace>] [--image <image>] [--entry <name>] [--allow-rbac-wildcards] [--control-center] [--sharding] [--webhook-service <name|url>]

Write Kubernetes manifests for a Katalog as multi-document YAML on stdout (types: TypeScript).

  crd     One CustomResourceDefinition per CRD entry (status subresource, Ready/Reason/Age
          columns; spec and status preserve unknown fields when the entry has no schema).
  policies
          ValidatingAdmissionPolicies and bindings: the validation rules the API server judges
          itself (Deny, or Warn for warn rules; docs/reference/katalog.md §12) and the Katalog's
          deletion protection (§2.4), then the operator's Validating- and
          MutatingWebhookConfigurations for the rules CEL and schema defaults cannot express
          (§11, §12). Apply them after the CRDs.
  rbac    ServiceAccount, least-privilege ClusterRole (or Role when every entry is pinned to one
          namespace) and binding, and the leader-election Role (docs/reference/runtime.md §19).
  bundle  Namespace, CRDs, admission policies, RBAC, a ConfigMap holding the Katalog, the operator Deployment and
          a Service for its metrics.
  helm-values
          Values for the Helm chart (apps/operator/deploy/helm/orkestra): the Katalog and the
          rules of \`rbac\`, e.g. \`ork generate helm-values k.yaml > values.yaml\` then
          \`helm install op <chart> -f values.yaml\`.
  types   TypeScript declarations of each entry's CR from its CRD schema (<Kind>Spec,
          <Kind>Status, <Kind>) for module hooks (docs/reference/katalog.md §14.5), e.g.
          \`ork generate types k.yaml > src/katalog-types.ts\`.

Options:
  -n, --namespace <ns>  Operator namespace (default: $POD_NAMESPACE, else ${DEFAULT_NAMESPACE}); crd: the
                        namespace of the conversion webhook's Service.
  --webhook-service <name|url>
                        crd: where the API server sends conversions, policies: admission reviews
                        of the rules CEL and schema defaults cannot express, as ork run's flag: a Service of the
                        operator namespace (port 443; default orkestra-webhook, the chart's) or an
                        https:// URL.
  --image <image>       Operator image for bundle (default: ${DEFAULT_IMAGE_REPOSITORY}:<version>).
  --entry <name>        types: only this entry.
  --allow-rbac-wildcards
                        Accept a "*" or an escalate, bind or impersonate verb in any role
                        rule (rbac, bundle, helm-values); the operator is then granted it too.
                        Without it (or the entry's allowEscalation: true) such a Katalog is refused.
  --control-center      rbac: also grant tokenreviews and subjectaccessreviews create, for the
                        Control Center's token gate (ork run --control-center-auth=token).
  --sharding            For ork run --sharding (docs/reference/runtime.md §25). rbac: also grant
                        the shard Leases (every Lease in the operator namespace: get, list, watch,
                        update, delete) and the shard-assignment webhook's caBundle and certificate
                        Secret; policies: also the shard-assignment MutatingWebhookConfiguration
                        (ADR 0110); helm-values: both, and sharding.enabled.
  -h, --help            Show this help.`;

function isDnsLabel(text: string): boolean {
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(text) && text.length <= 63;
}

const TARGETS = ['crd', 'policies', 'rbac', 'bundle', 'helm-values', 'types'] as const;
type Target = (typeof TARGETS)[number];

/** generateCommand is `ork generate crd|policies|rbac|bundle|helm-values|types`: manifests (and hook types) derived from a Katalog. */
export const generateCommand: Command = {
  name: 'generate',
  summary: 'Write CRDs, RBAC, or a full install bundle for a Katalog',
  usage,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      namespace: { type: 'string', short: 'n' },
      image: { type: 'string' },
      entry: { type: 'string' },
      'allow-rbac-wildcards': { type: 'boolean' },
      'control-center': { type: 'boolean' },
      sharding: { type: 'boolean' },
      'webhook-service': { type: 'string' },
    });
    if (parsed.help) {
      io.stdout.write(`${usage}\n`);
      return ExitCode.Ok;
    }
    const [target, file, ...extra] = parsed.positionals;
    if (target == null)
      throw new UsageError('missing what to generate: crd, policies, rbac, bundle, helm-values or types');
    if (!(TARGETS as readonly string[]).includes(target)) {
      throw new UsageError(
        `unknown target ${JSON.stringify(target)}: expected crd, policies, rbac, bundle, helm-values or types`,
      );
    }
    if (file == null) throw new UsageError('missing <katalog>');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
    if (parsed.values.image != null && target !== 'bundle')
      throw new UsageError('--image applies to bundle only');
    if (parsed.values.entry != null && target !== 'types')
      throw new UsageError('--entry applies to types only');
    const webhookService = parsed.values['webhook-service'];
    if (webhookService != null && target !== 'crd' && target !== 'policies')
      throw new UsageError('--webhook-service applies to crd and policies only');
    if (webhookService != null && !webhookService.startsWith('https://') && !isDnsLabel(webhookService))
      throw new UsageError(
        `--webhook-service: "${webhookService}" is neither a Service name nor an https:// URL`,
      );
    const sharding = parsed.values['sharding'] === true;
    if (sharding && target !== 'rbac' && target !== 'policies' && target !== 'helm-values')
      throw new UsageError('--sharding applies to rbac, policies and helm-values only');
    const namespace = parsed.values.namespace ?? io.env['POD_NAMESPACE'] ?? DEFAULT_NAMESPACE;
    if (!isDnsLabel(namespace)) {
      throw new UsageError(`namespace ${JSON.stringify(namespace)} is not a DNS-1123 label`);
    }

    const loaded = loadKatalogFile(file, { cwd: io.cwd });
    if (!loaded.ok) {
      for (const error of loaded.errors) io.stderr.write(`${formatIssue(error)}\n`);
      return ExitCode.Failed;
    }
    const { katalog } = loaded;
    // RBAC never carries a wildcard from a role rule silently (see `ork validate --allow-rbac-wildcards`).
    if (target === 'types') {
      try {
        io.stdout.write(generateTypes(katalog, { entry: parsed.values.entry }));
      } catch (error) {
        io.stderr.write(`${file}: ${error instanceof Error ? error.message : String(error)}\n`);
        return ExitCode.Failed;
      }
      return ExitCode.Ok;
    }
    if (target !== 'crd' && parsed.values['allow-rbac-wildcards'] !== true) {
      const wildcards = roleWildcardIssues(loaded.file, loaded.text, katalog).filter(
        (issue) => !issue.allowed,
      );
      for (const error of wildcards) io.stderr.write(`${formatIssue(error)}\n`);
      if (wildcards.length > 0) return ExitCode.Failed;
    }
    const header = [
      `Generated by ork generate ${target} from ${loaded.file} (Katalog ${katalog.metadata.name}).`,
    ];
    if (target === 'crd' || target === 'bundle') {
      for (const [entryName, entry] of Object.entries(katalog.spec.crds)) {
        for (const path of untypedProperties(entry.schema?.openAPIV3Schema)) {
          io.stderr.write(
            `note: ${entryName}: schema field ${path} has no type, which a CRD cannot express; it is left out and its parent keeps unknown fields\n`,
          );
        }
      }
    }
    switch (target as Target) {
      case 'crd':
        // Conversion goes to the webhook Service of the operator namespace (the chart's), or the URL.
        io.stdout.write(
          toMultiDocumentYaml(
            generateCrds(katalog, {
              webhook: webhookClientConfigOf(webhookService ?? 'orkestra-webhook', namespace),
            }),
            header,
          ),
        );
        break;
      case 'policies':
        // The admission webhook's configuration points where --webhook-service says (ADR 0089).
        io.stdout.write(
          toMultiDocumentYaml(
            generatePolicies(katalog, namespace, [], {
              target: webhookClientConfigOf(webhookService ?? 'orkestra-webhook', namespace),
              ...(sharding ? { sharding } : {}),
            }),
            header,
          ),
        );
        break;
      case 'rbac': {
        const rbac = generateRbac(katalog, {
          namespace,
          ...(parsed.values['control-center'] === true ? { controlCenter: true } : {}),
          ...(sharding ? { sharding } : {}),
        });
        io.stdout.write(toMultiDocumentYaml(rbac.manifests, [...header, ...notesHeader(rbac.notes)]));
        for (const note of rbac.notes) io.stderr.write(`note: ${note}\n`);
        break;
      }
      case 'bundle': {
        const image = parsed.values.image ?? `${DEFAULT_IMAGE_REPOSITORY}:${operatorVersion()}`;
        const bundle = generateBundle(katalog, { namespace, katalogText: loaded.text, image });
        io.stdout.write(
          toMultiDocumentYaml(bundle.manifests, [...header, ...notesHeader(bundle.rbac.notes)]),
        );
        for (const note of bundle.rbac.notes) io.stderr.write(`note: ${note}\n`);
        break;
      }
      case 'helm-values': {
        const values = generateHelmValues(katalog, {
          katalogText: loaded.text,
          namespace,
          ...(sharding ? { sharding } : {}),
        });
        const notes = generateRbac(katalog, { namespace, ...(sharding ? { sharding } : {}) }).notes;
        const comments = [...header, ...notesHeader(notes)].map((l) => (l === '' ? '#' : `# ${l}`));
        io.stdout.write(`${comments.join('\n')}\n${stringify(values, { lineWidth: 0 })}`);
        for (const note of notes) io.stderr.write(`note: ${note}\n`);
        break;
      }
    }
    return ExitCode.Ok;
  },
};

function notesHeader(notes: readonly string[]): string[] {
  return notes.length === 0 ? [] : ['', 'RBAC notes:', ...notes.map((n) => `- ${n}`)];
}
