import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installShutdown } from './shutdown.js';
import type { SignalSource } from './shutdown.js';

function fakeProcess(): SignalSource & {
  emit(signal: NodeJS.Signals): void;
  count(signal: NodeJS.Signals): number;
} {
  const emitter = new EventEmitter();
  return {
    on: (signal, listener) => emitter.on(signal, listener),
    off: (signal, listener) => emitter.off(signal, listener),
    emit: (signal) => emitter.emit(signal, signal),
    count: (signal) => emitter.listenerCount(signal),
  };
}

function exitRecorder(): { exit: (code: number) => void; codes: number[]; exited: Promise<number> } {
  const codes: number[] = [];
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  return {
    codes,
    exited,
    exit: (code) => {
      codes.push(code);
      resolveExit(code);
    },
  };
}

describe('installShutdown', () => {
  it('runs the steps in order once on SIGTERM, then exits 0', async () => {
    const source = fakeProcess();
    const exit = exitRecorder();
    const order: string[] = [];
    installShutdown({
      source,
      exit: exit.exit,
      exitOnSecondSignal: false,
      steps: [
        { name: 'stop workers', run: async () => void order.push('stop workers') },
        { name: 'release lease', run: () => void order.push('release lease') },
        { name: 'close providers', run: async () => void order.push('close providers') },
      ],
    });
    source.emit('SIGTERM');
    source.emit('SIGINT');
    expect(await exit.exited).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['stop workers', 'release lease', 'close providers']);
    expect(exit.codes).toEqual([0]);
  });

  it('moves on when a step fails or passes its timeout, aborting its signal', async () => {
    const source = fakeProcess();
    const exit = exitRecorder();
    let aborted = false;
    const shutdown = installShutdown({
      source,
      exit: exit.exit,
      steps: [
        { name: 'fails', run: () => Promise.reject(new Error('nope')) },
        {
          name: 'hangs',
          timeoutMs: 20,
          run: (signal) =>
            new Promise(() => {
              signal.addEventListener('abort', () => {
                aborted = true;
              });
            }),
        },
        {
          name: 'throws',
          run: () => {
            throw new Error('sync');
          },
        },
        { name: 'last', run: () => undefined },
      ],
    });
    const outcomes = await shutdown.trigger();
    expect(outcomes.map((o) => [o.name, o.outcome])).toEqual([
      ['fails', 'failed'],
      ['hangs', 'timeout'],
      ['throws', 'failed'],
      ['last', 'done'],
    ]);
    expect(aborted).toBe(true);
    expect(exit.codes).toEqual([0]);
  });

  it('exits with the requested code on trigger, and a second trigger returns the same run', async () => {
    const exit = exitRecorder();
    let runs = 0;
    const shutdown = installShutdown({
      source: fakeProcess(),
      exit: exit.exit,
      steps: [{ name: 's', run: () => void runs++ }],
    });
    expect(shutdown.started).toBe(false);
    const first = shutdown.trigger({ reason: 'leader lease lost', exitCode: 1 });
    const second = shutdown.trigger();
    expect(second).toBe(first);
    await first;
    expect(shutdown.started).toBe(true);
    expect(runs).toBe(1);
    expect(exit.codes).toEqual([1]);
  });

  it('exits 1 at once on a second signal while a step is still running', async () => {
    const source = fakeProcess();
    const exit = exitRecorder();
    installShutdown({
      source,
      exit: exit.exit,
      steps: [{ name: 'slow', run: () => new Promise(() => undefined), timeoutMs: 60_000 }],
    });
    source.emit('SIGINT');
    source.emit('SIGINT');
    expect(await exit.exited).toBe(1);
  });

  it('listens only to the given signals and uninstalls its listeners', () => {
    const source = fakeProcess();
    const shutdown = installShutdown({ source, signals: ['SIGTERM'], exit: () => undefined, steps: [] });
    expect(source.count('SIGTERM')).toBe(1);
    expect(source.count('SIGINT')).toBe(0);
    shutdown.uninstall();
    expect(source.count('SIGTERM')).toBe(0);
  });
});
