import { OrkestraError, toOrkestraError } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import type { KubeErrorCode } from './errors.js';
import {
  ConflictError,
  createKubeApiError,
  InvalidError,
  kubeErrorCodeOf,
  NotFoundError,
  RegistryError,
  RegistryErrorCode,
} from './errors.js';

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

describe('errors as OrkestraErrors', () => {
  const failure = (verb: string, status: number, reason?: KubeErrorCode) =>
    createKubeApiError({ verb, status, message: 'x', ...(reason == null ? {} : { reason }) });

  it('reports write failures as ApplyFailed, retried except for 400 and 422 (docs/reference/runtime.md §9.5)', () => {
    for (const [status, reason] of [
      [403, 'Forbidden'],
      [404, 'NotFound'],
      [500, 'ServerError'],
      [429, 'TooManyRequests'],
      [0, 'Timeout'],
    ] as const) {
      const err = failure('apply', status, reason);
      expect(err, `${status}`).toBeInstanceOf(OrkestraError);
      expect([err.code, err.retryable, err.reason], `${status}`).toEqual(['ApplyFailed', true, reason]);
    }
    expect([failure('apply', 422, 'Invalid').code, failure('apply', 422, 'Invalid').retryable]).toEqual([
      'ApplyFailed',
      false,
    ]);
    expect([failure('create', 400).code, failure('create', 400).retryable]).toEqual(['ApplyFailed', false]);
    expect(failure('create', 400).reason).toBe('BadRequest');
  });

  it('reports a conflict of a server-side apply as ApplyConflict, other conflicts as ApplyFailed', () => {
    const conflict = failure('apply', 409, 'Conflict');
    expect(conflict).toBeInstanceOf(ConflictError);
    expect([conflict.code, conflict.retryable]).toEqual(['ApplyConflict', true]);
    expect(failure('patch', 409, 'Conflict').code).toBe('ApplyFailed');
    expect(failure('create', 409, 'AlreadyExists').code).toBe('ApplyFailed');
  });

  it('reports a failed delete as PruneFailed (retried)', () => {
    const err = failure('delete', 403, 'Forbidden');
    expect([err.code, err.retryable, err.name]).toEqual(['PruneFailed', true, 'ForbiddenError']);
  });

  it('keeps the first option name `code` for the API failure class', () => {
    const err = createKubeApiError({ code: 'NotFound', status: 404, verb: 'get', message: 'x' });
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.reason).toBe('NotFound');
    expect(new NotFoundError({ status: 404, verb: 'get', message: 'gone' }).reason).toBe('NotFound');
  });

  it('gives RegistryErrors the retry class of their reason', () => {
    const owned = new RegistryError(RegistryErrorCode.ChildOwnedByOther, 'owned by uid-2');
    expect(owned).toBeInstanceOf(OrkestraError);
    expect([owned.code, owned.retryable, owned.katalogPath]).toEqual(['ChildOwnedByOther', false, undefined]);
    const coercion = new RegistryError(RegistryErrorCode.TemplateError, 'expected an integer', {
      katalogPath: 'onReconcile.deployments[0].replicas',
    });
    expect([coercion.code, coercion.retryable, coercion.katalogPath, coercion.message]).toEqual([
      'TemplateError',
      true,
      'onReconcile.deployments[0].replicas',
      'onReconcile.deployments[0].replicas: expected an integer',
    ]);
    expect(toOrkestraError(owned)).toBe(owned);
  });
});
