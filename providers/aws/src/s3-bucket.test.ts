import { createFakeKubeReader, createSilentLogger, createTestRequest } from '@orkestra/provider-kit';
import type { KindRequest } from '@orkestra/provider-kit';
import { describe, expect, it } from 'vitest';
import { AwsConfig } from './aws-config.js';
import { bucketOutputs, resolveCredentials } from './s3-bucket.js';
import type { AwsState } from './s3-bucket.js';
import { S3BucketSpec } from './s3-bucket-spec.js';
import { createS3ClientPool } from './s3-client-pool.js';

const config = AwsConfig.parse({ region: 'eu-west-1' });
const state: AwsState = { config, pool: createS3ClientPool({ config }) };

function bucketRequest(
  spec: unknown,
  options: { kube?: ReturnType<typeof createFakeKubeReader>; state?: AwsState } = {},
): KindRequest<S3BucketSpec, AwsState> {
  const parsed = S3BucketSpec.parse(spec);
  const base = createTestRequest({
    kind: 's3',
    spec: parsed,
    namespace: 'shop',
    logger: createSilentLogger(),
    ...(options.kube == null ? {} : { kube: options.kube.reader }),
  });
  return {
    ...base,
    declaration: { ...base.declaration, spec: parsed },
    spec: parsed,
    state: options.state ?? state,
  };
}

describe('bucketOutputs', () => {
  it('builds the ARN and the regional endpoint for AWS partitions', () => {
    expect(bucketOutputs('b', 'eu-west-1', config)).toEqual({
      bucket: 'b',
      region: 'eu-west-1',
      arn: 'arn:aws:s3:::b',
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
    });
    expect(bucketOutputs('b', 'cn-north-1', config)).toMatchObject({
      arn: 'arn:aws-cn:s3:::b',
      endpoint: 'https://s3.cn-north-1.amazonaws.com.cn',
    });
    expect(bucketOutputs('b', 'us-gov-west-1', config)['arn']).toBe('arn:aws-us-gov:s3:::b');
  });

  it('reports the configured endpoint for S3-compatible servers', () => {
    expect(
      bucketOutputs(
        'b',
        'us-east-1',
        AwsConfig.parse({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9000' }),
      )['endpoint'],
    ).toBe('http://127.0.0.1:9000');
  });
});

describe('resolveCredentials', () => {
  it('uses the default chain when neither a Secret nor static keys are given', async () => {
    expect(await resolveCredentials(bucketRequest({ bucket: 'bucket' }))).toBeUndefined();
  });

  it('uses the config keys when no Secret is declared', async () => {
    const withKeys = AwsConfig.parse({ region: 'eu-west-1', accessKeyId: 'AKID', secretAccessKey: 'secret' });
    expect(
      await resolveCredentials(
        bucketRequest({ bucket: 'bucket' }, { state: { config: withKeys, pool: state.pool } }),
      ),
    ).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'secret' });
  });

  it('reads the Secret in the owner namespace, with custom keys and a session token', async () => {
    const kube = createFakeKubeReader({
      secrets: { 'shop/aws': { id: 'AKID\n', key: 'secret', token: 'tok' } },
    });
    const spec = {
      bucket: 'bucket',
      credentialsSecret: {
        name: 'aws',
        accessKeyIdKey: 'id',
        secretAccessKeyKey: 'key',
        sessionTokenKey: 'token',
      },
    };
    expect(await resolveCredentials(bucketRequest(spec, { kube }))).toEqual({
      accessKeyId: 'AKID',
      secretAccessKey: 'secret',
      sessionToken: 'tok',
    });
    expect(kube.reads).toEqual([{ kind: 'Secret', namespace: 'shop', name: 'aws', found: true }]);
  });

  it('reports a missing Secret and a missing key without revealing any value', async () => {
    const kube = createFakeKubeReader({ secrets: { 'shop/partial': { accessKeyId: 'AKID-VISIBLE?' } } });
    await expect(
      resolveCredentials(bucketRequest({ bucket: 'bucket', credentialsSecret: { name: 'none' } }, { kube })),
    ).rejects.toMatchObject({
      code: 'CredentialsSecretNotFound',
      retryable: true,
    });
    const error = (await resolveCredentials(
      bucketRequest({ bucket: 'bucket', credentialsSecret: { name: 'partial' } }, { kube }),
    ).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('credentials Secret shop/partial has no (or an empty) key secretAccessKey');
  });
});
