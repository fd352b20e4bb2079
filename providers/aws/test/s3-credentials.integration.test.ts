/**
 * Bad credentials against a moto that checks them. The shared moto from @orkestra/testenv accepts
 * any credentials, so this file starts its own moto_server (the same binary) with
 * `INITIAL_NO_AUTH_ACTION_COUNT=0`: moto then authenticates every request against its (empty)
 * IAM, so every access key is unknown. What this cannot show is a request accepted with valid
 * keys under authentication (that needs IAM users and policies inside moto).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createSilentLogger, createTestRequest } from '@orkestra/provider-kit';
import { findBinary, isCi, isTestenvError, ServerBinary } from '@orkestra/testenv';
import { ProviderError } from '@orkestra/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as aws from '../src/index.js';

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address != null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitUntilServing(endpoint: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode != null) throw new Error(`moto_server exited with ${child.exitCode}`);
    const ok = await fetch(`${endpoint}/moto-api/data.json`, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('moto_server did not answer within 60 s');
}

let child: ChildProcess | undefined;
let endpoint = '';
let missing: string | undefined;

beforeAll(async () => {
  let bin: string;
  try {
    bin = findBinary(ServerBinary.MotoServer).path;
  } catch (error) {
    if (isTestenvError(error) && !isCi()) {
      missing = error.message;
      return;
    }
    throw error;
  }
  const port = await freePort();
  endpoint = `http://127.0.0.1:${port}`;
  child = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, INITIAL_NO_AUTH_ACTION_COUNT: '0', PYTHONUNBUFFERED: '1' },
    stdio: 'ignore',
  });
  await waitUntilServing(endpoint, child);
}, 90_000);

afterAll(async () => {
  if (child == null || child.exitCode != null) return;
  const exited = new Promise((resolve) => child?.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
});

describe('s3 kind with credentials moto rejects', () => {
  it('an unknown access key is a clear, non-retryable error that points at the credentials', async (context) => {
    if (missing != null) context.skip(`moto_server not built: ${missing}`);
    const provider = await aws.createProvider({
      name: 'aws',
      config: {
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        accessKeyId: 'AKIAWRONGWRONGWRONG1',
        secretAccessKey: 'wrong',
        maxAttempts: 1,
      },
      logger: createSilentLogger(),
      signal: new AbortController().signal,
    });
    try {
      const error = await provider
        .reconcile(createTestRequest({ kind: 's3', spec: { bucket: 'bad-credentials' } }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      const providerError = error as ProviderError;
      expect(providerError.retryable).toBe(false);
      expect(providerError.code).toMatch(/InvalidAccessKeyId|InvalidClientTokenId|Forbidden|AccessDenied/);
      expect(providerError.message).toContain('S3 HeadBucket on bucket "bad-credentials" failed');
      expect(providerError.message).toContain('HTTP 403');
      expect(providerError.message).toContain('check the credentials');
    } finally {
      await provider.close?.();
    }
  });
});
