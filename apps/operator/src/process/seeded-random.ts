import { createHash } from 'node:crypto';
import type { RandomSource } from '@orkestra/template';

/**
 * createSeededRandom returns a deterministic RandomSource: SHA-256 in counter mode over `seed`.
 * `ork render` uses it so random helpers give the same (clearly not secret) values on every run.
 */
export function createSeededRandom(seed: string): RandomSource {
  let counter = 0;
  return (size: number) => {
    const out = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      const block = createHash('sha256').update(`${seed}\u0000${counter++}`).digest();
      const take = Math.min(block.length, size - filled);
      out.set(block.subarray(0, take), filled);
      filled += take;
    }
    return out;
  };
}
