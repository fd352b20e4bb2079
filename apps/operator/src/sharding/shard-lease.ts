/**
 * Names of a shard's membership (docs/reference/runtime.md §25, ADR 0045): its ID (the value of the
 * CR and child label, so at most 63 characters) and its Lease, labelled so the sharder can list
 * the Leases of one Katalog's shards.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ORKESTRA_PREFIX } from '@orkestra/types';

/** SHARD_LEASE_LABEL marks a shard Lease; its value is the Katalog name. */
export const SHARD_LEASE_LABEL = `${ORKESTRA_PREFIX}shard-of`;

/**
 * shardIdFor is `<host>-<8 hex>`: the host name (lower-cased, other characters as `-`, at most 50
 * characters) and 8 characters of a random UUID, so two processes on one host differ. A valid
 * label value.
 */
export function shardIdFor(options: { hostname?: string; uuid?: string } = {}): string {
  const host =
    (options.hostname ?? hostname())
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 50)
      .replace(/-+$/, '') || 'shard';
  const suffix = (options.uuid ?? randomUUID()).replace(/-/g, '').slice(0, 8);
  return `${host}-${suffix}`;
}

/** shardLeaseName is the Lease of one shard: `orkestra-<katalog>-shard-<id>`. */
export function shardLeaseName(katalogName: string, shardId: string): string {
  return `orkestra-${katalogName}-shard-${shardId}`;
}
