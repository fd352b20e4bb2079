import { ProviderError } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { awsErrorCode, translateAwsError } from './translate-aws-error.js';

/** The shape @aws-sdk/client-s3 v3 gives service errors. */
function sdkError(
  name: string,
  status: number | undefined,
  message = name,
  fault: 'client' | 'server' = 'client',
) {
  return Object.assign(new Error(message), {
    name,
    $fault: fault,
    $metadata: status == null ? {} : { httpStatusCode: status },
  });
}

describe('translateAwsError', () => {
  it.each([
    ['InvalidAccessKeyId', 403, false],
    ['SignatureDoesNotMatch', 403, false],
    ['AccessDenied', 403, false],
    ['InvalidBucketName', 400, false],
    ['BucketAlreadyExists', 409, false],
    ['SlowDown', 503, true],
    ['InternalError', 500, true],
    ['NoSuchBucket', 404, false],
    ['SomethingNew', 502, true],
  ])('%s (HTTP %s) → retryable %s', (name, status, retryable) => {
    const error = translateAwsError(sdkError(name, status), { operation: 'CreateBucket', bucket: 'b' });
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.code, error.retryable]).toEqual([name, retryable]);
  });

  it('says which call failed on which bucket, and points at the credentials for credential errors', () => {
    const error = translateAwsError(
      sdkError(
        'InvalidAccessKeyId',
        403,
        'The AWS Access Key Id you provided does not exist in our records.',
      ),
      {
        operation: 'HeadBucket',
        bucket: 'shop',
      },
    );
    expect(error.message).toBe(
      'S3 HeadBucket on bucket "shop" failed: InvalidAccessKeyId (HTTP 403): The AWS Access Key Id you provided does not exist in our records. (check the credentials and their permissions: credentialsSecret, the config accessKeyId/secretAccessKey, or the default chain)',
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('names bodiless (HEAD) errors after their status', () => {
    const forbidden = translateAwsError(sdkError('Unknown', 403, 'UnknownError'), {
      operation: 'HeadBucket',
      bucket: 'b',
    });
    expect([forbidden.code, forbidden.retryable, forbidden.message]).toEqual([
      'Forbidden',
      false,
      expect.stringMatching(
        /^S3 HeadBucket on bucket "b" failed: Forbidden \(HTTP 403\) \(check the credentials/,
      ) as unknown,
    ]);
    expect(awsErrorCode(sdkError('Unknown', 404))).toBe('NotFound');
  });

  it('treats network failures as retryable, by their errno code', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(translateAwsError(refused, { operation: 'HeadBucket' })).toMatchObject({
      code: 'ECONNREFUSED',
      retryable: true,
    });
  });

  it('treats a missing default credential chain as terminal', () => {
    const missing = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });
    expect(translateAwsError(missing, { operation: 'HeadBucket' })).toMatchObject({
      code: 'CredentialsProviderError',
      retryable: false,
    });
  });

  it('returns ProviderErrors unchanged', () => {
    const own = new ProviderError('x', { code: 'X', retryable: false });
    expect(translateAwsError(own, { operation: 'HeadBucket' })).toBe(own);
  });
});
