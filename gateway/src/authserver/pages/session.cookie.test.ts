import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readCookie, sessionCookie } from './session.cookie.js';

function request(headers: Record<string, string>, encrypted = false): IncomingMessage {
  return { headers, socket: { encrypted } } as unknown as IncomingMessage;
}

describe('session cookie', () => {
  it('reads one cookie among several', () => {
    expect(readCookie(request({ cookie: 'a=1; inkwell_session=abc; b=2' }), 'inkwell_session')).toBe('abc');
    expect(readCookie(request({ cookie: 'a=1' }), 'inkwell_session')).toBeUndefined();
    expect(readCookie(request({}), 'inkwell_session')).toBeUndefined();
  });

  it('is HttpOnly and SameSite=Lax, and Secure only when configured or behind TLS', () => {
    const plain = { secure: 'auto', publicHttps: false, trustProxy: false } as const;
    expect(sessionCookie('v', 60, request({}), plain)).toBe('inkwell_session=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax');
    expect(sessionCookie('v', 60, request({}), { ...plain, publicHttps: true })).toMatch(/; Secure$/);
    expect(sessionCookie('v', 60, request({}, true), plain)).toMatch(/; Secure$/);
    expect(sessionCookie('v', 60, request({ 'x-forwarded-proto': 'https' }), plain)).not.toMatch(/Secure/);
    expect(sessionCookie('v', 60, request({ 'x-forwarded-proto': 'https' }), { ...plain, trustProxy: true })).toMatch(/; Secure$/);
    expect(sessionCookie('v', 60, request({}, true), { ...plain, secure: false })).not.toMatch(/Secure/);
    expect(sessionCookie('v', 60, request({}), { ...plain, secure: true })).toMatch(/; Secure$/);
  });
});
