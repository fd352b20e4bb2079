/**
 * The address guard of external calls: it refuses link-local addresses and the well-known cloud
 * metadata endpoints, checking every address a hostname resolves to, so a Katalog template cannot
 * turn the operator into a proxy for instance credentials. Loopback and private ranges are allowed.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupAddress, LookupOptions } from 'node:dns';

/** ResolveHost returns every address a hostname resolves to (the shape of `dns.lookup` with `all: true`). */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

/** AddressGuardOptions configures the guard. */
export interface AddressGuardOptions {
  /** Allow link-local and metadata addresses (an explicit opt-in of the Katalog or the operator). Default false. */
  readonly allowLinkLocal?: boolean;
  /** Resolves hostnames; tests inject a fake. Default `dns.lookup(hostname, { all: true })`. */
  readonly resolve?: ResolveHost;
}

/** METADATA_HOSTNAMES are hostnames of cloud metadata services, refused by name before resolving. */
const METADATA_HOSTNAMES: readonly string[] = ['metadata.google.internal'];

const METADATA_ADDRESSES = new Set(['169.254.169.254', '100.100.100.200']);

/** BlockedAddressError says a request was refused by the address guard; `message` names the host and the address. */
export class BlockedAddressError extends Error {
  override readonly name: string = 'BlockedAddressError';
  /** The `ERR_BLOCKED_ADDRESS` code, for callers that test codes. */
  readonly code = 'ERR_BLOCKED_ADDRESS';
}

/** defaultResolve is the production ResolveHost: `dns.lookup` with `all: true`. */
const defaultResolve: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) =>
      error == null ? resolve(addresses) : reject(error),
    );
  });

/**
 * blockedAddressReason tells why an IP address is refused (`"link-local"`, `"cloud metadata"`), or
 * undefined when it is allowed. An IPv6 address that embeds an IPv4 address (IPv4-mapped
 * `::ffff:0:0/96`, IPv4-compatible `::/96`, SIIT-translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`),
 * in hex or dotted spelling, is checked as that IPv4 address.
 */
export function blockedAddressReason(address: string): string | undefined {
  let normalized = address.toLowerCase();
  if (normalized.startsWith('[') && normalized.endsWith(']')) normalized = normalized.slice(1, -1);
  const zone = normalized.indexOf('%');
  if (zone >= 0) normalized = normalized.slice(0, zone);
  const family = isIP(normalized);
  if (family === 4) return blockedIpv4Reason(normalized);
  if (family !== 6) return undefined;
  const groups = ipv6Groups(normalized);
  if (groups == null) return undefined;
  const embedded = embeddedIpv4(groups);
  if (embedded != null) return blockedIpv4Reason(embedded);
  if (groups.every((g, i) => g === METADATA_IPV6[i])) return 'cloud metadata';
  // fe80::/10: the first 10 bits are 1111 1110 10.
  return ((groups[0] ?? 0) & 0xffc0) === 0xfe80 ? 'link-local' : undefined;
}

/** The AWS IPv6 metadata endpoint `fd00:ec2::254` as eight 16-bit groups. */
const METADATA_IPV6: readonly number[] = [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254];

function blockedIpv4Reason(address: string): string | undefined {
  if (METADATA_ADDRESSES.has(address)) return 'cloud metadata';
  return address.startsWith('169.254.') ? 'link-local' : undefined;
}

/**
 * embeddedIpv4 returns the dotted IPv4 address an IPv6 address carries in its last 32 bits when its
 * first 96 bits are one of the prefixes that reach that IPv4 host: `::ffff:0:0/96` (mapped),
 * `::/96` (compatible, deprecated but still routed by some stacks), `::ffff:0:0:0/96` (SIIT
 * translated) and `64:ff9b::/96` (the NAT64 well-known prefix).
 */
