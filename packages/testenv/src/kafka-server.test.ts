import { describe, expect, it } from 'vitest';
import { kafkaClusterId } from './kafka-server.js';

describe('kafkaClusterId', () => {
  it('draws again when the id would start with "-" (the storage tool reads that as an option)', () => {
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x01)];
    let calls = 0;
    const id = kafkaClusterId(() => draws[calls++] ?? Buffer.alloc(16));
    expect(Buffer.alloc(16, 0xf8).toString('base64url').startsWith('-')).toBe(true);
    expect(id.startsWith('-')).toBe(false);
    expect(calls).toBe(2);
    expect(Buffer.from(id, 'base64url')).toHaveLength(16);
  });
});
