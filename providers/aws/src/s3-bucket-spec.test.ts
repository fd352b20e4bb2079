import { formatPath } from '@orkestra/provider-kit';
import { describe, expect, it } from 'vitest';
import { AwsConfig } from './aws-config.js';
import { S3BucketSpec } from './s3-bucket-spec.js';

const failingFields = (input: unknown): string[] => {
  const result = S3BucketSpec.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => formatPath(i.path));
};

describe('S3BucketSpec', () => {
  it('applies the documented defaults', () => {
    expect(S3BucketSpec.parse({ bucket: 'shop-assets' })).toEqual({
      bucket: 'shop-assets',
      versioning: false,
      encryption: 'AES256',
      blockPublicAccess: true,
      tags: {},
      forceDestroy: false,
    });
  });

  it.each([
    ['ab', 'too short'],
    ['a'.repeat(64), 'too long'],
    ['Shop-Assets', 'uppercase'],
    ['shop_assets', 'underscore'],
    ['-shop', 'leading hyphen'],
    ['shop..assets', 'double dot'],
    ['192.168.1.10', 'IP address'],
    ['xn--shop', 'reserved prefix'],
    ['shop-s3alias', 'reserved suffix'],
  ])('rejects the bucket name %s (%s)', (bucket) => {
    expect(failingFields({ bucket })).toEqual(['bucket']);
  });

  it('accepts names with dots and digits', () => {
    expect(failingFields({ bucket: 'shop.assets-2024' })).toEqual([]);
  });

  it('names the failing nested field', () => {
    expect(failingFields({ bucket: 'ok-name', lifecycle: { expirationDays: 0 } })).toEqual([
      'lifecycle.expirationDays',
    ]);
    expect(failingFields({ bucket: 'ok-name', tags: { 'orkestra.konductor.io/owner-uid': 'x' } })).toEqual([
      'tags.orkestra.konductor.io/owner-uid',
    ]);
    expect(failingFields({ bucket: 'ok-name', kmsKeyId: 'key' })).toEqual(['kmsKeyId']);
    expect(failingFields({ bucket: 'ok-name', versionning: true })).toEqual(['']);
  });

  it('rejects deletionPolicy: it is a declaration key the reconciler consumes, not part of the spec', () => {
    expect(S3BucketSpec.safeParse({ bucket: 'ok-name', deletionPolicy: 'Retain' }).success).toBe(false);
  });
});

describe('AwsConfig', () => {
  it('requires a region and applies defaults', () => {
    expect(AwsConfig.parse({ region: 'eu-west-1' })).toEqual({
      region: 'eu-west-1',
      forcePathStyle: false,
      callTimeoutMs: 30_000,
      maxAttempts: 3,
    });
    expect(AwsConfig.safeParse({}).success).toBe(false);
  });

  it('accepts string flags and numbers, as environment substitution produces them', () => {
    expect(
      AwsConfig.parse({ region: 'us-east-1', forcePathStyle: 'true', callTimeoutMs: '5000' }),
    ).toMatchObject({ forcePathStyle: true, callTimeoutMs: 5000 });
  });

  it('wants both static keys or neither', () => {
    const result = AwsConfig.safeParse({ region: 'us-east-1', accessKeyId: 'AKID' });
    expect(result.success ? [] : result.error.issues.map((i) => i.path.join('.'))).toEqual([
      'secretAccessKey',
    ]);
  });
});
