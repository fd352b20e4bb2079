import { describe, expect, it } from 'vitest';
import { RedisQueryError, splitCommand } from './index.js';

/** Upstream's command strings (docs/reference/katalog.md §15.1.1): words, quotes, and reads only. */
describe('splitCommand', () => {
  it('splits words, groups quoted ones and upper-cases the command', () => {
    expect(splitCommand('llen jobs')).toEqual(['LLEN', 'jobs']);
    expect(splitCommand(`HGET h "a field" `)).toEqual(['HGET', 'h', 'a field']);
    expect(splitCommand(`HGET h 'x "y"'`)).toEqual(['HGET', 'h', 'x "y"']);
    expect(splitCommand('GET "a\r\nDEL b"')).toEqual(['GET', 'a\r\nDEL b']);
  });

  it('refuses any command that is not a bounded read, and an unclosed quote, as not retryable', () => {
    for (const text of [
      'FLUSHALL',
      'DEL jobs',
      'EVAL "return 1" 0',
      'LRANGE jobs 0 -1',
      'CONFIG GET *',
      '',
      'GET "open',
    ]) {
      let caught: unknown;
      try {
        splitCommand(text);
      } catch (error) {
        caught = error;
      }
      expect(caught, text).toBeInstanceOf(RedisQueryError);
      expect((caught as RedisQueryError).retryable).toBe(false);
    }
  });
});
