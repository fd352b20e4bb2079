import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createGate, newLocalToken } from './auth.js';
import type { ReviewApi } from '../auth/kube-gate.js';

function request(remoteAddress: string, authorization?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: authorization == null ? {} : { authorization },
  } as unknown as IncomingMessage;
}

function cookie(remoteAddress: string, value: string): IncomingMessage {
  return { socket: { remoteAddress }, headers: { cookie: value } } as unknown as IncomingMessage;
}

const websites = { group: 'demo.example.com', plural: 'websites' };

/** A review API where token `t-<user>` is `<user>` and `grants` lists `<user> <namespace>` (`''` = all namespaces). */
function reviews(grants: readonly string[], calls: string[] = []): ReviewApi {
  return {
    tokenReview: (token, audiences) => {
      calls.push(`token ${token}`);
      if (!audiences.includes('orkestra-control-center')) return Promise.resolve({});
      return Promise.resolve(
        token.startsWith('t-') ? { user: { username: token.slice(2), groups: [] } } : {},
      );
    },
    accessReview: (input) => {
      calls.push(`sar ${input.username} ${input.verb} ${input.resource} ${input.namespace}`);
      return Promise.resolve(grants.includes(`${input.username} ${input.namespace}`));
    },
  };
}

describe('createGate', () => {
  it('local mode serves loopback clients holding the process token, and refuses others', async () => {
    const token = newLocalToken(() => new Uint8Array(32).fill(7));
    const gate = createGate({ mode: 'local', localToken: token });
    expect(await gate(request('127.0.0.1'))).toMatchObject({ ok: false, status: 401 });
    expect(await gate(request('127.0.0.1', 'Bearer wrong'))).toMatchObject({ ok: false, status: 401 });
    expect((await gate(request('127.0.0.1', `Bearer ${token}`))).ok).toBe(true);
    expect((await gate(cookie('::1', `a=b; orkestra-cc=${token}`))).ok).toBe(true);
    expect(await gate(cookie('10.0.0.7', `orkestra-cc=${token}`))).toMatchObject({ ok: false, status: 403 });
    expect(await createGate({ mode: 'local' })(request('127.0.0.1'))).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('draws the local token from the injected randomness', () => {
    expect(newLocalToken(() => new Uint8Array(32))).toBe('A'.repeat(43));
    expect(newLocalToken()).not.toBe(newLocalToken());
  });

  it('token mode needs an accepted bearer token, also from loopback', async () => {
    const gate = createGate({ mode: 'token', reviews: reviews([]) });
    expect(await gate(request('127.0.0.1'))).toMatchObject({ ok: false, status: 401 });
    expect(await gate(request('127.0.0.1', 'Bearer nope'))).toMatchObject({ ok: false, status: 401 });
    expect(await gate(request('127.0.0.1', 'Bearer t-ann'))).toMatchObject({ ok: true });
  });

  it('a viewer sees a namespace only when a SubjectAccessReview allows list there', async () => {
    const calls: string[] = [];
    const gate = createGate({ mode: 'token', reviews: reviews(['ann team-a', 'root '], calls) });
    const ann = await gate(request('10.0.0.7', 'Bearer t-ann'));
    if (!ann.ok) throw new Error('expected a viewer');
    expect(await ann.viewer.may(websites, 'team-a')).toBe(true);
    expect(await ann.viewer.may(websites, 'team-b')).toBe(false);
    expect(await ann.viewer.may(websites, '')).toBe(false);
    const root = await gate(request('10.0.0.7', 'Bearer t-root'));
    if (!root.ok) throw new Error('expected a viewer');
    expect(await root.viewer.may(websites, 'anything')).toBe(true);
    expect(calls).toContain('sar ann list websites team-a');
  });

  it('reuses review answers within cacheMs, so an open page does not review on every update', async () => {
    const calls: string[] = [];
    let now = 0;
    const gate = createGate({
      mode: 'token',
      reviews: reviews(['ann team-a'], calls),
      cacheMs: 1000,
      now: () => now,
    });
    for (let i = 0; i < 3; i++) {
      const result = await gate(request('10.0.0.7', 'Bearer t-ann'));
      if (result.ok) await result.viewer.may(websites, 'team-a');
    }
    expect(calls.filter((c) => c.startsWith('token'))).toHaveLength(1);
    now = 2000;
    await gate(request('10.0.0.7', 'Bearer t-ann'));
    expect(calls.filter((c) => c.startsWith('token'))).toHaveLength(2);
  });
});
