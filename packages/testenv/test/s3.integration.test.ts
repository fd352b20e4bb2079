import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { useS3 } from '@orkestra/testenv/vitest';
import { afterEach, describe, expect, it } from 'vitest';

const s3 = useS3();

function client(): S3Client {
  const server = s3();
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    credentials: server.credentials,
    forcePathStyle: server.forcePathStyle,
  });
}

describe('moto S3', () => {
  afterEach(async () => {
    await s3().reset();
  });

  it('puts, gets and lists objects', async () => {
    const c = client();
    await c.send(new CreateBucketCommand({ Bucket: 'orkestra-test' }));
    await c.send(new PutObjectCommand({ Bucket: 'orkestra-test', Key: 'a/one.txt', Body: 'hello' }));
    await c.send(new PutObjectCommand({ Bucket: 'orkestra-test', Key: 'a/two.txt', Body: 'world' }));

    const got = await c.send(new GetObjectCommand({ Bucket: 'orkestra-test', Key: 'a/one.txt' }));
    expect(await got.Body?.transformToString()).toBe('hello');

    const listed = await c.send(new ListObjectsV2Command({ Bucket: 'orkestra-test', Prefix: 'a/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['a/one.txt', 'a/two.txt']);
  });

  it('starts empty after reset', async () => {
    const buckets = await client().send(new ListBucketsCommand({}));
    expect(buckets.Buckets ?? []).toEqual([]);
  });
});
