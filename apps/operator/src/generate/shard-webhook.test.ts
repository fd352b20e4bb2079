import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OrkestraLabel, loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { shardWebhookConfiguration, webhookConfigurationNames } from './admission-webhook.js';
import { generatePolicies } from './generate-bundle.js';
import { generateHelmValues } from './generate-helm-values.js';
import { generateRbac } from './generate-rbac.js';

// The shard-assignment webhook's configuration (docs/reference/runtime.md §25.2, ADR 0110).

const repo = join(import.meta.dirname, '../../../..');
const file = join(repo, 'examples/website/katalog.yaml');
const katalog = loadKatalogOrThrow({ path: file });
const target = { service: { namespace: 'ops', name: 'orkestra-webhook', port: 443 } };

type Webhook = Record<string, unknown> & { name: string; rules: { operations: string[] }[] };
const configsOf = (manifests: readonly Record<string, unknown>[]) =>
  manifests.filter((m) => m['kind'] === 'MutatingWebhookConfiguration');

describe('shard-assignment webhook configuration', () => {
  it('is one MutatingWebhookConfiguration per Katalog: CREATE only, fails open, 2 s, never reinvoked', () => {
    const config = shardWebhookConfiguration(katalog, target, 'PEM');
    expect(config?.['metadata']).toMatchObject({ name: 'website-operator.orkestra-shard' });
    const webhooks = (config?.['webhooks'] ?? []) as Webhook[];
    expect(webhooks.map((w) => w.name)).toEqual(['shard.websites.demo.example.com']);
    expect(webhooks[0]).toMatchObject({
      clientConfig: {
        service: {
          namespace: 'ops',
          name: 'orkestra-webhook',
          port: 443,
          path: '/shard/websites.demo.example.com',
        },
        caBundle: Buffer.from('PEM').toString('base64'),
      },
      rules: [{ apiGroups: ['demo.example.com'], operations: ['CREATE'], resources: ['websites'] }],
      failurePolicy: 'Ignore',
      timeoutSeconds: 2,
      sideEffects: 'None',
      reinvocationPolicy: 'Never',
    });
    // Only CREATEs without the label, and with a name (generateName: the sharder assigns it).
    const conditions = (webhooks[0]?.['matchConditions'] ?? []) as { name: string; expression: string }[];
    expect(conditions.map((c) => c.name)).toEqual(['shard-label-unset', 'named']);
    expect(conditions[0]?.expression).toContain(`"${OrkestraLabel.Shard}" in object.metadata.labels`);
  });

  it('comes with generatePolicies and the caBundle targets only when sharded', () => {
    expect(configsOf(generatePolicies(katalog, 'ops', [], { target }))).toEqual([]);
    expect(
      configsOf(generatePolicies(katalog, 'ops', [], { target, sharding: true })).map(
        (m) => (m['metadata'] as { name: string }).name,
      ),
    ).toEqual(['website-operator.orkestra-shard']);
    // An endpoint started for the shards alone serves no Katalog rule: their configurations stay out.
    const webhookKinds = (manifests: readonly Record<string, unknown>[]) =>
      manifests.filter((m) => String(m['kind']).endsWith('WebhookConfiguration')).map((m) => m['kind']);
    expect(webhookKinds(generatePolicies(katalog, 'ops', [], { target, sharding: true }))).toEqual([
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
    ]);
    expect(
      webhookKinds(generatePolicies(katalog, 'ops', [], { target, sharding: true, katalogRules: false })),
    ).toEqual(['MutatingWebhookConfiguration']);
    const mutating = (sharding: boolean) =>
      webhookConfigurationNames(katalog, { sharding }).filter(
        (c) => c.kind === 'MutatingWebhookConfiguration',
      );
    expect(mutating(false)).toEqual([]);
    expect(mutating(true)).toEqual([
      { kind: 'MutatingWebhookConfiguration', name: 'website-operator.orkestra-shard' },
    ]);
  });

  it('adds to RBAC only its configuration’s get/update and the certificate Secret', () => {
    const rulesOf = (sharding: boolean) =>
      generateRbac(katalog, { namespace: 'ops', sharding }).manifests.flatMap(
        (m) => (m['rules'] as Record<string, unknown>[] | undefined) ?? [],
      );
    const added = rulesOf(true).filter(
      (rule) => !rulesOf(false).some((r) => JSON.stringify(r) === JSON.stringify(rule)),
    );
    expect(added).toEqual([
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations'],
        verbs: ['get', 'update'],
        resourceNames: ['website-operator.orkestra-shard'],
      },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'list', 'watch', 'update', 'delete'],
      },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'update'],
        resourceNames: ['orkestra-webhook-tls'],
      },
    ]);
  });

  it('is in the chart values of helm-values --sharding, with sharding.enabled', () => {
    const text = readFileSync(file, 'utf8');
    const values = generateHelmValues(katalog, { katalogText: text, namespace: 'ops', sharding: true });
    expect(values.sharding).toEqual({ enabled: true });
    expect(configsOf(values.admissionPolicies).map((m) => (m['metadata'] as { name: string }).name)).toEqual([
      'website-operator.orkestra-shard',
    ]);
    // The chart's ClusterRole takes these rules: the operator may write the configuration's caBundle.
    expect(values.rbac.rules).toContainEqual({
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations'],
      verbs: ['get', 'update'],
      resourceNames: ['website-operator.orkestra-shard'],
    });
    expect(generateHelmValues(katalog, { katalogText: text, namespace: 'ops' }).sharding).toBeUndefined();
  });
});
