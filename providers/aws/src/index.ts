/**
 * @orkestra/provider-aws manages S3 buckets for Katalog declarations (kind `s3`) through
 * `@aws-sdk/client-s3`: creation, versioning, tags, default encryption, public access block and
 * an expiration rule, corrected on every reconcile; deletion (with `forceDestroy` for non-empty
 * buckets). It works with AWS and with S3-compatible servers (`endpoint`, `forcePathStyle`).
 * It never talks to Kubernetes except to read a credentials Secret through the KubeReader.
 *
 * Main exports: createProvider and configSchema (what the operator imports), AwsConfig,
 * S3BucketSpec, translateAwsError.
 *
 * @example
 * import { createProvider } from '@orkestra/provider-aws';
 *
 * const aws = await createProvider({ name: 'aws', config: { region: 'eu-west-1' }, logger, signal });
 * const result = await aws.reconcile({ declaration: { name: 'assets', kind: 's3', spec: { bucket: 'shop-assets' }, source: '…' }, … });
 * // { state: 'ready', outputs: { bucket: 'shop-assets', region: 'eu-west-1', arn: 'arn:aws:s3:::shop-assets', endpoint: 'https://s3.eu-west-1.amazonaws.com' } }
 */
import { defineProvider } from '@orkestra/provider-kit';
import type { ProviderInit } from '@orkestra/types';
import { AwsConfig } from './aws-config.js';
import { s3Bucket } from './s3-bucket.js';
import type { AwsState } from './s3-bucket.js';
import { createS3ClientPool } from './s3-client-pool.js';
import { translateAwsError } from './translate-aws-error.js';

const aws = defineProvider({
  name: 'aws',
  configSchema: AwsConfig,
  // Annotated: with kinds defined in their own files, TypeScript infers the state from here.
  setup: ({ config }: ProviderInit<AwsConfig>): AwsState => ({
    config,
    pool: createS3ClientPool({ config }),
  }),
  close: async (state) => {
    await Promise.resolve();
    state.pool.close();
  },
  translateError: (error, context) =>
    translateAwsError(error, { operation: `${context.kind} ${context.operation}` }),
  kinds: { s3: s3Bucket },
});

/** configSchema validates the `aws` provider config; the operator imports it by name. */
export const configSchema = aws.configSchema;
/** createProvider starts an `aws` provider (one S3 client pool); the operator imports it by name. */
export const createProvider = aws.createProvider;

export { AwsConfig } from './aws-config.js';
export { BucketName, S3BucketSpec, S3Encryption } from './s3-bucket-spec.js';
export { EXPIRATION_RULE_ID } from './s3-bucket.js';
export { awsErrorCode, translateAwsError } from './translate-aws-error.js';
export type { AwsErrorContext } from './translate-aws-error.js';
