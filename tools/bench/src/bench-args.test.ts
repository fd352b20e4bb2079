import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './bench-args.js';

describe('parseBenchArgs', () => {
  it('defaults to 100 CRs with the peer', () => {
    expect(parseBenchArgs([])).toEqual({
      size: 100,
      concurrency: 8,
      idleSeconds: 60,
      edits: 100,
      peer: true,
      out: undefined,
      help: false,
    });
  });

  it('reads both option forms and skips the pnpm separator', () => {
    const args = parseBenchArgs(['--', '--size', '1000', '--edits=10', '--no-peer', '--out', 'x.json']);
    expect(args).toMatchObject({ size: 1000, edits: 10, peer: false, out: 'x.json' });
  });

  it('rejects unknown options and bad numbers', () => {
    expect(() => parseBenchArgs(['--sise', '10'])).toThrow(/unknown option --sise/);
    expect(() => parseBenchArgs(['--size', '0'])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(['--size', '1.5'])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(['--size'])).toThrow(/needs a value/);
    expect(() => parseBenchArgs(['--idle-seconds', '45'])).toThrow(/multiple of 30/);
  });
});
