import { Writable } from 'node:stream';
import { ConditionReason, OrkestraError, TerminalError } from '@orkestra/types';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '@orkestra/registry';
import { errorForLog, isPanic, panicCause, serializeError } from './log-error.js';

function capture(options: pino.LoggerOptions): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino(options, stream), lines };
}

describe('errorForLog', () => {
  it('logs type (class name), code and message under pino’s standard err serializer, without the cause chain', () => {
    // The operator's logger uses pino.stdSerializers.err (stack dropped below debug).
    const { logger, lines } = capture({ serializers: { err: pino.stdSerializers.err } });
    const cause = new Error('socket hang up');
    const error = new OrkestraError('shop.operatorBox: apply failed', {
      code: ConditionReason.ApplyFailed,
      katalogPath: 'shop.operatorBox',
      cause,
    });
    logger.info({ err: errorForLog(error) }, 'reconcile failed');
    logger.info(
      { err: errorForLog(new TerminalError('denied', { code: ConditionReason.ValidationFailed })) },
      'x',
    );
    const [first, second] = lines.map((l) => l['err'] as Record<string, unknown>);
    expect(first).toMatchObject({
      type: 'OrkestraError',
      code: 'ApplyFailed',
      message: 'shop.operatorBox: apply failed',
      katalogPath: 'shop.operatorBox',
    });
    expect(second).toMatchObject({ type: 'TerminalError', code: 'ValidationFailed', message: 'denied' });
    // A plain object is what produced `type: "Object"` before.
    logger.info({ err: { type: 'X', message: 'plain' } }, 'y');
    expect((lines[2]?.['err'] as Record<string, unknown>)['type']).toBe('Object');
  });

  it('keeps the stack only when asked (the runtime’s default logger runs at info)', () => {
    const { logger, lines } = capture({ serializers: { err: (e: unknown) => serializeError(e, false) } });
    logger.info(
      { err: errorForLog(new OrkestraError('boom', { code: ConditionReason.TemplateError })) },
      'x',
    );
    const err = lines[0]?.['err'] as Record<string, unknown>;
    expect(err).toMatchObject({ type: 'OrkestraError', code: 'TemplateError', message: 'boom' });
    expect(err).not.toHaveProperty('stack');
    expect(serializeError(new Error('e'), true)).toHaveProperty('stack');
  });

  it('turns a thrown non-Error into an Error', () => {
    expect(errorForLog('text').message).toBe('text');
  });
});

describe('isPanic', () => {
  it('is true for an unexpected exception, also wrapped as InternalError', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    expect(isPanic(bug)).toBe(true);
    const wrapped = new OrkestraError(bug.message, { code: ConditionReason.InternalError, cause: bug });
    expect(isPanic(wrapped)).toBe(true);
    expect(panicCause(wrapped)).toBe(bug);
  });

  it('is false for Orkestra errors with a reason, API errors and aborts', () => {
    expect(isPanic(new OrkestraError('x', { code: ConditionReason.TemplateError }))).toBe(false);
    const conflict = new ConflictError({ status: 409, verb: 'patch', message: 'HTTP 409' });
    expect(isPanic(new OrkestraError('x', { code: ConditionReason.InternalError, cause: conflict }))).toBe(
      false,
    );
    const abort = new DOMException('aborted', 'AbortError');
    expect(isPanic(new OrkestraError('x', { code: ConditionReason.InternalError, cause: abort }))).toBe(
      false,
    );
    expect(isPanic(new OrkestraError('stopped', { code: ConditionReason.InternalError }))).toBe(false);
  });
});
