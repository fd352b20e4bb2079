/**
 * Refusal tables: upstream keys that have no counterpart in Orkestra, each with the reason `ork
 * validate` reports at the key (docs/reference/katalog.md §24, ADR 0004).
 */
/** REFUSED names the upstream keys the loader cannot map and why (reported by `ork validate`). */
export const REFUSED: Readonly<Record<string, string>> = {
  deletionProtection:
    'deletion protection is Katalog-wide: write `spec.deletionProtection` (or upstream’s top-level `security.deletionProtection`)',
  removeFinalizers: 'finalizers are always removed after deletion completes',
  ignoreStatusPatch: 'the status is always written (skipped when unchanged)',
  ignoreObservedGeneration: 'observedGeneration is always written',
  conversion: 'CRD conversion webhooks are not supported; serve one version',
  observe: 'watching unrelated objects is not supported; children and cross targets are watched',
  watch:
    'watching objects other than children and cross targets is not supported; a change to them reaches the CR at its next resync',
  profile: 'tuning profiles are not supported; set workers, resync and queue',
  sentinels: 'event sentinels are not supported; reconciles are level-based',
};

/** SECURITY_REFUSED names upstream `security` blocks that would change behaviour when enabled. */
export const SECURITY_REFUSED: Readonly<Record<string, string>> = {};

/** SECURITY_DROPPED names upstream `security` blocks whose job Orkestra does elsewhere. */
export const SECURITY_DROPPED: Readonly<Record<string, string>> = {
  namespaceProtection:
    'namespace rules (allowedNamespaces/restrictedNamespaces) are enforced by the runtime, which does not reconcile a CR outside them and says why in its status, not by an admission webhook',
  webhooks: 'admission webhooks are configured by the deployment (the Helm chart), not by the Katalog',
  conversion:
    'the conversion webhook is served whenever an entry declares `conversion` (docs/reference/katalog.md §3.4)',
  rbac: 'RBAC comes from `ork generate rbac` and the Helm chart, not from the running operator',
};

/** WATCH_REFUSED names the keys of an upstream watch item or `observe` block that have no counterpart, and why. */
export const WATCH_REFUSED: Readonly<Record<string, string>> = {
  include: 'write the watch items inline',
  events:
    'Kubernetes Events are not watched as triggers; watch the object the Event is about (`watch: [{apiVersion, kind}]`)',
};

/** ENTRY_REFUSED names entry-level upstream keys without a counterpart, and why (reported at the key). */
export const ENTRY_REFUSED: Readonly<Record<string, string>> = {
  ignoreStatusPatch: REFUSED['ignoreStatusPatch'] ?? '',
  ignoreObservedGeneration: REFUSED['ignoreObservedGeneration'] ?? '',
  removeFinalizers: REFUSED['removeFinalizers'] ?? '',
};
