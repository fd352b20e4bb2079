import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteBucketEncryptionCommand,
  DeleteBucketLifecycleCommand,
  DeleteObjectsCommand,
  DeletePublicAccessBlockCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  ListObjectVersionsCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
} from '@aws-sdk/client-s3';
import type { BucketLocationConstraint, LifecycleRule, S3Client } from '@aws-sdk/client-s3';
import { abortedError, withTimeout } from '@orkestra/provider-kit';
import type { KindDefinition, KindRequest } from '@orkestra/provider-kit';
import { OrkestraLabel, ProviderError } from '@orkestra/types';
import type { JsonObject } from '@orkestra/types';
import type { AwsConfig } from './aws-config.js';
import { S3BucketSpec } from './s3-bucket-spec.js';
import type { S3ClientPool, StaticCredentials } from './s3-client-pool.js';
import { translateAwsError } from './translate-aws-error.js';

/** AwsState is the per-provider-instance state: the parsed config and the client pool. */
export interface AwsState {
  readonly config: AwsConfig;
  readonly pool: S3ClientPool;
}

type BucketRequest = KindRequest<S3BucketSpec, AwsState>;

/** The lifecycle rule the provider owns; other rules on the bucket are left alone. */
export const EXPIRATION_RULE_ID = 'orkestra-expiration';

/** A delete that must wait for a non-empty bucket asks to be called again after this long. */
const NOT_EMPTY_RETRY_MS = 60_000;

/** One bound S3 session: every call has the config's timeout and the request's signal. */
interface Session {
  readonly bucket: string;
  readonly region: string;
  send<Output>(
    command: { readonly constructor: { readonly name: string } },
    run: (client: S3Client, signal: AbortSignal) => Promise<Output>,
  ): Promise<Output>;
}

async function openSession(request: BucketRequest): Promise<Session> {
  const { spec, state, signal } = request;
  const region = spec.region ?? state.config.region;
  const client = state.pool.clientFor(region, await resolveCredentials(request));
  return {
    bucket: spec.bucket,
    region,
    async send(command, run) {
      const operation = command.constructor.name.replace(/Command$/, '');
      const callSignal = withTimeout(signal, state.config.callTimeoutMs);
      try {
        return await run(client, callSignal);
      } catch (error) {
        if (signal.aborted) throw abortedError(signal, `S3 ${operation}`);
        if (callSignal.aborted) {
          throw new ProviderError(
            `S3 ${operation} on bucket "${spec.bucket}" timed out after ${state.config.callTimeoutMs} ms`,
            {
              code: 'Timeout',
              retryable: true,
              cause: error,
            },
          );
        }
        throw translateAwsError(error, { operation, bucket: spec.bucket });
      }
    },
  };
}

/** call sends one command through the session. */
async function call<Output>(
  session: Session,
  command: { readonly constructor: { readonly name: string } },
): Promise<Output> {
  return await session.send(
    command,
    async (client, signal) => (await client.send(command as never, { abortSignal: signal })) as Output,
  );
}

/** orMissing turns the listed "not configured" error codes into `undefined`. */
async function orMissing<T>(work: Promise<T>, ...codes: string[]): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ProviderError && codes.includes(error.code)) return undefined;
    throw error;
  }
}

/**
 * resolveCredentials picks the credentials: the declaration's `credentialsSecret` (read through
 * the KubeReader), else the config's static keys, else `undefined` (the SDK's default chain).
 */
export async function resolveCredentials(request: BucketRequest): Promise<StaticCredentials | undefined> {
  const { spec, state, kube, owner } = request;
  const ref = spec.credentialsSecret;
  if (ref == null) {
    const { accessKeyId, secretAccessKey } = state.config;
    return accessKeyId == null || secretAccessKey == null ? undefined : { accessKeyId, secretAccessKey };
  }
  const namespace = ref.namespace ?? owner.metadata.namespace;
  if (namespace == null) {
    throw new ProviderError('credentialsSecret needs a namespace when the owner is cluster-scoped', {
      code: 'CredentialsSecretNamespace',
      retryable: false,
    });
  }
  const data = await kube.getSecret(namespace, ref.name);
  if (data == null) {
    throw new ProviderError(`credentials Secret ${namespace}/${ref.name} does not exist`, {
      code: 'CredentialsSecretNotFound',
      retryable: true,
    });
  }
  const decoder = new TextDecoder();
  const read = (key: string): string | undefined => {
    const value = data[key];
    return value == null || value.length === 0 ? undefined : decoder.decode(value).trim();
  };
  const accessKeyId = read(ref.accessKeyIdKey);
  const secretAccessKey = read(ref.secretAccessKeyKey);
  const missing = [
    accessKeyId == null ? ref.accessKeyIdKey : undefined,
    secretAccessKey == null ? ref.secretAccessKeyKey : undefined,
  ].filter((k) => k != null);
  if (accessKeyId == null || secretAccessKey == null) {
    throw new ProviderError(
      `credentials Secret ${namespace}/${ref.name} has no (or an empty) key ${missing.join(' and ')}`,
      {
        code: 'CredentialsSecretKeyMissing',
        retryable: true,
      },
    );
  }
  const sessionToken = ref.sessionTokenKey == null ? undefined : read(ref.sessionTokenKey);
  return { accessKeyId, secretAccessKey, ...(sessionToken == null ? {} : { sessionToken }) };
}

