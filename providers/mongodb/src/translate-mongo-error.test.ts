import { ProviderError } from '@orkestra/types';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { translateMongoError } from './translate-mongo-error.js';

const serverError = (code: number, codeName: string, errmsg: string) =>
  new MongoServerError({ ok: 0, code, codeName, errmsg });

describe('translateMongoError', () => {
  it.each([
    [18, 'AuthenticationFailed', false],
    [238, 'NotImplemented', false],
    [85, 'IndexOptionsConflict', false],
    [51003, 'UserAlreadyExists', false],
    [189, 'PrimarySteppedDown', true],
    [50, 'MaxTimeMSExpired', true],
  ])('server code %s (%s) → retryable %s', (code, codeName, retryable) => {
    const error = translateMongoError(serverError(code, codeName, 'x'), {
      operation: 'createUser',
      target: 'app@shop',
    });
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.code, error.retryable]).toEqual([codeName, retryable]);
  });

  it('writes what failed on what, with a hint for unsupported commands', () => {
    const error = translateMongoError(serverError(238, 'NotImplemented', 'collMod is not implemented yet'), {
      operation: 'collMod',
      target: 'shop.orders',
    });
    expect(error.message).toBe(
      'MongoDB collMod on shop.orders failed: NotImplemented (238): collMod is not implemented yet (the server does not support this)',
    );
    expect(error.cause).toBeInstanceOf(MongoServerError);
  });

  it('treats network and server selection failures as retryable', () => {
    expect(
      translateMongoError(new MongoNetworkError('connection reset'), { operation: 'find' }),
    ).toMatchObject({ code: 'MongoNetworkError', retryable: true });
    const selection = new MongoServerSelectionError('Server selection timed out after 5000 ms', {
      type: 'Unknown',
      servers: new Map(),
      stale: false,
      compatible: true,
      heartbeatFrequencyMS: 0,
      localThresholdMS: 0,
      setName: null,
      maxElectionId: null,
      maxSetVersion: null,
      commonWireVersion: 0,
      logicalSessionTimeoutMinutes: null,
    } as never);
    expect(translateMongoError(selection, { operation: 'find' })).toMatchObject({
      code: 'MongoServerSelectionError',
      retryable: true,
    });
  });

  it('treats a bad connection string as terminal', () => {
    const parse = Object.assign(new Error('Invalid scheme'), { name: 'MongoParseError' });
    expect(translateMongoError(parse, { operation: 'connect' })).toMatchObject({
      code: 'MongoParseError',
      retryable: false,
    });
  });
});
