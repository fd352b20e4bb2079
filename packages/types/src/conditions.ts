/**
 * Condition types and reasons written on CRs (docs/reference/runtime.md §8, docs/reference/katalog.md §13.1).
 *
 * ```
 *                      every step succeeded and every provider is ready
 *   (new CR) ──────────────────────────────────────────────▶ Ready=True  ReconcileSucceeded
 *      │                                                        │   ▲
 *      │ a step fails / waits                  a step fails / waits│   │ next reconcile succeeds
 *      ▼                                                        ▼   │
 *   Ready=False <reason of the failing step> ◀──────────────────────┘
 *      │   retry:    re-queued with per-key exponential backoff (5 ms … 1000 s), up to
 *      │             `maxAttempts`, then RetriesExhausted until the spec or a watched input changes
 *      │   terminal: not re-queued; evaluated again on the next CR change or at resync
 *      │   pending:  not an error; re-queued after a delay, failure count reset
 *      ▼ deletion timestamp set
 *   Ready=False Deleting ─▶ (DeletionTimedOut | ProviderDeleteFailed while stuck) ─▶ finalizer removed
 * ```
 *
 * Synced and Ready (ADR 0009): `Synced` is the outcome of the last reconcile (every reason above
 * applies to it; `ReconcileSucceeded` when everything was applied). `Ready` is `Synced` and every
 * child ready (kstatus `Current`, or its `readyWhen`):
 *
 * ```
 *   Synced=False <reason>           ─▶ Ready=False <same reason>
 *   Synced=True  ReconcileSucceeded ─▶ Ready=False ChildNotReady | ChildFailed | WaitingForChildren
 *                                       "<Kind> <name>: <why>" naming the first child not ready
 *                                   ─▶ Ready=True  ReconcileSucceeded once every child is ready
 * ```
 *
 * Entries compiled with `readiness: 'reconciled'` (upstream dialects) keep Ready = Synced.
 *
 * `lastTransitionTime` changes only when `status` changes. `ValidationWarning` exists only on CRs
 * of entries that have `action: warn` validation rules.
 */

