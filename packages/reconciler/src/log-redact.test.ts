import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runtimeLogger } from './log-redact.js';

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
