import { describe, expect, it } from 'vitest';
import { KubeApiError, parseRetryAfter } from './list-watch-client.js';

describe('parseRetryAfter', () => {
  it('reads whole seconds and ignores anything else', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
  });
});

describe('KubeApiError', () => {
  it('carries the status code, reason and retry delay', () => {
    const error = new KubeApiError('HTTP 429: slow down', {
      statusCode: 429,
      reason: 'TooManyRequests',
      retryAfterMs: 2000,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'KubeApiError',
      statusCode: 429,
      reason: 'TooManyRequests',
      retryAfterMs: 2000,
    });
  });
});