/** ConditionType lists the condition types the runtime owns on a CR. */
export const ConditionType = {
  /** Always present: Synced and every child ready (or, with `readiness: 'reconciled'`, the same as Synced). */
  Ready: 'Ready',
  /** Always present: the outcome of the last reconcile (everything applied, or the failing step's reason). */
  Synced: 'Synced',
  /** Only for entries with warn validation rules: `True` while warn rules are violated. */
  ValidationWarning: 'ValidationWarning',
  /**
   * Only on CRs with HTTP cross reads, once one failed: `True` while a peer cannot be read (the
   * message names each address; the last good answer is used meanwhile), `False` once all answer
   * (docs/reference/runtime.md §14.2, ADR 0043).
   */
  CrossSourceUnavailable: 'CrossSourceUnavailable',
  /**
   * Only while a `preReconcile.reconcileGate` holds the CR (docs/reference/katalog.md §20.3): `True`,
   * reason `ReconcileGated`, the message naming what did not pass. Removed by the next reconcile.
   */
  Gated: 'Gated',
} as const;
/** ConditionType is one of the runtime-owned condition types. */
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/** ConditionStatus is the status of a Kubernetes condition. */
export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
/** ConditionStatus is `True`, `False` or `Unknown`. */
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** ConditionReason lists every reason the runtime writes, with when it applies. */
export const ConditionReason = {
  /** Ready=True: every step succeeded and every provider declaration is ready. */
  ReconcileSucceeded: 'ReconcileSucceeded',
  /** Ready=False, terminal: the CR's namespace, or a child's target namespace, is blocked (docs/reference/katalog.md §19). */
  NamespaceRestricted: 'NamespaceRestricted',
  /** Ready=False, retry: adding the finalizer failed. */
  FinalizerFailed: 'FinalizerFailed',
  /** Ready=False, retry: a render, helper or coercion failure (also normalize). */
  TemplateError: 'TemplateError',
  /** Ready=False, retry: the mutation merge patch failed. */
  MutationFailed: 'MutationFailed',
  /** Ready=False, terminal: deny validation rules are violated. */
  ValidationFailed: 'ValidationFailed',
  /** Ready=False, retry: the git hook failed (without `continueOnError`). */
  GitFailed: 'GitFailed',
  /** Ready=False, retry: an external call failed (without `continueOnError`). */
  ExternalCallFailed: 'ExternalCallFailed',
  /**
   * Ready=False, retry: a remote reconciler (docs/reference/katalog.md §15.3) did not answer, answered
   * a status other than 200, a body that is not JSON or not its answer shape, a kind outside
   * `managedResources`, or `result: error`; the message says which.
   */
  RemoteReconcileFailed: 'RemoteReconcileFailed',
  /** Ready=False, retry: a module hook (`operatorBox.hooks`) threw, timed out or is not loaded (without `continueOnError`). */
  HookFailed: 'HookFailed',
  /** Ready=False, retry: the docker build failed. */
  DockerBuildFailed: 'DockerBuildFailed',
  /** Ready=False, pending: a docker build is running. */
  DockerBuildPending: 'DockerBuildPending',
  /** Ready=False, terminal: two passing entries render the same object. */
  DuplicateChild: 'DuplicateChild',
  /** Ready=False, terminal: the object carries another CR's owner label. */
  ChildOwnedByOther: 'ChildOwnedByOther',
  /**
   * Ready=False, retry: an object with a child's name exists and carries no Orkestra owner label;
   * it is left untouched, never adopted (ADR 0032).
   */
  ChildConflict: 'ChildConflict',
  /** Ready=False, retry: field-manager conflict with `forceConflict: false`. */
  ApplyConflict: 'ApplyConflict',
  /** Ready=False, retry (terminal for 400 and 422): the API server rejected a write. */
  ApplyFailed: 'ApplyFailed',
  /** Ready=False, retry: deleting a pruned child failed. */
  PruneFailed: 'PruneFailed',
  /** Ready=False, retry (terminal for schema errors and non-retryable provider errors): a provider call failed. */
  ProviderFailed: 'ProviderFailed',
  /** Ready=False, pending: a provider reported work in progress. */
  ProviderPending: 'ProviderPending',
  /** Ready=False, pending: a Secret with `copyFrom` waits for its source Secret to exist. */
  SourceSecretMissing: 'SourceSecretMissing',
  /** Ready=False, pending: a ConfigMap with `copyFrom` waits for its source ConfigMap to exist (ADR 0115). */
  SourceConfigMapMissing: 'SourceConfigMapMissing',
  /**
   * Ready=False, pending: a Secret or ConfigMap copies a source the CR chose (a templated `copyFrom`)
   * from another namespace, and the source does not grant it (docs/reference/katalog.md §7.2); the
   * message names the grant to add. Also written when the source does not exist, so the condition
   * tells nothing about objects the CR may not read.
   */
  CopyNotGranted: 'CopyNotGranted',
  /**
   * Ready=False, not retried: the CR failed `rollback.trigger.consecutiveFailures` times in a row and
   * was rolled back (docs/reference/katalog.md §20.4); reconciled again once its spec changes.
   */
  RolledBack: 'RolledBack',
  /** Gated=True: a `preReconcile.reconcileGate` holds the CR (docs/reference/katalog.md §20.3). */
  ReconcileGated: 'ReconcileGated',
  /** Ready=False, retry: the reconcile exceeded its time budget. */
  ReconcileTimeout: 'ReconcileTimeout',
  /**
   * Ready=False, not retried: the failure used the last of `queue.retryBackoff.maxAttempts`
   * (docs/reference/katalog.md §20.1); the message names the attempts and the last failure. Retried
   * again once the spec (generation) or a watched input changes.
   */
  RetriesExhausted: 'RetriesExhausted',
  /** Ready=False, retry: anything thrown that is not an OrkestraError. */
  InternalError: 'InternalError',
  /** Ready=False, pending: the deletion path is running. */
  Deleting: 'Deleting',
  /** Ready=False, retry: cleanup jobs or ordered groups exceeded `onDelete.timeout`. */
  DeletionTimedOut: 'DeletionTimedOut',
  /** Ready=False, retry: a provider delete call failed during deletion. */
  ProviderDeleteFailed: 'ProviderDeleteFailed',
  /** ValidationWarning=True: warn validation rules are violated (messages joined by "; "). */
  ValidationWarning: 'ValidationWarning',
  /** ValidationWarning=False: the warn rules that were violated no longer are. */
  NoWarnings: 'NoWarnings',
  /** Ready=False (Synced=True): the first child not ready is in progress (ADR 0009). */
  ChildNotReady: 'ChildNotReady',
  /** Ready=False (Synced=True): the first child not ready has failed, e.g. a Job or a stuck rollout. */
  ChildFailed: 'ChildFailed',
  /** Ready=False (Synced=True): a child waits for others to be ready before it is applied (`waitFor`). */
  WaitingForChildren: 'WaitingForChildren',
  /** Never written on a CR: the Katalog itself failed to load (code of `KatalogError`). */
  KatalogInvalid: 'KatalogInvalid',
  /**
   * CrossSourceUnavailable=True: an HTTP cross read's peer did not answer (ADR 0043); also Ready=False,
   * pending, while such a read has no last good answer to use.
   */
  CrossSourceUnavailable: 'CrossSourceUnavailable',
  /** CrossSourceUnavailable=False: every HTTP cross read's peer answers again. */
  CrossSourcesAvailable: 'CrossSourcesAvailable',
} as const;
/** ConditionReason is one of the reasons the runtime writes; also the `code` of every OrkestraError. */
export type ConditionReason = (typeof ConditionReason)[keyof typeof ConditionReason];