/** bucketOutputs are the `s3` outputs: `bucket`, `region`, `arn` and the S3 `endpoint` clients should use. */
export function bucketOutputs(bucket: string, region: string, config: AwsConfig): JsonObject {
  const partition = region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return {
    bucket,
    region,
    arn: `arn:${partition}:s3:::${bucket}`,
    endpoint: config.endpoint ?? `https://s3.${region}.${domain}`,
  };
}

/** headBucket tells whether the bucket exists (and is reachable with these credentials). */
async function headBucket(session: Session): Promise<{ readonly exists: boolean; readonly region?: string }> {
  try {
    const head = await call<{ BucketRegion?: string }>(
      session,
      new HeadBucketCommand({ Bucket: session.bucket }),
    );
    return head.BucketRegion == null ? { exists: true } : { exists: true, region: head.BucketRegion };
  } catch (error) {
    if (error instanceof ProviderError && (error.code === 'NotFound' || error.code === 'NoSuchBucket'))
      return { exists: false };
    throw error;
  }
}

async function currentTags(session: Session): Promise<Record<string, string>> {
  const out = await orMissing(
    call<{ TagSet?: { Key?: string; Value?: string }[] }>(
      session,
      new GetBucketTaggingCommand({ Bucket: session.bucket }),
    ),
    'NoSuchTagSet',
  );
  return Object.fromEntries((out?.TagSet ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
}

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

async function ensureTags(
  session: Session,
  request: BucketRequest,
  tags: Record<string, string>,
): Promise<void> {
  const desired: Record<string, string> = {
    ...request.spec.tags,
    [OrkestraLabel.OwnerUid]: request.ownership.ownerUid,
    [OrkestraLabel.Crd]: request.ownership.crd,
  };
  if (sameRecord(tags, desired)) return;
  request.logger.info({ bucket: session.bucket }, 'correcting bucket tags');
  await call(
    session,
    new PutBucketTaggingCommand({
      Bucket: session.bucket,
      Tagging: { TagSet: Object.entries(desired).map(([Key, Value]) => ({ Key, Value })) },
    }),
  );
}

async function ensureVersioning(session: Session, enabled: boolean): Promise<void> {
  const current = await call<{ Status?: string }>(
    session,
    new GetBucketVersioningCommand({ Bucket: session.bucket }),
  );
  // A bucket that never had versioning stays unversioned; one that had it can only be suspended.
  const wanted = enabled ? 'Enabled' : current.Status === 'Enabled' ? 'Suspended' : current.Status;
  if (wanted == null || wanted === current.Status) return;
  await call(
    session,
    new PutBucketVersioningCommand({
      Bucket: session.bucket,
      VersioningConfiguration: { Status: wanted as 'Enabled' | 'Suspended' },
    }),
  );
}

async function ensureEncryption(session: Session, spec: S3BucketSpec): Promise<void> {
  const out = await orMissing(
    call<{
      ServerSideEncryptionConfiguration?: {
        Rules?: { ApplyServerSideEncryptionByDefault?: { SSEAlgorithm?: string; KMSMasterKeyID?: string } }[];
      };
    }>(session, new GetBucketEncryptionCommand({ Bucket: session.bucket })),
    'ServerSideEncryptionConfigurationNotFoundError',
  );
  const rules = out?.ServerSideEncryptionConfiguration?.Rules ?? [];
  const current = rules.length === 1 ? rules[0]?.ApplyServerSideEncryptionByDefault : undefined;
  if (spec.encryption === 'none') {
    // `none`: no provider-managed encryption. AWS encrypts every bucket with SSE-S3 by default and
    // cannot turn that off, so only a non-default configuration is removed.
    if (rules.length > 0 && !(current?.SSEAlgorithm === 'AES256' && current.KMSMasterKeyID == null)) {
      await call(session, new DeleteBucketEncryptionCommand({ Bucket: session.bucket }));
    }
    return;
  }
  const kmsKeyId = spec.encryption === 'aws:kms' ? spec.kmsKeyId : undefined;
  if (current?.SSEAlgorithm === spec.encryption && (current.KMSMasterKeyID ?? undefined) === kmsKeyId) return;
  await call(
    session,
    new PutBucketEncryptionCommand({
      Bucket: session.bucket,
      ServerSideEncryptionConfiguration: {
        Rules: [
          {
            ApplyServerSideEncryptionByDefault: {
              SSEAlgorithm: spec.encryption,
              ...(kmsKeyId == null ? {} : { KMSMasterKeyID: kmsKeyId }),
            },
          },
        ],
      },
    }),
  );
}

async function ensurePublicAccessBlock(session: Session, block: boolean): Promise<void> {
  const out = await orMissing(
    call<{ PublicAccessBlockConfiguration?: Record<string, boolean | undefined> }>(
      session,
      new GetPublicAccessBlockCommand({ Bucket: session.bucket }),
    ),
    'NoSuchPublicAccessBlockConfiguration',
  );
  const current = out?.PublicAccessBlockConfiguration;
  const flags = ['BlockPublicAcls', 'IgnorePublicAcls', 'BlockPublicPolicy', 'RestrictPublicBuckets'];
  if (block) {
    if (current != null && flags.every((f) => current[f] === true)) return;
    await call(
      session,
      new PutPublicAccessBlockCommand({
        Bucket: session.bucket,
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          IgnorePublicAcls: true,
          BlockPublicPolicy: true,
          RestrictPublicBuckets: true,
        },
      }),
    );
  } else if (current != null && flags.some((f) => current[f] === true)) {
    await call(session, new DeletePublicAccessBlockCommand({ Bucket: session.bucket }));
  }
}

async function ensureLifecycle(session: Session, lifecycle: S3BucketSpec['lifecycle']): Promise<void> {
  const out = await orMissing(
    call<{ Rules?: LifecycleRule[] }>(
      session,
      new GetBucketLifecycleConfigurationCommand({ Bucket: session.bucket }),
    ),
    'NoSuchLifecycleConfiguration',
  );
  const rules = out?.Rules ?? [];
  const ours = rules.find((r) => r.ID === EXPIRATION_RULE_ID);
  const others = rules.filter((r) => r.ID !== EXPIRATION_RULE_ID);
  if (lifecycle == null) {
    if (ours == null) return;
    if (others.length === 0)
      await call(session, new DeleteBucketLifecycleCommand({ Bucket: session.bucket }));
    else
      await call(
        session,
        new PutBucketLifecycleConfigurationCommand({
          Bucket: session.bucket,
          LifecycleConfiguration: { Rules: others },
        }),
      );
    return;
  }
  const prefix = ours?.Filter?.Prefix ?? ours?.Prefix ?? '';
  if (
    ours?.Status === 'Enabled' &&
    ours.Expiration?.Days === lifecycle.expirationDays &&
    prefix === lifecycle.prefix
  )
    return;
  const rule: LifecycleRule = {
    ID: EXPIRATION_RULE_ID,
    Status: 'Enabled',
    Filter: { Prefix: lifecycle.prefix },
    Expiration: { Days: lifecycle.expirationDays },
  };
  await call(
    session,
    new PutBucketLifecycleConfigurationCommand({
      Bucket: session.bucket,
      LifecycleConfiguration: { Rules: [...others, rule] },
    }),
  );
}

async function createBucket(session: Session): Promise<void> {
  const location =
    session.region === 'us-east-1'
      ? {}
      : { CreateBucketConfiguration: { LocationConstraint: session.region as BucketLocationConstraint } };
  await orMissing(
    call(session, new CreateBucketCommand({ Bucket: session.bucket, ...location })),
    'BucketAlreadyOwnedByYou',
  );
}

function ownedByOther(tags: Readonly<Record<string, string>>, request: BucketRequest): string | undefined {
  const owner = tags[OrkestraLabel.OwnerUid];
  return owner != null && owner !== request.ownership.ownerUid ? owner : undefined;
}

async function reconcileBucket(request: BucketRequest) {
  const session = await openSession(request);
  const { spec } = request;
  const head = await headBucket(session);
  if (!head.exists) {
    request.logger.info({ bucket: spec.bucket, region: session.region }, 'creating bucket');
    await createBucket(session);
  } else if (head.region != null && head.region !== session.region) {
    throw new ProviderError(
      `bucket "${spec.bucket}" exists in region ${head.region}, not ${session.region}`,
      { code: 'RegionMismatch', retryable: false },
    );
  }
  const tags = await currentTags(session);
  const other = ownedByOther(tags, request);
  if (other != null) {
    throw new ProviderError(`bucket "${spec.bucket}" belongs to another owner (owner-uid ${other})`, {
      code: 'BucketOwnedByOther',
      retryable: false,
    });
  }
  await ensureTags(session, request, tags);
  await ensureVersioning(session, spec.versioning);
  await ensureEncryption(session, spec);
  await ensurePublicAccessBlock(session, spec.blockPublicAccess);
  await ensureLifecycle(session, spec.lifecycle);
  return {
    state: 'ready' as const,
    outputs: bucketOutputs(spec.bucket, session.region, request.state.config),
  };
}

interface VersionPage {
  Versions?: { Key?: string; VersionId?: string }[];
  DeleteMarkers?: { Key?: string; VersionId?: string }[];
  IsTruncated?: boolean;
  NextKeyMarker?: string;
  NextVersionIdMarker?: string;
}

async function listVersions(
  session: Session,
  maxKeys: number,
  marker?: { key?: string; versionId?: string },
): Promise<VersionPage> {
  return await call<VersionPage>(
    session,
    new ListObjectVersionsCommand({
      Bucket: session.bucket,
      MaxKeys: maxKeys,
      ...(marker?.key == null ? {} : { KeyMarker: marker.key }),
      ...(marker?.versionId == null ? {} : { VersionIdMarker: marker.versionId }),
    }),
  );
}

/** emptyBucket deletes every object version and delete marker, 1000 at a time. */
async function emptyBucket(session: Session, request: BucketRequest): Promise<number> {
  let deleted = 0;
  for (;;) {
    // Always list from the start: what was deleted is gone, so the first page is the next batch.
    const page = await listVersions(session, 1000);
    const objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
      .filter((o) => o.Key != null)
      .map((o) => ({ Key: o.Key as string, ...(o.VersionId == null ? {} : { VersionId: o.VersionId }) }));
    if (objects.length === 0) return deleted;
    const result = await call<{ Errors?: { Key?: string; Code?: string; Message?: string }[] }>(
      session,
      new DeleteObjectsCommand({ Bucket: session.bucket, Delete: { Objects: objects, Quiet: true } }),
    );
    const first = result.Errors?.[0];
    if (first != null) {
      throw new ProviderError(
        `emptying bucket "${session.bucket}": ${result.Errors?.length} objects not deleted, e.g. ${first.Key}: ${first.Code} ${first.Message ?? ''}`,
        {
          code: first.Code ?? 'DeleteObjectsFailed',
          retryable: true,
        },
      );
    }
    deleted += objects.length;
    request.logger.debug({ bucket: session.bucket, deleted }, 'emptying bucket');
  }
}

async function deleteBucket(request: BucketRequest) {
  const session = await openSession(request);
  const { spec } = request;
  if (!(await headBucket(session)).exists)
    return { state: 'deleted' as const, message: `bucket "${spec.bucket}" does not exist` };
  const other = ownedByOther(await currentTags(session), request);
  if (other != null)
    return {
      state: 'deleted' as const,
      message: `bucket "${spec.bucket}" belongs to another owner (owner-uid ${other}); left in place`,
    };
  const probe = await listVersions(session, 1);
  const nonEmpty = (probe.Versions?.length ?? 0) + (probe.DeleteMarkers?.length ?? 0) > 0;
  if (nonEmpty && !spec.forceDestroy) {
    return {
      state: 'pending' as const,
      message: `bucket "${spec.bucket}" is not empty; empty it or set forceDestroy: true to delete it with its objects`,
      retryAfterMs: NOT_EMPTY_RETRY_MS,
    };
  }
  if (nonEmpty) {
    const count = await emptyBucket(session, request);
    request.logger.info({ bucket: spec.bucket, deleted: count }, 'forceDestroy: emptied bucket');
  }
  try {
    await call(session, new DeleteBucketCommand({ Bucket: spec.bucket }));
  } catch (error) {
    if (error instanceof ProviderError && error.code === 'NoSuchBucket') return { state: 'deleted' as const };
    if (error instanceof ProviderError && error.code === 'BucketNotEmpty') {
      return {
        state: 'pending' as const,
        message: `bucket "${spec.bucket}" received new objects while being deleted`,
        retryAfterMs: 5_000,
      };
    }
    throw error;
  }
  return { state: 'deleted' as const };
}

/**
 * s3Bucket is the `s3` kind: reconcile creates the bucket if needed and corrects tags,
 * versioning, encryption, public access block and the expiration rule to the declaration (so
 * out-of-band changes are undone on the next reconcile); delete deletes the bucket, emptying it
 * first only with `forceDestroy`. `deletionPolicy: Retain` is applied by the reconciler, which
 * then never calls delete.
 */
export const s3Bucket: KindDefinition<typeof S3BucketSpec, AwsState> = {
  schema: S3BucketSpec,
  description:
    'An S3 bucket with versioning, tags, default encryption, public access block and an expiration rule.',
  outputs: ['bucket', 'region', 'arn', 'endpoint'],
  reconcile: reconcileBucket,
  delete: deleteBucket,
};
