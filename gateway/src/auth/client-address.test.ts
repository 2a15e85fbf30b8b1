import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress, rateLimitAddress } from './client-address.js';

function request(remoteAddress: string | undefined, forwardedFor?: string): IncomingMessage {
  return { socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
}

describe('clientAddress', () => {
  it('uses the peer address and ignores X-Forwarded-For unless the proxy is trusted', () => {
    expect(clientAddress(request('10.0.0.7', '1.2.3.4'), false)).toBe('10.0.0.7');
  });

  it('takes the last X-Forwarded-For hop behind a trusted proxy, never the forgeable first one', () => {
    expect(clientAddress(request('10.0.0.7', '6.6.6.6, 203.0.113.9'), true)).toBe('203.0.113.9');
    expect(clientAddress(request('10.0.0.7', 'garbage'), true)).toBe('10.0.0.7');
    expect(clientAddress(request('10.0.0.7'), true)).toBe('10.0.0.7');
  });
});

describe('rateLimitAddress', () => {
  it('keeps IPv4 and unwraps IPv4-mapped IPv6', () => {
    expect(rateLimitAddress('192.0.2.1')).toBe('192.0.2.1');
    expect(rateLimitAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });

  it('groups IPv6 hosts of one /64 together', () => {
    expect(rateLimitAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitAddress('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(rateLimitAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateLimitAddress('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
