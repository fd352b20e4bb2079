import { describe, expect, it } from 'vitest';
import {
  AddressGuard,
  BlockedAddressError,
  LOOPBACK_CIDRS,
  blockedAddressReason,
  parseCidr,
} from './address-guard.js';
import type { ResolveHost } from './address-guard.js';

// Every spelling of the security review's §4.1 table (2026-12), through the public surface: a URL
// as a Katalog template would give it, `precheck` (IP literals) and `check` (names, resolved).

const resolve: ResolveHost = (host) =>
  Promise.resolve(
    host === '127.0.0.1.nip.io' || host === 'loopback.example'
      ? [{ address: '127.0.0.1', family: 4 }]
      : host === 'v6-loopback.example'
        ? [{ address: '::1', family: 6 }]
        : [{ address: '93.184.215.14', family: 4 }],
  );

async function verdict(url: string, allowAddresses?: readonly string[]): Promise<string> {
  const guard = new AddressGuard({ resolve, ...(allowAddresses == null ? {} : { allowAddresses }) });
  try {
    const target = new URL(url);
    guard.precheck(target);
    await guard.check(target);
    return 'allowed';
  } catch (error) {
    if (error instanceof BlockedAddressError) return 'refused';
    throw error;
  }
}

const REFUSED = [
  // loopback and unspecified, every spelling
  'http://127.0.0.1/',
  'http://[::ffff:127.0.0.1]/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://017700000001/',
  'http://127.1/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://[::1]/',
  'http://[::ffff:7f00:1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://localhost/',
  'http://localhost./',
  'http://LOCALHOST/',
  'http://api.localhost/',
  'http://127.0.0.1.nip.io/',
  'http://loopback.example/',
  'http://v6-loopback.example/',
  // link-local and metadata (already refused before; kept)
  'http://169.254.169.254/',
  'http://2852039166/',
  'http://0xa9.0xfe.0xa9.0xfe/',
  'http://0251.0376.0251.0376/',
  'http://169.254.169.254./',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:0:a9fe:a9fe]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[fd00:ec2::254]/',
  'http://100.100.100.200/',
  'http://metadata.google.internal./',
  'http://METADATA.GOOGLE.INTERNAL/',
  // newly refused: Azure WireServer, OCI, 6to4 of link-local and loopback, local NAT64
  'http://168.63.129.16/',
  'http://192.0.0.192/',
  'http://[2002:a9fe:a9fe::1]/',
  'http://[2002:7f00:1::]/',
  'http://[64:ff9b:1::a9fe:a9fe]/',
  'http://[64:ff9b:1::808:808]/',
];

const ALLOWED = [
  'http://example.com/',
  'http://93.184.215.14/',
  'http://10.0.0.1:10250/',
  'http://[2606:4700::1111]/',
];

describe('address guard: every spelling of the review table', () => {
  it.each(REFUSED)('refuses %s by default', async (url) => {
    expect(await verdict(url)).toBe('refused');
  });

  it.each(ALLOWED)('allows %s', async (url) => {
    expect(await verdict(url)).toBe('allowed');
  });

  it('lets loopback through only when allowed explicitly, and nothing else with it', async () => {
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://[::1]/',
      'http://localhost/',
      'http://[::ffff:127.0.0.1]/',
    ])
      expect(await verdict(url, LOOPBACK_CIDRS), url).toBe('allowed');
    for (const url of ['http://169.254.169.254/', 'http://0.0.0.0/', 'http://168.63.129.16/'])
      expect(await verdict(url, LOOPBACK_CIDRS), url).toBe('refused');
    expect(await verdict('http://168.63.129.16/', ['168.63.129.16/32'])).toBe('allowed');
  });

  it('names the reason', () => {
    expect(blockedAddressReason('127.0.0.1')).toBe('loopback');
    expect(blockedAddressReason('::1')).toBe('loopback');
    expect(blockedAddressReason('0.0.0.0')).toBe('unspecified');
    expect(blockedAddressReason('::')).toBe('unspecified');
    expect(blockedAddressReason('168.63.129.16')).toBe('cloud metadata');
    expect(blockedAddressReason('2002:a9fe:a9fe::')).toBe('cloud metadata (6to4)');
    expect(blockedAddressReason('2002:a9fe:101::')).toBe('link-local (6to4)');
    expect(blockedAddressReason('64:ff9b:1::1')).toBe('local NAT64');
  });

  it('reads CIDRs and refuses what is not one', () => {
    expect(parseCidr('10.0.0.0/8').prefix).toBe(8);
    expect(parseCidr('::1').prefix).toBe(128);
    expect(() => parseCidr('10.0.0.0/33')).toThrow(/is not a CIDR/);
    expect(() => parseCidr('example.com/8')).toThrow(/is not a CIDR/);
  });
});
