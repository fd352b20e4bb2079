import { afterEach, describe, expect, it } from 'vitest';
import { callerPath } from './caller-path.js';

const saved = process.env['INIT_CWD'];
afterEach(() => {
  if (saved == null) delete process.env['INIT_CWD'];
  else process.env['INIT_CWD'] = saved;
});

describe('callerPath', () => {
  it('resolves a relative path against the directory pnpm was run in, not the package’s', () => {
    process.env['INIT_CWD'] = '/repo';
    expect(callerPath('docs/performance/bench-100.json')).toBe('/repo/docs/performance/bench-100.json');
    expect(callerPath('/tmp/x.json')).toBe('/tmp/x.json');
  });

  it('falls back to the process directory when not run by pnpm', () => {
    delete process.env['INIT_CWD'];
    expect(callerPath('x.json')).toBe(`${process.cwd()}/x.json`);
  });
});
