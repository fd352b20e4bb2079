import { describe, expect, it } from 'vitest';
import { redactUrlCredentials } from './redact-url.js';

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
});
