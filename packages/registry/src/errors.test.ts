import { describe, expect, it } from 'vitest';
import { createKubeApiError, InvalidError, kubeErrorCodeOf, NotFoundError } from './errors.js';

describe('kube errors', () => {
  it('takes the code from the Status reason, then from the HTTP status', () => {
    expect(kubeErrorCodeOf(409, 'AlreadyExists')).toBe('AlreadyExists');
    expect(kubeErrorCodeOf(409, undefined)).toBe('Conflict');
    expect(kubeErrorCodeOf(422, 'Invalid')).toBe('Invalid');
    expect(kubeErrorCodeOf(503, undefined)).toBe('ServerError');
  });

  it('builds the typed subclass and exposes the fields of the causes', () => {
    const err = createKubeApiError({
      code: 'Invalid',
      status: 422,
      verb: 'apply',
      message: 'Service "x" is invalid',
      causes: [{ field: 'spec.ports[0].port', reason: 'FieldValueInvalid' }],
    });
    expect(err).toBeInstanceOf(InvalidError);
    expect(err.fields).toEqual(['spec.ports[0].port']);
    expect(err.retryable).toBe(false);
    expect(createKubeApiError({ code: 'NotFound', status: 404, verb: 'get', message: 'x' })).toBeInstanceOf(
      NotFoundError,
    );
  });
});
