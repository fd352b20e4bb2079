import { describe, expect, it } from 'vitest';
import { verdictOf } from './fuzz-verdict.js';

describe('verdictOf', () => {
  it('accepts a result and a clear error', () => {
    expect(verdictOf({ code: 0, stdout: 'k.yaml: Katalog x is valid\n', stderr: '' })).toBeUndefined();
    expect(
      verdictOf({
        code: 1,
        stdout: '',
        stderr: 'k.yaml:3:5: spec.crds.a.apiTypes.kind: kind must be PascalCase\n',
      }),
    ).toBeUndefined();
  });

  it('flags thrown errors, odd exit codes, silent failures and JavaScript runtime errors', () => {
    const why = (outcome: Parameters<typeof verdictOf>[0]): string | undefined => {
      const verdict = verdictOf(outcome);
      return verdict == null ? undefined : `${verdict.kind}: ${verdict.why}`;
    };
    expect(why({ code: 1, stdout: '', stderr: '', thrown: new Error('boom') })).toBe(
      'crash: main threw: boom',
    );
    expect(why({ code: 2, stdout: '', stderr: 'usage' })).toBe('crash: exit code 2');
    expect(why({ code: 1, stdout: '', stderr: ' \n' })).toBe('crash: exit 1 without any message');
    expect(
      why({
        code: 1,
        stdout: '',
        stderr: "error: cr.yaml: Cannot read properties of undefined (reading 'x')\n",
      }),
    ).toMatch(/^crash: runtime error: error: cr\.yaml: Cannot read properties/);
    expect(why({ code: 1, stdout: 'x', stderr: 'cr.yaml: Shop a: Ready=False InternalError: y\n' })).toMatch(
      /^crash: .*InternalError/,
    );
  });

  it('calls a message that prints a value as [object Object], or a silent success, unclear', () => {
    expect(verdictOf({ code: 0, stdout: '', stderr: '' })).toEqual({
      kind: 'unclear',
      why: 'exit 0 without any output or message',
    });
    expect(
      verdictOf({ code: 1, stdout: '', stderr: 'error: cr.yaml: no CRD entry serves [object Object]\n' }),
    ).toEqual({
      kind: 'unclear',
      why: 'error: cr.yaml: no CRD entry serves [object Object]',
    });
  });

  it('flags an engine error caught anywhere by its class and stack, whatever was printed', () => {
    let typeError: unknown;
    try {
      JSON.stringify((undefined as unknown as { x: { y: number } }).x.y);
    } catch (error) {
      typeError = error;
    }
    const verdict = verdictOf({
      code: 1,
      stdout: '',
      stderr: 'error: cr.yaml: something went wrong\n',
      caught: [
        { error: new Error('cr.yaml:1:1: bad input'), where: 'render' },
        { error: typeError, where: 'render: reconcile' },
      ],
    });
    expect(verdict?.kind).toBe('crash');
    expect(verdict?.why).toMatch(
      /^TypeError caught \(render: reconcile\) at .*fuzz-verdict\.test\.ts:\d+:\d+\)?: Cannot read/,
    );
    // A plain Error about the input is not a crash.
    expect(
      verdictOf({
        code: 1,
        stdout: '',
        stderr: 'x: bad\n',
        caught: [{ error: new Error('x: bad'), where: 'render' }],
      }),
    ).toBeUndefined();
  });
});
