import { describe, expect, it } from 'vitest';
import type { OperatorLogger } from '../logger.js';
import type { OperatorRuntime } from '../operator-runtime.js';
import { createStartGate } from './start-gate.js';
import type { OperatorState } from './state.js';

const silent = { info: () => undefined, error: () => undefined } as unknown as OperatorLogger;

/** A runtime whose start resolves or rejects when the test says. */
function runtime() {
  let settle: { resolve: () => void; reject: (error: Error) => void } = {
    resolve: () => undefined,
    reject: () => undefined,
  };
  const target = {
    start: () =>
      new Promise<void>((resolve, reject) => {
        settle = { resolve, reject };
      }),
  } as unknown as OperatorRuntime;
  return { target, settle: () => settle };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createStartGate synced', () => {
  it('resolves once the current runtime has started, not when a reload replaced the one starting', async () => {
    const first = runtime();
    const state = { runtime: first.target, stopping: false, leading: false } as unknown as OperatorState;
    const gate = createStartGate({ state, logger: silent, retryMs: 1 });
    let synced = false;
    void gate.synced.then(() => (synced = true));
    const firstDone = gate.start(first.target);
    const second = runtime();
    state.runtime = second.target;
    void gate.start(second.target);
    first.settle().resolve();
    await firstDone;
    await tick();
    expect(synced).toBe(false);
    second.settle().resolve();
    await tick();
    expect(synced).toBe(true);
  });

  it('stays unresolved while starts fail or the process stops', async () => {
    const first = runtime();
    const state = { runtime: first.target, stopping: false, leading: false } as unknown as OperatorState;
    const gate = createStartGate({ state, logger: silent, retryMs: 60_000 });
    let synced = false;
    void gate.synced.then(() => (synced = true));
    void gate.start(first.target);
    first.settle().reject(new Error('CRD not served'));
    await tick();
    gate.cancel();
    (state as { stopping: boolean }).stopping = true;
    const other = runtime();
    const done = gate.start(other.target);
    other.settle().resolve();
    await done;
    await tick();
    expect(synced).toBe(false);
  });
});
