import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { crossAuthorizer, tokenFileReader } from './cross-access.js';
import { GateAudience, createKubeGate } from './kube-gate.js';
import type { ReviewApi } from './kube-gate.js';

function request(authorization?: string): IncomingMessage {
  return {
    socket: { remoteAddress: '10.0.0.9' },
    headers: authorization == null ? {} : { authorization },
  } as unknown as IncomingMessage;
}

/** Token `t-<user>@<audience>` is `<user>`, valid for `<audience>` only; `grants` lists `<user> <verb> <namespace>/<name>`. */
function reviews(grants: readonly string[], calls: string[] = []): ReviewApi {
  return {
    tokenReview: (token, audiences) => {
      calls.push(`token ${token} ${audiences.join(',')}`);
      const match = /^t-(\w+)@([\w-]+)$/.exec(token);
      return Promise.resolve(
        match?.[1] != null && match[2] != null && audiences.includes(match[2])
          ? { user: { username: match[1], groups: [] } }
          : {},
      );
    },
    accessReview: (input) => {
      calls.push(
        `sar ${input.username} ${input.verb} ${input.resource} ${input.namespace}/${input.name ?? ''}`,
      );
      return Promise.resolve(
        grants.includes(`${input.username} ${input.verb} ${input.namespace}/${input.name ?? ''}`),
      );
    },
  };
}

const target = { entry: 'db', group: 'a.example.com', plural: 'dbs', namespace: 'team-b', name: 'payments' };

describe('createKubeGate', () => {
  it('accepts only tokens bound to its audience', async () => {
    const gate = createKubeGate({ reviews: reviews([]), audience: GateAudience.Cross });
    expect(await gate.authenticate(request())).toMatchObject({ ok: false, status: 401 });
    expect(await gate.authenticate(request('Basic abc'))).toMatchObject({ ok: false, status: 401 });
    expect(await gate.authenticate(request('Bearer t-ann@orkestra-control-center'))).toMatchObject({
      ok: false,
      status: 401,
      message: 'the token was not accepted (it needs the audience orkestra-cross)',
    });
    expect(await gate.authenticate(request('Bearer t-ann@orkestra-cross'))).toMatchObject({
      ok: true,
      user: { username: 'ann' },
    });
  });

  it('reuses answers within cacheMs on the injected clock, and asks again after', async () => {
    const calls: string[] = [];
    let now = 0;
    const gate = createKubeGate({
      reviews: reviews(['ann get team-b/payments'], calls),
      audience: GateAudience.Cross,
      cacheMs: 1000,
      now: () => now,
    });
    const authorize = crossAuthorizer(gate);
    for (let i = 0; i < 3; i++)
      expect(await authorize(request('Bearer t-ann@orkestra-cross'), target)).toEqual({ ok: true });
    expect(calls).toHaveLength(2);
    now = 1500;
    await authorize(request('Bearer t-ann@orkestra-cross'), target);
    expect(calls).toHaveLength(4);
  });

  it('does not remember a review that failed', async () => {
    let fail = true;
    const gate = createKubeGate({
      reviews: {
        tokenReview: () =>
          fail ? Promise.reject(new Error('down')) : Promise.resolve({ user: { username: 'x', groups: [] } }),
        accessReview: () => Promise.resolve(true),
      },
      audience: GateAudience.Cross,
    });
    expect(await gate.authenticate(request('Bearer a'))).toMatchObject({ ok: false, status: 401 });
    fail = false;
    expect(await gate.authenticate(request('Bearer a'))).toMatchObject({ ok: true });
  });
});

describe('crossAuthorizer', () => {
  it('needs a token (401) and a SubjectAccessReview get on that object (403)', async () => {
    const calls: string[] = [];
    const authorize = crossAuthorizer(
      createKubeGate({ reviews: reviews(['ann get team-b/payments'], calls), audience: GateAudience.Cross }),
    );
    expect(await authorize(request(), target)).toMatchObject({ ok: false, status: 401 });
    expect(await authorize(request(), undefined)).toMatchObject({ ok: false, status: 401 });
    expect(await authorize(request('Bearer t-ann@orkestra-cross'), target)).toEqual({ ok: true });
    expect(await authorize(request('Bearer t-bob@orkestra-cross'), target)).toEqual({
      ok: false,
      status: 403,
      message: 'bob may not get dbs.a.example.com payments in team-b',
    });
    expect(
      await authorize(request('Bearer t-ann@orkestra-cross'), { ...target, name: 'other' }),
    ).toMatchObject({
      status: 403,
    });
    expect(calls).toContain('sar ann get dbs team-b/payments');
  });

  it('lets everything through without a gate (--cross-auth=none on loopback)', async () => {
    expect(await crossAuthorizer(undefined)(request(), target)).toEqual({ ok: true });
  });
});

describe('tokenFileReader', () => {
  it('re-reads the projected token after refreshMs; a missing file is no token', async () => {
    let now = 0;
    let content: string | undefined = 'first\n';
    const read = (): Promise<string> =>
      content == null ? Promise.reject(new Error('ENOENT')) : Promise.resolve(content);
    const token = tokenFileReader('/t', { now: () => now, refreshMs: 100, read });
    expect(await token()).toBe('first');
    content = 'second';
    expect(await token()).toBe('first');
    now = 100;
    expect(await token()).toBe('second');
    content = undefined;
    now = 200;
    expect(await token()).toBeUndefined();
  });
});
