import { sha256Hex } from './canonical-json.js';

/**
 * shortenLabelValue keeps a label value of up to 63 characters as is and shortens a longer one to
 * its first 54 characters, `-`, and the first 8 hex characters of its SHA-256 (docs/reference/katalog.md §22.1).
 */
export function shortenLabelValue(value: string): string {
  if (value.length <= 63) return value;
  return `${value.slice(0, 54)}-${sha256Hex(value).slice(0, 8)}`;
}
