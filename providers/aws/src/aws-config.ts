import { z } from 'zod';

/** A boolean that also accepts "true"/"false", since `$NAME` config values arrive as strings. */
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);

/**
 * AwsConfig is the provider config (docs/reference/katalog.md §14.4): `region` (required), `endpoint` and
 * `forcePathStyle` for S3-compatible servers, static `accessKeyId`/`secretAccessKey` (else the
 * AWS SDK's default credential chain), and the per-call timeout and attempt budget.
 */
export const AwsConfig = z
  .strictObject({
    /** Default region for declarations without one. */
    region: z.string().min(1),
    /** Endpoint override, e.g. `http://127.0.0.1:5000` for moto or MinIO. Default: AWS. */
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    /** Path-style addressing (`endpoint/bucket`), needed by most S3-compatible servers. Default false. */
    forcePathStyle: flag.default(false),
    /** Static credentials; both or neither. Default: the SDK's default chain. */
    accessKeyId: z.string().min(1).optional(),
    secretAccessKey: z.string().min(1).optional(),
    /** Budget for each SDK call, retries included. Default 30 000 ms. */
    callTimeoutMs: z.coerce.number().int().min(100).max(600_000).default(30_000),
    /** SDK attempts per call (1 = no retries). Default 3. */
    maxAttempts: z.coerce.number().int().min(1).max(10).default(3),
  })
  .superRefine((config, ctx) => {
    if ((config.accessKeyId == null) !== (config.secretAccessKey == null)) {
      const path = config.accessKeyId == null ? 'accessKeyId' : 'secretAccessKey';
      ctx.addIssue({ code: 'custom', path: [path], message: 'accessKeyId and secretAccessKey go together' });
    }
  });
/** AwsConfig is the parsed provider config. */
export type AwsConfig = z.output<typeof AwsConfig>;
