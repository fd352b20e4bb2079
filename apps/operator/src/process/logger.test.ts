import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { REDACTED, createLogger } from './logger.js';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('writes JSON lines with time, level, msg and katalog, and respects the level', () => {
    const out = capture();
    const logger = createLogger({ katalogName: 'shop', level: 'info', destination: out.stream });
    logger.debug({ step: 'x' }, 'hidden');
    logger.child({ controller: 'website' }).info({ durationMs: 12 }, 'reconciled');
    const [line, ...rest] = out.lines();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'reconciled',
      katalog: 'shop',
      controller: 'website',
      durationMs: 12,
    });
    expect(typeof line?.['time']).toBe('string');
  });

  it('redacts credentials, Secret data and provider config values', () => {
    const out = capture();
    const logger = createLogger({ katalogName: 'shop', destination: out.stream });
    logger.info(
      {
        password: 'p0',
        request: { headers: { authorization: 'Bearer abc', accept: 'json' }, token: 't1' },
        aws: { credentials: { secretAccessKey: 'sk', accessKeyId: 'AKIA' } },
        secret: {
          kind: 'Secret',
          metadata: { name: 'db' },
          data: { password: 'cGFzcw==' },
          stringData: { k: 'v' },
        },
        provider: {
          name: 'mongodb',
          package: '@orkestra/provider-mongodb',
          config: { uri: 'mongodb://u:p@h', tls: true },
        },
        config: { endpoint: 'http://minio' },
      },
      'about to call',
    );
    const [line] = out.lines();
    expect(line).toMatchObject({
      password: REDACTED,
      request: { headers: { authorization: REDACTED, accept: 'json' }, token: REDACTED },
      aws: { credentials: { secretAccessKey: REDACTED, accessKeyId: 'AKIA' } },
      secret: { kind: 'Secret', metadata: { name: 'db' }, data: REDACTED, stringData: REDACTED },
      provider: {
        name: 'mongodb',
        package: '@orkestra/provider-mongodb',
        config: { uri: REDACTED, tls: REDACTED },
      },
      config: { endpoint: REDACTED },
    });
    const text = JSON.stringify(line);
    for (const secret of ['p0', 'Bearer abc', 't1', 'sk', 'cGFzcw==', 'mongodb://u:p@h', 'http://minio']) {
      expect(text).not.toContain(secret);
    }
  });

  it('serializes errors with type, message and code, and adds the stack only at debug', () => {
    const error = Object.assign(new Error('boom'), { code: 'ApplyFailed' });
    const info = capture();
    createLogger({ katalogName: 'shop', destination: info.stream }).error({ err: error }, 'failed');
    expect(info.lines()[0]?.['err']).toEqual({ type: 'Error', message: 'boom', code: 'ApplyFailed' });
    const debug = capture();
    createLogger({ katalogName: 'shop', level: 'debug', destination: debug.stream }).error(
      { err: error },
      'failed',
    );
    expect(debug.lines()[0]?.['err']).toMatchObject({
      type: 'Error',
      message: 'boom',
      stack: expect.stringContaining('boom'),
    });
  });

  it('redacts at any depth: credential keys, Secret data, config values, in arrays, errors and child bindings', () => {
    const out = capture();
    const logger = createLogger({ katalogName: 'shop', destination: out.stream });
    let deep: Record<string, unknown> = { password: 'deep-p', note: 'kept' };
    for (let i = 0; i < 12; i++) deep = { level: deep };
    const error = Object.assign(new Error('clone of https://bot:err-tok@git.example.com/r.git failed'), {
      code: 'GitFailed',
      request: { headers: { Authorization: 'Bearer err-bearer' } },
    });
    const cyclic: Record<string, unknown> = { token: 'cyc-t' };
    cyclic['self'] = cyclic;
    logger
      .child({ provider: { config: { uri: 'mongodb://child-u:child-p@h' } } })
      .warn(
        { deep, list: [{ a: { b: [{ apiKey: 'arr-k' }] } }], err: error, cyclic, TOKEN: 'upper-t' },
        'calling https://msg-user:msg-pass@api.example.com/v1?access_token=msg-tok',
      );
    const [line] = out.lines();
    const text = JSON.stringify(line);
    for (const secret of [
      'deep-p',
      'arr-k',
      'err-tok',
      'err-bearer',
      'cyc-t',
      'upper-t',
      'child-p',
      'msg-pass',
      'msg-tok',
    ])
      expect(text, secret).not.toContain(secret);
    expect(text).toContain('"note":"kept"');
    expect(line?.['msg']).toBe('calling https://[REDACTED]@api.example.com/v1?access_token=[REDACTED]');
    expect(line?.['err']).toMatchObject({
      type: 'Error',
      code: 'GitFailed',
      message: 'clone of https://[REDACTED]@git.example.com/r.git failed',
    });
    expect((line?.['err'] as Record<string, unknown>)['stack']).toBeUndefined();
    expect(line?.['provider']).toEqual({ config: { uri: REDACTED } });
  });
});
