import { describe, expect, it } from 'vitest';
import { ALL_SYSTEMS, parseBenchArgs } from './bench-args.js';

describe('parseBenchArgs', () => {
  it('defaults to 3 rounds of 100 CRs with every system', () => {
    expect(parseBenchArgs([])).toEqual({
      sizes: [100],
      replicas: [1],
      rounds: 3,
      concurrency: 8,
      idleSeconds: 60,
      edits: 100,
      systems: ALL_SYSTEMS,
      out: undefined,
      docs: false,
      docsFrom: [],
      cpuProfileDir: undefined,
      operatorArgs: [],
      help: false,
    });
  });

  it('passes ork run flags through to the runtime, in order, and refuses a value that is not a flag', () => {
    expect(
      parseBenchArgs(['--operator-arg', '--resync-skip-recent=false', '--operator-arg=--log-level=debug'])
        .operatorArgs,
    ).toEqual(['--resync-skip-recent=false', '--log-level=debug']);
    expect(() => parseBenchArgs(['--operator-arg', 'false'])).toThrow(/needs an ork run flag/);
  });

  it('reads both option forms, size lists and skips the pnpm separator', () => {
    const args = parseBenchArgs([
      '--',
      '--size',
      '100,1000',
      '--edits=10',
      '--rounds',
      '5',
      '--out',
      'x.json',
      '--replicas',
      '1,2,4',
    ]);
    expect(args).toMatchObject({
      sizes: [100, 1000],
      edits: 10,
      rounds: 5,
      out: 'x.json',
      replicas: [1, 2, 4],
    });
    expect(() => parseBenchArgs(['--replicas', '0'])).toThrow(/positive integer/);
  });

  it('drops both kro runs with --no-peer and keeps the given systems in round-0 order', () => {
    expect(parseBenchArgs(['--no-peer']).systems).toEqual(['floor', 'full-floor', 'orkestra']);
    expect(parseBenchArgs(['--systems', 'orkestra,floor']).systems).toEqual(['floor', 'orkestra']);
  });

  it('rejects unknown options, systems and bad numbers', () => {
    expect(() => parseBenchArgs(['--sise', '10'])).toThrow(/unknown option --sise/);
    expect(() => parseBenchArgs(['--systems', 'flor'])).toThrow(/unknown flor/);
    expect(() => parseBenchArgs(['--size', '0'])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(['--size', '100,1.5'])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(['--rounds', '0'])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(['--size'])).toThrow(/needs a value/);
    expect(() => parseBenchArgs(['--idle-seconds', '45'])).toThrow(/multiple of 30/);
  });
});