/** RetryClass says what the work queue does after a reconcile ends with a reason (docs/reference/runtime.md §8). */
export const RetryClass = {
  /** Rate-limited re-queue with per-key exponential backoff. */
  Retry: 'retry',
  /** Not re-queued; reconciled again on the next change or at resync. */
  Terminal: 'terminal',
  /** Not an error: re-queued after a delay, failure count reset. */
  Pending: 'pending',
  /** Success, or a reason that does not end a reconcile. */
  None: 'none',
} as const;
/** RetryClass is `retry`, `terminal`, `pending` or `none`. */
export type RetryClass = (typeof RetryClass)[keyof typeof RetryClass];

/**
 * reasonRetryClass maps each reason to its default retry class. Where docs/reference/runtime.md lists an exception
 * (`ApplyFailed` for 400/422, `ProviderFailed` for schema errors) the thrower decides through
 * `OrkestraError.retryable`.
 */
export const reasonRetryClass: Readonly<Record<ConditionReason, RetryClass>> = Object.freeze({
  ReconcileSucceeded: 'none',
  NamespaceRestricted: 'terminal',
  FinalizerFailed: 'retry',
  TemplateError: 'retry',
  MutationFailed: 'retry',
  ValidationFailed: 'terminal',
  GitFailed: 'retry',
  ExternalCallFailed: 'retry',
  RemoteReconcileFailed: 'retry',
  HookFailed: 'retry',
  DockerBuildFailed: 'retry',
  DockerBuildPending: 'pending',
  DuplicateChild: 'terminal',
  ChildOwnedByOther: 'terminal',
  ChildConflict: 'retry',
  ApplyConflict: 'retry',
  ApplyFailed: 'retry',
  PruneFailed: 'retry',
  ProviderFailed: 'retry',
  ProviderPending: 'pending',
  SourceSecretMissing: 'pending',
  SourceConfigMapMissing: 'pending',
  CopyNotGranted: 'pending',
  ReconcileGated: 'none',
  RolledBack: 'terminal',
  ReconcileTimeout: 'retry',
  RetriesExhausted: 'terminal',
  InternalError: 'retry',
  Deleting: 'pending',
  DeletionTimedOut: 'retry',
  ProviderDeleteFailed: 'retry',
  ValidationWarning: 'none',
  NoWarnings: 'none',
  ChildNotReady: 'none',
  ChildFailed: 'none',
  WaitingForChildren: 'none',
  KatalogInvalid: 'terminal',
  CrossSourceUnavailable: 'pending',
  CrossSourcesAvailable: 'none',
});
