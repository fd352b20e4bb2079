import { ORKESTRA_PREFIX } from '@orkestra/types';
import { z } from 'zod';

const ipAddress = /^\d{1,3}(\.\d{1,3}){3}$/;

/** BucketName is an S3 bucket name under the general-purpose bucket naming rules. */
export const BucketName = z
  .string()
  .min(3, 'a bucket name has 3 to 63 characters')
  .max(63, 'a bucket name has 3 to 63 characters')
  .regex(
    /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/,
    'a bucket name uses lowercase letters, digits, "." and "-", and starts and ends with a letter or digit',
  )
  .refine((name) => !name.includes('..'), 'a bucket name must not contain ".."')
  .refine((name) => !ipAddress.test(name), 'a bucket name must not look like an IP address')
  .refine(
    (name) =>
      !/^(xn--|sthree-|amzn-s3-demo-)/.test(name) &&
      !/(-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/.test(name),
    'a bucket name must not use a prefix or suffix reserved by S3 (xn--, sthree-, -s3alias, --ol-s3, …)',
  );

const TagKey = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\p{L}\p{Z}\p{N}_.:/=+\-@]+$/u, 'tag keys use letters, digits, spaces and _ . : / = + - @')
  .refine((key) => !key.startsWith('aws:'), 'the aws: tag prefix is reserved')
  .refine(
    (key) => !key.startsWith(ORKESTRA_PREFIX),
    `the ${ORKESTRA_PREFIX} tag prefix is reserved for the provider`,
  );

const TagValue = z
  .string()
  .max(256)
  .regex(/^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u, 'tag values use letters, digits, spaces and _ . : / = + - @');

/** S3Encryption is the default encryption: SSE-S3 (`AES256`), SSE-KMS (`aws:kms`) or `none` (the store's default). */
export const S3Encryption = z.enum(['AES256', 'aws:kms', 'none']);
/** S3Encryption is one of the encryption modes. */
export type S3Encryption = z.infer<typeof S3Encryption>;

/**
 * S3BucketSpec is the `s3` kind (docs/reference/katalog.md §14.4). Unknown keys are rejected so a typo is an
 * error, not a silently ignored setting.
 */
export const S3BucketSpec = z
  .strictObject({
    bucket: BucketName,
    /** Default: the provider config's region. */
    region: z
      .string()
      .regex(/^[a-z0-9-]{1,32}$/, 'a region is lowercase letters, digits and "-"')
      .optional(),
    versioning: z.boolean().default(false),
    encryption: S3Encryption.default('AES256'),
    /** KMS key id or ARN for `aws:kms`; default the AWS-managed `aws/s3` key. */
    kmsKeyId: z.string().min(1).optional(),
    blockPublicAccess: z.boolean().default(true),
    /** The provider adds `orkestra.konductor.io/owner-uid` and `orkestra.konductor.io/crd`. */
    tags: z
      .record(TagKey, TagValue)
      .default({})
      .refine(
        (tags) => Object.keys(tags).length <= 48,
        'at most 48 tags (S3 allows 50; the provider adds 2)',
      ),
    /** Expire objects (under `prefix`) after `expirationDays`. */
    lifecycle: z
      .strictObject({ expirationDays: z.number().int().min(1), prefix: z.string().max(1024).default('') })
      .optional(),
    /** Delete a non-empty bucket with all its objects and versions. Default false: delete stays pending. */
    forceDestroy: z.boolean().default(false),
    /** Credentials from a Secret in the owner's namespace (`namespace` only for cluster-scoped owners). */
    credentialsSecret: z
      .strictObject({
        name: z.string().min(1),
        namespace: z.string().min(1).optional(),
        accessKeyIdKey: z.string().min(1).default('accessKeyId'),
        secretAccessKeyKey: z.string().min(1).default('secretAccessKey'),
        sessionTokenKey: z.string().min(1).optional(),
      })
      .optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.kmsKeyId != null && spec.encryption !== 'aws:kms') {
      ctx.addIssue({ code: 'custom', path: ['kmsKeyId'], message: 'kmsKeyId needs encryption: aws:kms' });
    }
  });
/** S3BucketSpec is a parsed `s3` declaration. */
export type S3BucketSpec = z.output<typeof S3BucketSpec>;
