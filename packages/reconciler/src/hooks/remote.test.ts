import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteReconcilerClient } from './remote.js';

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** serve answers each request with the next of `answers` (the last repeats); returns the base URL and the bodies received. */
async function serve(
  answers: readonly { status: number; body: string; delayMs?: number }[],
): Promise<{ url: string; received: unknown[] }> {
  const received: unknown[] = [];
  let n = 0;
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      received.push(JSON.parse(text));
      const answer = answers[Math.min(n++, answers.length - 1)]!;
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body);
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/reconcile`, received };
}

const client = (): RemoteReconcilerClient =>
  new RemoteReconcilerClient({ allowAddresses: ['127.0.0.0/8'], backoffMs: 5 });
const signal = (): AbortSignal => new AbortController().signal;

describe('RemoteReconcilerClient', () => {
  it('POSTs the body and returns the JSON answer', async () => {
    const { url, received } = await serve([{ status: 200, body: '{"result":"ok"}' }]);
    const outcome = await client().call(
      { url, body: { key: 'a/b' }, headers: {}, timeoutMs: 2000, attempts: 3 },
      signal(),
    );
    expect(outcome).toMatchObject({ ok: true, answer: { result: 'ok' }, attempts: 1 });
    expect(received).toEqual([{ key: 'a/b' }]);
  });

  it('retries a 5xx with backoff and succeeds on a later attempt', async () => {
    const { url, received } = await serve([
      { status: 503, body: 'busy' },
      { status: 200, body: '{"result":"ok"}' },
    ]);
    const outcome = await client().call(
      { url, body: {}, headers: {}, timeoutMs: 2000, attempts: 3 },
      signal(),
    );
    expect(outcome).toMatchObject({ ok: true, attempts: 2 });
    expect(received).toHaveLength(2);
  });

  it('gives up after the attempts and names the status', async () => {
    const { url, received } = await serve([{ status: 500, body: 'no' }]);
    const outcome = await client().call(
      { url, body: {}, headers: {}, timeoutMs: 2000, attempts: 3 },
      signal(),
    );
    expect(outcome).toMatchObject({ ok: false, attempts: 3 });
    expect(!outcome.ok && outcome.error).toContain('answered status 500 (3 attempts)');
    expect(received).toHaveLength(3);
  });

  it('does not retry a 4xx or a body that is not JSON', async () => {
    const bad = await serve([{ status: 200, body: '<html>' }]);
    const notJson = await client().call(
      { url: bad.url, body: {}, headers: {}, timeoutMs: 2000, attempts: 3 },
      signal(),
    );
    expect(!notJson.ok && notJson.error).toContain('not JSON');
    expect(bad.received).toHaveLength(1);
    server?.close();
    const denied = await serve([{ status: 403, body: '{}' }]);
    const forbidden = await client().call(
      { url: denied.url, body: {}, headers: {}, timeoutMs: 2000, attempts: 3 },
      signal(),
    );
    expect(!forbidden.ok && forbidden.error).toContain('answered status 403');
    expect(denied.received).toHaveLength(1);
  });

  it('times out each attempt', async () => {
    const { url } = await serve([{ status: 200, body: '{}', delayMs: 500 }]);
    const outcome = await client().call({ url, body: {}, headers: {}, timeoutMs: 50, attempts: 2 }, signal());
    expect(!outcome.ok && outcome.error).toContain('timed out');
    expect(outcome.attempts).toBe(2);
  });

  it('refuses blocked addresses through the guard, without sending', async () => {
    const guarded = new RemoteReconcilerClient({ backoffMs: 5 });
    const metadata = await guarded.call(
      { url: 'http://169.254.169.254/latest', body: {}, headers: {}, timeoutMs: 500, attempts: 3 },
      signal(),
    );
    expect(metadata.ok).toBe(false);
    expect(guarded.stats().requests).toBe(0);
    const { url, received } = await serve([{ status: 200, body: '{}' }]);
    const loopback = await guarded.call(
      { url, body: {}, headers: {}, timeoutMs: 500, attempts: 3 },
      signal(),
    );
    expect(loopback.ok).toBe(false);
    expect(received).toHaveLength(0);
  });
});
