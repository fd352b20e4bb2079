import {
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  createFakeKubeReader,
  createSilentLogger,
  createTestRequest,
  ProviderSchemaError,
} from '@orkestra/provider-kit';
import { describeProviderConformance } from '@orkestra/provider-kit/conformance';
import { useS3 } from '@orkestra/testenv/vitest';
import { ProviderError } from '@orkestra/types';
import type { Provider } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as aws from '../src/index.js';

const s3 = useS3();
let sdk: S3Client;
let provider: Provider;
let counter = 0;
const uniqueBucket = (label: string): string => `ork-${label}-${process.pid}-${(counter += 1)}`;

const config = () => ({
  region: s3().region,
  endpoint: s3().endpoint,
  forcePathStyle: true,
  accessKeyId: s3().credentials.accessKeyId,
  secretAccessKey: s3().credentials.secretAccessKey,
  callTimeoutMs: 15_000,
});

beforeAll(async () => {
  sdk = new S3Client({
    endpoint: s3().endpoint,
    region: s3().region,
    forcePathStyle: true,
    credentials: s3().credentials,
  });
  provider = await aws.createProvider({
    name: 'aws',
    config: config(),
    logger: createSilentLogger(),
    signal: new AbortController().signal,
  });
});
afterAll(async () => {
  await provider?.close?.();
  sdk?.destroy();
});

/** What the bucket looks like through a separate SDK client, for comparisons. */
async function observe(bucket: string) {
  const tags = await sdk.send(new GetBucketTaggingCommand({ Bucket: bucket })).then(
    (out) => Object.fromEntries((out.TagSet ?? []).map((t) => [t.Key, t.Value])),
    () => ({}),
  );
  const versioning =
    (await sdk.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status ?? 'Unversioned';
  const encryption = await sdk.send(new GetBucketEncryptionCommand({ Bucket: bucket })).then(
    (out) =>
      out.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm ??
      'none',
    () => 'none',
  );
  const publicAccessBlock = await sdk.send(new GetPublicAccessBlockCommand({ Bucket: bucket })).then(
    (out) => out.PublicAccessBlockConfiguration ?? null,
    () => null,
  );
  const lifecycle = await sdk.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket })).then(
    (out) =>
      (out.Rules ?? []).map((r) => ({
        id: r.ID,
        days: r.Expiration?.Days,
        prefix: r.Filter?.Prefix ?? r.Prefix ?? '',
      })),
    () => [],
  );
  return { tags, versioning, encryption, publicAccessBlock, lifecycle };
}

async function exists(bucket: string): Promise<boolean> {
  return await sdk.send(new HeadBucketCommand({ Bucket: bucket })).then(
    () => true,
    (error: { name?: string }) => {
      if (error.name === 'NotFound') return false;
      throw error;
    },
  );
}

const request = (
  spec: Record<string, unknown>,
  extra: Parameters<typeof createTestRequest>[0] extends infer O ? Partial<O> : never = {},
) =>
  createTestRequest({
    kind: 's3',
    spec,
    namespace: 'shop',
    ownerName: 'web',
    ownerUid: 'uid-web',
    crd: 'website',
    ...extra,
  });

