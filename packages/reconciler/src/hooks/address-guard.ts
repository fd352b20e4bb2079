/**
 * The address guard of outbound calls (docs/reference/runtime.md §14.4): it refuses loopback,
 * unspecified and link-local addresses and the well-known cloud metadata endpoints (AWS, GCP,
 * Alibaba, Azure WireServer, OCI), in every spelling (IPv4-embedding IPv6 forms, 6to4, NAT64,
 * `localhost` names), checking every address a hostname resolves to, so a Katalog template cannot
 * turn the operator into a proxy for instance credentials or for its own local servers. Private
 * ranges are allowed; `allowAddresses` (CIDRs, `--allow-private-addresses`) lets named ranges through.
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
  /** CIDRs let through even when refused by default (`--allow-private-addresses`), e.g. `127.0.0.0/8`. Default none. */
  readonly allowAddresses?: readonly string[];
}

/** LOOPBACK_CIDRS is the allowance `ork dev` and tests with local servers give explicitly. */
export const LOOPBACK_CIDRS: readonly string[] = ['127.0.0.0/8', '::1/128'];

/** CidrError reports an allowance that is not `<address>/<prefix>`. */
class CidrError extends Error {
  override readonly name = 'CidrError';
  readonly code = 'InvalidCidr';
}

interface Cidr {
  readonly bytes: readonly number[];
  readonly prefix: number;
}

/** addressBytes returns the 4 or 16 bytes of an IP address, or undefined. */
function addressBytes(address: string): number[] | undefined {
  const family = isIP(address);
  if (family === 4) return address.split('.').map(Number);
  if (family !== 6) return undefined;
  const groups = ipv6Groups(address.toLowerCase());
  return groups?.flatMap((g) => [g >> 8, g & 0xff]);
}

/** parseCidr reads `10.0.0.0/8`, `::1/128` or a bare address (a /32 or /128); throws CidrError. */
export function parseCidr(text: string): Cidr {
  const [address = '', prefixText] = text.trim().split('/');
  const bytes = addressBytes(address.replace(/^\[|\]$/g, ''));
  const prefix = prefixText == null ? (bytes?.length ?? 0) * 8 : Number(prefixText);
  if (
    bytes == null ||
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > bytes.length * 8 ||
    prefixText === ''
  ) {
    throw new CidrError(`"${text}" is not a CIDR (examples: 10.0.0.0/8, 127.0.0.1/32, fd00::/8)`);
  }
  return { bytes, prefix };
}

function inCidr(bytes: readonly number[], cidr: Cidr): boolean {
  if (bytes.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.prefix; bit++) {
    const mask = 0x80 >> (bit % 8);
    if (((bytes[bit >> 3] ?? 0) & mask) !== ((cidr.bytes[bit >> 3] ?? 0) & mask)) return false;
  }
  return true;
}

/** METADATA_HOSTNAMES are hostnames of cloud metadata services, refused by name before resolving. */
const METADATA_HOSTNAMES: readonly string[] = ['metadata.google.internal'];

/** AWS/GCP, Alibaba, Azure WireServer, OCI. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '100.100.100.200', '168.63.129.16', '192.0.0.192']);

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
  if (groups.every((g, i) => g === (i === 7 ? 1 : 0))) return 'loopback';
  if (groups.every((g) => g === 0)) return 'unspecified';
  // 64:ff9b:1::/48, the local-use NAT64 prefix (RFC 8215): whatever it reaches is local policy.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return 'local NAT64';
  // 2002::/16 (6to4) carries an IPv4 address in its next 32 bits.
  if (groups[0] === 0x2002) {
    const [, hi = 0, lo = 0] = groups;
    const reason = blockedIpv4Reason([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.'));
    if (reason != null) return `${reason} (6to4)`;
  }
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
  if (address.startsWith('127.')) return 'loopback';
  if (address.startsWith('0.')) return 'unspecified';
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
  readonly #allowed: readonly Cidr[];

  constructor(options: AddressGuardOptions = {}) {
    this.#allow = options.allowLinkLocal ?? false;
    this.#resolve = options.resolve ?? defaultResolve;
    this.#allowed = (options.allowAddresses ?? []).map(parseCidr);
  }

  #allowedAddress(address: string): boolean {
    if (this.#allowed.length === 0) return false;
    const bytes = addressBytes(address.toLowerCase());
    if (bytes == null) return false;
    const groups = bytes.length === 16 ? ipv6Groups(address.toLowerCase()) : undefined;
    const embedded = groups == null ? undefined : embeddedIpv4(groups);
    const v4 = embedded == null ? undefined : embedded.split('.').map(Number);
    return this.#allowed.some((cidr) => inCidr(bytes, cidr) || (v4 != null && inCidr(v4, cidr)));
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
    // `localhost` and `*.localhost` are loopback by definition (RFC 6761), whatever DNS says.
    if (
      !this.#allow &&
      (bare === 'localhost' || bare.endsWith('.localhost')) &&
      !this.#allowedAddress('127.0.0.1')
    ) {
      throw new BlockedAddressError(
        `refused ${hostname}: loopback host (allow it with --allow-private-addresses=127.0.0.0/8)`,
      );
    }
  }

  #checkAddress(hostname: string, address: string): void {
    if (this.#allow) return;
    const reason = blockedAddressReason(address);
    if (reason == null || this.#allowedAddress(address)) return;
    const via = hostname === address || hostname === `[${address}]` ? '' : ` (resolved from ${hostname})`;
    throw new BlockedAddressError(
      `refused ${address}${via}: ${reason} address (${/link-local|metadata/.test(reason) ? 'allow link-local addresses to call it' : 'allow it with --allow-private-addresses=<CIDR>'})`,
    );
  }
}
