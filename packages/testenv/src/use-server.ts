import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { isCi } from './is-ci.js';
import { isTestenvError, TestenvError, TestenvErrorCode } from './testenv-error.js';

/** ServerLease is what a {@link useServer} start function hands back. */
export interface ServerLease<T> {
  readonly value: T;
  readonly release: () => Promise<void>;
}

/**
 * useServer registers the hooks shared by the `use*` helpers: `start` runs in `beforeAll`,
 * `release` in `afterAll`. When `start` reports a missing binary (or returns a skip reason),
 * every test of the file is skipped with that one-line reason locally and fails under CI.
 * The returned getter throws when read before `beforeAll` or after a skip.
 */
export function useServer<T>(
  what: string,
  start: (testPath: string) => Promise<ServerLease<T> | { readonly skip: string }>,
): () => T {
  let lease: ServerLease<T> | undefined;
  let skipReason: string | undefined;
  beforeAll(async () => {
    try {
      const result = await start(expect.getState().testPath ?? 'test');
      if ('skip' in result) skipReason = result.skip;
      else lease = result;
    } catch (error) {
      if (isTestenvError(error, TestenvErrorCode.BinaryNotFound)) skipReason = error.message;
      else throw error;
    }
    if (skipReason != null && isCi()) {
      throw new TestenvError(`${what} is required under CI but unavailable: ${skipReason}`, {
        code: TestenvErrorCode.BinaryNotFound,
      });
    }
  });
  beforeEach((context) => {
    if (skipReason != null) context.skip(`skipped: ${skipReason}`);
  });
  afterAll(async () => {
    const current = lease;
    lease = undefined;
    await current?.release();
  });
  return () => {
    if (skipReason != null)
      throw new TestenvError(`${what} is not available: ${skipReason}`, {
        code: TestenvErrorCode.BinaryNotFound,
      });
    if (lease == null) {
      throw new Error(`${what} is not ready: read it inside a test or hook, after beforeAll`);
    }
    return lease.value;
  };
}
