import { describe, expect, it } from 'vitest';
import { truncateMessage } from './reason-message.js';
import { redactUrlCredentials, truncateRedacted } from './redact-url.js';

describe('redactUrlCredentials', () => {
  it('replaces user and password, or a token as the user, of any scheme', () => {
    expect(redactUrlCredentials('clone of https://bot:ghp_abc@git.example.com/r.git failed')).toBe(
      'clone of https://[REDACTED]@git.example.com/r.git failed',
    );
    expect(redactUrlCredentials('GET http://tok3n@10.0.0.1:8080/x')).toBe(
      'GET http://[REDACTED]@10.0.0.1:8080/x',
    );
    expect(redactUrlCredentials('mongodb://u:p%40ss@db:27017/a and ssh://git:pw@h/r')).toBe(
      'mongodb://[REDACTED]@db:27017/a and ssh://[REDACTED]@h/r',
    );
  });

  it('replaces credential query values and keeps the rest', () => {
    expect(redactUrlCredentials('https://api.example.com/v1?page=2&access_token=s3cr3t#top')).toBe(
      'https://api.example.com/v1?page=2&access_token=[REDACTED]#top',
    );
    expect(redactUrlCredentials('https://b.s3.amazonaws.com/k?X-Amz-Signature=abc&X-Amz-Date=1')).toBe(
      'https://b.s3.amazonaws.com/k?X-Amz-Signature=[REDACTED]&X-Amz-Date=1',
    );
  });

  it('leaves URLs without credentials, scp-like git addresses and plain text alone', () => {
    for (const text of [
      'https://example.com/a@b',
      'git@github.com:org/repo.git',
      'user@example.com wrote',
      'no url here',
      'https://example.com/path?q=1',
    ])
      expect(redactUrlCredentials(text)).toBe(text);
  });

  it('redacts a user-info holding @ whole, as the URL parser reads it', () => {
    expect(redactUrlCredentials('https://user:p@ss@host/x')).toBe('https://[REDACTED]@host/x');
    expect(redactUrlCredentials('see https://a@b@c@git.example.com:8443/r.git')).toBe(
      'see https://[REDACTED]@git.example.com:8443/r.git',
    );
  });

  it('redacts GitLab, auth, code and *_key query values', () => {
    expect(
      redactUrlCredentials(
        'https://gitlab.example.com/api/v4/p?private_token=glpat-SECRET&auth=a1&code=c2&x_api_key=k3&ok=1',
      ),
    ).toBe(
      'https://gitlab.example.com/api/v4/p?private_token=[REDACTED]&auth=[REDACTED]&code=[REDACTED]&x_api_key=[REDACTED]&ok=1',
    );
    expect(redactUrlCredentials('https://h/p?x-api-key=k4&page=2')).toBe(
      'https://h/p?x-api-key=[REDACTED]&page=2',
    );
  });

  it('is linear: a 200 kB input of scheme-like characters completes', () => {
    // The anchored scheme pattern tries each word once; the previous pattern needed 10 s here.
    const text = `${'a-'.repeat(100_000)}://`;
    expect(redactUrlCredentials(text)).toBe(text);
    const many = 'https://u:p@h/ '.repeat(20_000);
    expect(redactUrlCredentials(many)).toBe('https://[REDACTED]@h/ '.repeat(20_000));
  });

  it('truncates before redacting, and hides a user-info the cut splits', () => {
    const long = `failed: ${'x'.repeat(2000)} https://bot:ghp_SECRET@git.example.com/r.git`;
    expect(truncateRedacted(long, 1024, truncateMessage)).toHaveLength(1024);
    const cut = `${'x'.repeat(1000)} https://bot:ghp_${'S'.repeat(1000)}@git.example.com/r.git`;
    const shown = truncateRedacted(cut, 1024, truncateMessage);
    expect(shown).not.toContain('ghp_');
    expect(shown).toContain('https://[REDACTED]');
    expect(truncateRedacted('GET https://bot:t@h/x', 1024, truncateMessage)).toBe(
      'GET https://[REDACTED]@h/x',
    );
  });
});
