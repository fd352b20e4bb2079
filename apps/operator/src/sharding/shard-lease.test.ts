import { describe, expect, it } from 'vitest';
import { shardIdFor, shardLeaseName } from './shard-lease.js';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe('shardIdFor', () => {
  it('is the host name and 8 hex digits of the UUID, a valid label value', () => {
    const id = shardIdFor({ hostname: 'orkestra-7d9f-x2v', uuid: '0a1b2c3d-4e5f-6789-abcd-ef0123456789' });
    expect(id).toBe('orkestra-7d9f-x2v-0a1b2c3d');
    expect(id).toMatch(LABEL_VALUE);
  });

  it('keeps odd or long host names within a label value', () => {
    const uuid = 'ffffffff-0000-0000-0000-000000000000';
    const long = shardIdFor({ hostname: `${'Host.Name_'.repeat(20)}`, uuid });
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(LABEL_VALUE);
    expect(long.endsWith('-ffffffff')).toBe(true);
    expect(shardIdFor({ hostname: '...', uuid })).toBe('shard-ffffffff');
  });

  it('differs between two processes on one host', () => {
    expect(shardIdFor({ hostname: 'h' })).not.toBe(shardIdFor({ hostname: 'h' }));
  });

  it('names the shard Lease after the Katalog and the shard', () => {
    expect(shardLeaseName('shop', 'h-0a1b2c3d')).toBe('orkestra-shop-shard-h-0a1b2c3d');
  });
});
