import { Writable } from 'node:stream';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { checkCompatibility } from './compatibility.js';
import { OperatorStartError } from './errors.js';

const katalogWith = (compatibility: string) =>
  loadKatalogOrThrow({
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata:
  name: gadgets
lifecycle:
  compatibility:
${compatibility}
spec:
  crds:
    gadget:
      apiTypes:
        group: demo.example.io
        version: v1
        kind: Gadget
        plural: gadgets
`,
  });

function logger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ katalogName: 'gadgets', level: 'info', destination }), lines };
}

describe('checkCompatibility', () => {
  it('refuses an API server outside lifecycle.compatibility.kubernetes, naming both versions', async () => {
    const { logger: log } = logger();
    const run = checkCompatibility(katalogWith('    kubernetes: ">=1.28"'), {
      operatorVersion: '1.0.0',
      serverVersion: () => Promise.resolve('v1.27.3'),
      logger: log,
    });
    await expect(run).rejects.toBeInstanceOf(OperatorStartError);
    await expect(run).rejects.toMatchObject({
      details: ['lifecycle.compatibility.kubernetes: the API server is v1.27.3; the Katalog requires >=1.28'],
    });
  });

  it('starts on an API server inside the range', async () => {
    const { logger: log } = logger();
    await expect(
      checkCompatibility(katalogWith('    kubernetes: ">=1.28 <1.40"'), {
        operatorVersion: '1.0.0',
        serverVersion: () => Promise.resolve('v1.33.1+k3s1'),
        logger: log,
      }),
    ).resolves.toBeUndefined();
  });

  it('refuses an operator outside lifecycle.compatibility.orkestra', async () => {
    const { logger: log } = logger();
    await expect(
      checkCompatibility(katalogWith('    orkestra: ">=0.7.0"'), {
        operatorVersion: '0.6.2',
        serverVersion: () => Promise.reject(new Error('not asked')),
        logger: log,
      }),
    ).rejects.toMatchObject({
      details: ['lifecycle.compatibility.orkestra: this operator is 0.6.2; the Katalog requires >=0.7.0'],
    });
  });

  it('an unreleased build (0.0.0) is not checked against orkestra, and says so', async () => {
    const { logger: log, lines } = logger();
    await checkCompatibility(katalogWith('    orkestra: ">=0.7.0"'), {
      operatorVersion: '0.0.0',
      serverVersion: () => Promise.reject(new Error('not asked')),
      logger: log,
    });
    expect(lines.join('')).toContain('lifecycle.compatibility.orkestra not checked');
  });
});
