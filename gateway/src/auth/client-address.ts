import { isIPv4, isIPv6 } from 'node:net';
import type { IncomingMessage } from 'node:http';

/**
 * The address a request's anonymous rate-limit window is keyed by. Without `trustProxy` it is the
 * peer address of the connection. Behind a proxy (`trustProxy`), it is the last entry of
 * `X-Forwarded-For` (the address that proxy saw; earlier entries are the client's word and
 * could be forged), falling back to the peer address when the header is absent or not an IP.
 *
 * IPv6 addresses are reduced to their /64 network (a host usually owns a whole /64, so keying
 * by full address would let it rotate through windows); IPv4-mapped IPv6 addresses
 * (`::ffff:1.2.3.4`) become the IPv4 address.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const header = Array.isArray(forwarded) ? forwarded[forwarded.length - 1] : forwarded;
    if (header !== undefined) {
      const last = header.slice(header.lastIndexOf(',') + 1).trim();
      if (isIPv4(last) || isIPv6(last)) return rateLimitAddress(last);
    }
  }
  return rateLimitAddress(req.socket.remoteAddress ?? 'unknown');
}

/** An IP address as a rate-limit key: IPv4 as is, IPv4-mapped IPv6 as IPv4, other IPv6 as its /64 prefix. */
export function rateLimitAddress(address: string): string {
  if (!address.includes(':')) return address;
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && isIPv4(lower.slice(7))) return lower.slice(7);
  const zone = lower.indexOf('%');
  const plain = zone === -1 ? lower : lower.slice(0, zone);
  return `${expandIPv6(plain).slice(0, 4).join(':')}::/64`;
}

/** The eight hextets of an IPv6 address (without zone), without leading zeros; a malformed one is returned as one group. */
function expandIPv6(address: string): string[] {
  const halves = address.split('::');
  if (halves.length > 2) return [address];
  const head = halves[0] === '' ? [] : (halves[0] as string).split(':');
  const tail = halves.length === 2 && halves[1] !== '' ? (halves[1] as string).split(':') : [];
  if (tail.length > 0 && (tail[tail.length - 1] as string).includes('.')) tail.splice(-1, 1, '0', '0');
  const missing = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(Math.max(missing, 0)).fill('0'), ...tail];
  return groups.map((group) => group.replace(/^0+(?=.)/, ''));
}
