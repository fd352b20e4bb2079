/**
 * ProviderErrorCode lists the `ProviderError` codes the kit itself produces. Providers add their
 * own codes (e.g. `NoSuchBucket`); these are the ones every provider built with `defineProvider`
 * shares.
 */
export const ProviderErrorCode = {
  /** A declaration's spec does not match its kind's schema. Not retryable. */
  InvalidSpec: 'InvalidSpec',
  /** The provider's config does not match its config schema. Not retryable. */
  InvalidConfig: 'InvalidConfig',
  /** The declaration names a kind the provider does not have. Not retryable. */
  UnknownKind: 'UnknownKind',
  /** The call's AbortSignal fired (declaration timeout, reconcile timeout or shutdown). Retryable. */
  Aborted: 'Aborted',
  /** An external call exceeded the provider's own per-call timeout. Retryable. */
  Timeout: 'Timeout',
  /** Anything a provider did not translate itself. Retryable. */
  Internal: 'Internal',
} as const;
/** ProviderErrorCode is one of the kit's own error codes. */
export type ProviderErrorCode = (typeof ProviderErrorCode)[keyof typeof ProviderErrorCode];
