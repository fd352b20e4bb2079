import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKatalog } from './load-katalog.js';
import { YAML_DEPTH_LIMIT, YAML_SIZE_LIMIT, checkYamlText, decodeYamlBytes } from './yaml-input.js';

const KATALOG = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: web}
spec:
  crds:
    website:
      apiTypes: {group: demo.example.com, version: v1alpha1, kind: Website, plural: websites}
`;

function file(bytes: Uint8Array | string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ork-yaml-input-')), 'k.yaml');
  writeFileSync(path, bytes);
  return path;
}

function firstError(path: string) {
  const result = loadKatalog({ path });
  if (result.ok) throw new Error('expected errors');
  return result.errors[0];
}

describe('YAML input limits (docs/reference/katalog.md §2)', () => {
  it('refuses deep flow nesting with a positioned message, not a stack overflow', () => {
    const text = `spec: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    const result = checkYamlText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.code).toBe('NestingTooDeep');
    expect(result.problem.line).toBe(1);
    expect(result.problem.column).toBe(6 + YAML_DEPTH_LIMIT);
    const error = loadKatalog({ text, file: 'deep.yaml' });
    expect(error.ok).toBe(false);
    if (!error.ok) {
      expect(error.errors[0]?.message).toMatch(/nest deeper than \d+ levels/);
      expect(error.errors[0]?.message).not.toMatch(/call stack/);
    }
  });

  it('refuses a 1,000-deep block map at the first level too deep', () => {
    let text = '';
    for (let i = 0; i < 1000; i++) text += `${' '.repeat(i)}k${i}:\n`;
    const result = checkYamlText(text);
    expect(result.ok ? undefined : result.problem).toMatchObject({
      code: 'NestingTooDeep',
      line: YAML_DEPTH_LIMIT + 1,
      column: YAML_DEPTH_LIMIT + 1,
    });
  });

  it('accepts nesting up to the limit', () => {
    const text = `${'['.repeat(YAML_DEPTH_LIMIT)}${']'.repeat(YAML_DEPTH_LIMIT)}\n`;
    expect(checkYamlText(text).ok).toBe(true);
    const over = `${'['.repeat(YAML_DEPTH_LIMIT + 1)}${']'.repeat(YAML_DEPTH_LIMIT + 1)}\n`;
    expect(checkYamlText(over).ok).toBe(false);
  });

  it('refuses bytes that are not UTF-8 at their line and column', () => {
    const bytes = Buffer.concat([
      Buffer.from(`${KATALOG}# é x`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('\n'),
    ]);
    expect(firstError(file(bytes))).toMatchObject({
      line: 8,
      column: 6,
      message: expect.stringMatching(/^the input is not valid UTF-8 \(byte 0xff at offset \d+\)/) as string,
    });
    for (const bad of [
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
    ]) {
      const result = decodeYamlBytes(Buffer.concat([Buffer.from('a: '), Buffer.from(bad)]));
      expect(result.ok ? undefined : result.problem.code).toBe('NotUtf8');
    }
    expect(decodeYamlBytes(Buffer.from('a: "é€𝄞"\n')).ok).toBe(true);
  });

  it('refuses UTF-16 and UTF-32 by their byte order mark, and reads a UTF-8 one', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(KATALOG, 'utf16le')]);
    expect(firstError(file(utf16))).toMatchObject({
      line: 1,
      column: 1,
      message:
        'the input is UTF-16 (little-endian) (it starts with a byte order mark); YAML input must be UTF-8',
    });
    const utf32 = decodeYamlBytes(Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x61, 0, 0, 0]));
    expect(utf32.ok ? undefined : utf32.problem.code).toBe('Utf16OrUtf32');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(KATALOG)]);
    expect(loadKatalog({ path: file(bom) }).ok).toBe(true);
  });

  it('refuses an input over 2 MiB before parsing it', () => {
    const big = `${KATALOG}${`# ${'x'.repeat(98)}\n`.repeat(Math.ceil(YAML_SIZE_LIMIT / 100) + 1)}`;
    expect(firstError(file(big))).toMatchObject({
      line: 1,
      column: 1,
      message: expect.stringMatching(
        /^the input is \d+ bytes; at most 2097152 bytes \(2 MiB\) are read$/,
      ) as string,
    });
    const text = loadKatalog({ text: big, file: 'big.yaml' });
    expect(text.ok ? undefined : text.errors[0]?.message).toMatch(/at most 2097152 bytes/);
  });
});