function embeddedIpv4(groups: readonly number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const zeroTo = (end: number): boolean => groups.slice(0, end).every((g) => g === 0);
  const mapped = zeroTo(5) && g5 === 0xffff;
  const compatible = zeroTo(6);
  const translated = zeroTo(4) && g4 === 0xffff && g5 === 0;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (!mapped && !compatible && !translated && !nat64) return undefined;
  return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.');
}

/**
 * ipv6Groups expands an IPv6 address that `isIP` accepted (no brackets, no zone) into its eight
 * 16-bit groups; a trailing dotted IPv4 part counts as the last two groups.
 */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 != null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' || halves[0] == null ? [] : halves[0].split(':');
  const tail = halves.length === 2 && halves[1] !== '' && halves[1] != null ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail].map((g) =>
    /^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : Number.NaN,
  );
  return groups.some((g) => Number.isNaN(g)) ? undefined : groups;
}

/**
 * AddressGuard checks URLs and resolved addresses against the link-local and metadata block list.
 * `check` resolves the hostname and checks every address; `lookup` is a `dns.lookup`-compatible
 * function for `http.request`, so the address actually connected to is checked too (no window for
 * DNS rebinding between the check and the connection).
 */
export class AddressGuard {
  readonly #allow: boolean;
  readonly #resolve: ResolveHost;

  constructor(options: AddressGuardOptions = {}) {
    this.#allow = options.allowLinkLocal ?? false;
    this.#resolve = options.resolve ?? defaultResolve;
  }

  /** allowLinkLocal tells whether the guard is switched off. */
  get allowLinkLocal(): boolean {
    return this.#allow;
  }

  /** check resolves the URL's host and throws a BlockedAddressError when any address is refused. */
  async check(url: URL): Promise<void> {
    if (this.#allow) return;
    await this.#addressesOf(url.hostname);
  }

  /**
   * addresses resolves the URL's host, throws a BlockedAddressError when any address is refused,
   * and returns the addresses it checked, so a caller that cannot use `lookup` (a child process
   * such as git) can connect to exactly those. Undefined when the guard is off.
   */
  async addresses(url: URL): Promise<readonly LookupAddress[] | undefined> {
    if (this.#allow) return undefined;
    return this.#addressesOf(url.hostname);
  }

  /**
   * precheck refuses, without resolving, an IP-literal host that is blocked or a metadata hostname.
   * `http.request` does not call `lookup` for IP literals, so callers using `lookup` run this first.
   */
  precheck(url: URL): void {
    if (this.#allow) return;
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (isIP(host) !== 0) this.#checkAddress(url.hostname, host);
    else this.#checkName(url.hostname);
  }

  /** lookup is a `dns.lookup` replacement for `http.request` that refuses blocked addresses. */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    this.#addressesOf(hostname).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        const first = wanted[0];
        if (first == null) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        } else if (options.all === true) callback(null, [...wanted]);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ''),
    );
  };

  async #addressesOf(hostname: string): Promise<readonly LookupAddress[]> {
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const family = isIP(host);
    if (family !== 0) {
      this.#checkAddress(hostname, host);
      return [{ address: host, family }];
    }
    this.#checkName(hostname);
    const addresses = await this.#resolve(host);
    for (const { address } of addresses) this.#checkAddress(hostname, address);
    return addresses;
  }

  #checkName(hostname: string): void {
    const bare = hostname.toLowerCase().replace(/\.$/, '');
    if (!this.#allow && METADATA_HOSTNAMES.includes(bare)) {
      throw new BlockedAddressError(
        `refused ${hostname}: cloud metadata host (allow link-local addresses to call it)`,
      );
    }
  }

  #checkAddress(hostname: string, address: string): void {
    if (this.#allow) return;
    const reason = blockedAddressReason(address);
    if (reason == null) return;
    const via = hostname === address || hostname === `[${address}]` ? '' : ` (resolved from ${hostname})`;
    throw new BlockedAddressError(
      `refused ${address}${via}: ${reason} address (allow link-local addresses to call it)`,
    );
  }
}