describe('s3 kind against moto', () => {
  it('creates a bucket with tags, versioning, encryption, public access block and expiration, and returns its outputs', async () => {
    const bucket = uniqueBucket('create');
    const spec = {
      bucket,
      versioning: true,
      tags: { team: 'web' },
      lifecycle: { expirationDays: 30, prefix: 'tmp/' },
    };
    const result = await provider.reconcile(request(spec));
    expect(result).toEqual({
      state: 'ready',
      outputs: { bucket, region: 'us-east-1', arn: `arn:aws:s3:::${bucket}`, endpoint: s3().endpoint },
    });
    expect(await observe(bucket)).toEqual({
      tags: {
        team: 'web',
        'orkestra.konductor.io/owner-uid': 'uid-web',
        'orkestra.konductor.io/crd': 'website',
      },
      versioning: 'Enabled',
      encryption: 'AES256',
      publicAccessBlock: {
        BlockPublicAcls: true,
        IgnorePublicAcls: true,
        BlockPublicPolicy: true,
        RestrictPublicBuckets: true,
      },
      lifecycle: [{ id: 'orkestra-expiration', days: 30, prefix: 'tmp/' }],
    });
  });

  it('a second reconcile with the same spec changes nothing and returns equal outputs', async () => {
    const bucket = uniqueBucket('idem');
    const spec = { bucket, versioning: true, encryption: 'aws:kms', tags: { a: '1' } };
    const first = await provider.reconcile(request(spec));
    const before = await observe(bucket);
    const second = await provider.reconcile(
      request(spec, { previous: { spec, outputs: first.outputs ?? {} } }),
    );
    expect(second).toEqual(first);
    expect(await observe(bucket)).toEqual(before);
    expect(before.encryption).toBe('aws:kms');
  });

  it('corrects out-of-band changes to tags and versioning on the next reconcile', async () => {
    const bucket = uniqueBucket('drift');
    const spec = { bucket, versioning: true, tags: { team: 'web' } };
    await provider.reconcile(request(spec));
    const declared = await observe(bucket);
    await sdk.send(
      new PutBucketTaggingCommand({
        Bucket: bucket,
        Tagging: {
          TagSet: [
            { Key: 'team', Value: 'intruder' },
            { Key: 'extra', Value: 'x' },
          ],
        },
      }),
    );
    await sdk.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Suspended' } }),
    );
    const drifted = await observe(bucket);
    expect([drifted.tags, drifted.versioning]).toEqual([{ team: 'intruder', extra: 'x' }, 'Suspended']);
    await provider.reconcile(request(spec));
    expect(await observe(bucket)).toEqual(declared);
  });

  it('applies spec changes: versioning off suspends, encryption none removes KMS, no lifecycle drops the rule, public access unblocked', async () => {
    const bucket = uniqueBucket('change');
    await provider.reconcile(
      request({ bucket, versioning: true, encryption: 'aws:kms', lifecycle: { expirationDays: 7 } }),
    );
    await provider.reconcile(
      request({ bucket, versioning: false, encryption: 'none', blockPublicAccess: false }),
    );
    const state = await observe(bucket);
    expect(state).toMatchObject({
      versioning: 'Suspended',
      encryption: 'none',
      lifecycle: [],
      publicAccessBlock: null,
    });
  });

  it('delete removes the bucket; deletionPolicy Retain is the reconciler skipping this call, not a provider setting', async () => {
    const bucket = uniqueBucket('delete');
    await provider.reconcile(request({ bucket }));
    expect(await exists(bucket)).toBe(true);
    expect(await provider.delete(request({ bucket }))).toEqual({ state: 'deleted' });
    expect(await exists(bucket)).toBe(false);
    // The s3 schema has no deletionPolicy: it is a reserved declaration key the reconciler consumes.
    await expect(provider.reconcile(request({ bucket, deletionPolicy: 'Retain' }))).rejects.toBeInstanceOf(
      ProviderSchemaError,
    );
  });

  it('a non-empty bucket stays (pending, with a message) without forceDestroy, and is emptied and deleted with it', async () => {
    const bucket = uniqueBucket('full');
    await provider.reconcile(request({ bucket, versioning: true }));
    await sdk.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.txt', Body: 'one' }));
    await sdk.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.txt', Body: 'two' }));
    await sdk.send(new PutObjectCommand({ Bucket: bucket, Key: 'dir/b.txt', Body: 'three' }));
    const pending = await provider.delete(request({ bucket, versioning: true }));
    expect(pending).toMatchObject({
      state: 'pending',
      message: expect.stringMatching(/not empty.*forceDestroy/) as unknown,
    });
    expect(await exists(bucket)).toBe(true);
    expect(await provider.delete(request({ bucket, versioning: true, forceDestroy: true }))).toEqual({
      state: 'deleted',
    });
    expect(await exists(bucket)).toBe(false);
  });

  it('refuses a bucket tagged with another owner, and leaves it in place on delete', async () => {
    const bucket = uniqueBucket('foreign');
    await provider.reconcile(request({ bucket }, { ownerUid: 'uid-other' }));
    const error = await provider.reconcile(request({ bucket })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BucketOwnedByOther', retryable: false });
    expect(await provider.delete(request({ bucket }))).toMatchObject({
      state: 'deleted',
      message: expect.stringContaining('left in place') as unknown,
    });
    expect(await exists(bucket)).toBe(true);
  });

  it('an invalid bucket name is a non-retryable schema error naming the field, before any call', async () => {
    const error = await provider.reconcile(request({ bucket: 'Invalid_Bucket' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderSchemaError);
    expect((error as ProviderSchemaError).retryable).toBe(false);
    expect((error as ProviderSchemaError).message).toMatch(/bucket: a bucket name uses lowercase letters/);
  });

  it('reads credentials from a Secret in the owner namespace through the KubeReader', async () => {
    const kube = createFakeKubeReader({
      secrets: { 'shop/aws-creds': { accessKeyId: 'AKIDSECRET', secretAccessKey: 'from-secret' } },
    });
    const bucket = uniqueBucket('secret');
    const result = await provider.reconcile(
      request({ bucket, credentialsSecret: { name: 'aws-creds' } }, { kube: kube.reader }),
    );
    expect(result.state).toBe('ready');
    expect(kube.reads).toEqual([{ kind: 'Secret', namespace: 'shop', name: 'aws-creds', found: true }]);
    expect(kube.violations).toEqual([]);
  });

  it('a missing credentials Secret or key is a clear, retryable error', async () => {
    const kube = createFakeKubeReader({ secrets: { 'shop/partial': { accessKeyId: 'AKID' } } });
    const missing = await provider
      .reconcile(
        request(
          { bucket: uniqueBucket('nosecret'), credentialsSecret: { name: 'absent' } },
          { kube: kube.reader },
        ),
      )
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({
      code: 'CredentialsSecretNotFound',
      retryable: true,
      message: 'credentials Secret shop/absent does not exist',
    });
    const partial = await provider
      .reconcile(
        request(
          { bucket: uniqueBucket('nosecret'), credentialsSecret: { name: 'partial' } },
          { kube: kube.reader },
        ),
      )
      .catch((e: unknown) => e);
    expect(partial).toMatchObject({
      code: 'CredentialsSecretKeyMissing',
      retryable: true,
      message: expect.stringContaining('secretAccessKey') as unknown,
    });
  });

  it('an unreachable endpoint is a retryable ProviderError, never an SDK error', async () => {
    const offline = await aws.createProvider({
      name: 'aws',
      config: { ...config(), endpoint: 'http://127.0.0.1:1', maxAttempts: 1 },
      logger: createSilentLogger(),
      signal: new AbortController().signal,
    });
    try {
      const error = await offline
        .reconcile(request({ bucket: uniqueBucket('offline') }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        code: 'ECONNREFUSED',
        retryable: true,
        message: expect.stringContaining('S3 HeadBucket') as unknown,
      });
    } finally {
      await offline.close?.();
    }
  });
});

describeProviderConformance({
  module: aws,
  config,
  name: 'aws',
  cases: [
    {
      title: 's3 (defaults)',
      kind: 's3',
      spec: (id) => ({ bucket: `conf-${id}` }),
      invalid: { spec: { bucket: 'x' }, field: 'bucket' },
      snapshot: async (spec) =>
        (await exists((spec as { bucket: string }).bucket))
          ? await observe((spec as { bucket: string }).bucket)
          : null,
    },
    {
      title: 's3 (everything set)',
      kind: 's3',
      spec: (id) => ({
        bucket: `conf-all-${id}`,
        versioning: true,
        encryption: 'aws:kms',
        tags: { team: 'web' },
        lifecycle: { expirationDays: 3 },
        forceDestroy: true,
      }),
      invalid: {
        spec: { bucket: 'valid-name', lifecycle: { expirationDays: 0 } },
        field: 'lifecycle.expirationDays',
      },
      snapshot: async (spec) =>
        (await exists((spec as { bucket: string }).bucket))
          ? await observe((spec as { bucket: string }).bucket)
          : null,
    },
  ],
});
