import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Logger } from '@orkestra/types';
import { createRedactingLogger, runtimeLogger, withBindings } from './log-redact.js';

/** lines collects the JSON lines a logger writes. */
function sink(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('the library default logger (no logger passed to createKatalogRuntime)', () => {
  it('redacts as the operator does: credential keys at any depth, Secret data, URLs, child bindings and messages', () => {
    const out = sink();
    const logger = runtimeLogger(undefined, { destination: out.stream });
    logger.child({ endpoint: 'https://bot:ghp_SECRET@git.example.com/x' }).info(
      {
        call: { headers: { Authorization: 'Bearer abc' }, auth: { token: 't0k3n' } },
        secret: { data: { password: 'cGFzcw==' } },
        provider: { config: { region: 'eu-west-1', secretAccessKey: 'AKIA' } },
      },
      'fetched https://user:p@ss@host.example.com/',
    );
    const text = JSON.stringify(out.lines());
    for (const secret of ['ghp_SECRET', 'Bearer abc', 't0k3n', 'cGFzcw==', 'AKIA', 'p@ss', 'eu-west-1'])
      expect(text).not.toContain(secret);
    expect(out.lines()[0]).toMatchObject({
      level: 'info',
      endpoint: 'https://[REDACTED]@git.example.com/x',
      call: { headers: { Authorization: '[REDACTED]' }, auth: { token: '[REDACTED]' } },
      secret: { data: '[REDACTED]' },
      provider: { config: { region: '[REDACTED]', secretAccessKey: '[REDACTED]' } },
      msg: 'fetched https://[REDACTED]@host.example.com/',
    });
  });

  it('uses the logger a caller passes', () => {
    const given = runtimeLogger(undefined, {});
    expect(runtimeLogger(given)).toBe(given);
  });
});

describe('withBindings (the runtime binding `katalog` on the logger it is given)', () => {
  /** text is what a logger wrote, as written (JSON.parse would hide a repeated key). */
  function rawSink(): { stream: Writable; text: () => string } {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    return { stream, text: () => chunks.join('') };
  }
  const count = (text: string, needle: string): number => text.split(needle).length - 1;

  it("writes `katalog` once on every line when the operator's logger already binds it", () => {
    const out = rawSink();
    // As the operator's createLogger builds it: `katalog` bound at the root.
    const operator = createRedactingLogger({ base: { katalog: 'shop' }, destination: out.stream });
    const logger = withBindings(operator, { katalog: 'shop' });
    logger.info({}, 'started');
    logger.child({ controller: 'website' }).info({ durationMs: 12 }, 'reconciled');
    const lines = out
      .text()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(count(line, '"katalog":')).toBe(1);
      expect(JSON.parse(line)).toMatchObject({ katalog: 'shop' });
    }
  });

  it('binds what the logger does not hold yet, and everything on a logger that cannot tell', () => {
    const out = rawSink();
    withBindings(runtimeLogger(undefined, { destination: out.stream }), { katalog: 'shop' }).info({}, 'x');
    expect(count(out.text(), '"katalog":"shop"')).toBe(1);
    const seen: Record<string, unknown>[] = [];
    const plain: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      child: (bindings) => (seen.push(bindings), plain),
    };
    withBindings(plain, { katalog: 'shop' });
    expect(seen).toEqual([{ katalog: 'shop' }]);
  });
});
