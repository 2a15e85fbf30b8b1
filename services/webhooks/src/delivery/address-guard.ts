import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where deliveries may connect (docs/api/webhooks.md, "Outbound safety"): only public unicast
 * addresses, unless the URL's host is on the deployment's allowlist (WEBHOOK_ALLOWED_HOSTS, e.g.
 * 127.0.0.1 for local development and tests), which also permits plain http to it.
 */
export class AddressPolicy {
  readonly #allowedHosts: ReadonlySet<string>;

  /** `allowedHosts`: host names or IP literals, compared case-insensitively with the URL's host. */
  constructor(allowedHosts: Iterable<string> = []) {
    this.#allowedHosts = new Set([...allowedHosts].map(normalHost).filter((host) => host !== ''));
  }

  /** Whether `host` (a URL's hostname, IPv6 with or without brackets) is on the allowlist. */
  allowsHost(host: string): boolean {
    return this.#allowedHosts.has(normalHost(host));
  }

  /** Whether a connection to `address` (the resolved IP) may be made for a URL of `host`. */
  allowsAddress(host: string, address: string): boolean {
    return this.allowsHost(host) || isPublicAddress(address);
  }
}

/**
 * True only for a public unicast IP address: false for loopback, private (10/8, 172.16/12,
 * 192.168/16), link-local (169.254/16 with the metadata address 169.254.169.254, fe80::/10),
 * CGNAT (100.64/10), unspecified, broadcast, multicast, reserved and documentation ranges, IPv6
 * unique-local (fc00::/7), and every IPv6 form that embeds an IPv4 address (IPv4-mapped
 * ::ffff:a.b.c.d, judged as that IPv4 address; NAT64, 6to4, Teredo: refused), and for anything
 * that is not an IP address.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** A URL host as compared: lower case, IPv6 without brackets, no trailing dot. */
function normalHost(host: string): string {
  const trimmed = host.trim().toLowerCase().replace(/\.$/, '');
  return trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
}
