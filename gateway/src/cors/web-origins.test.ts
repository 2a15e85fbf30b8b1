import type { ServerResponse } from 'node:http';
import { AppError, ErrorCode } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { varyByOrigin } from './cors.rules.js';
import { WebOrigins, type WebOriginsUsersClient } from './web-origins.js';

/** A users service that knows one app, counts its calls, and can be made to fail. */
function fakeUsers(state: { down: boolean; calls: string[] }): WebOriginsUsersClient {
  return {
    getClient: async ({ clientId }) => {
      state.calls.push(`getClient ${clientId}`);
      if (state.down) throw new AppError(ErrorCode.UNAVAILABLE, 'down');
      if (clientId !== 'reader') throw AppError.notFound('client');
      return { client: { id: 'reader', allowedOrigins: ['https://reader.example'] } } as never;
    },
    checkWebOrigin: async ({ origin }) => {
      state.calls.push(`checkWebOrigin ${origin}`);
      if (state.down) throw new AppError(ErrorCode.UNAVAILABLE, 'down');
      return { registered: origin === 'https://reader.example' } as never;
    },
  } as WebOriginsUsersClient;
}

describe('WebOrigins (docs/api/auth.md, "Browser apps (CORS)")', () => {
  it("allows an app's own origins only, and remembers answers for the TTL", async () => {
    const state = { down: false, calls: [] as string[] };
    let now = 0;
    const origins = new WebOrigins(fakeUsers(state), { ttlMs: 1_000 }, () => now);
    expect(await origins.allowsApp('reader', 'https://reader.example')).toBe(true);
    expect(await origins.allowsApp('reader', 'https://other.example')).toBe(false);
    expect(await origins.allowsApp('unknown', 'https://reader.example')).toBe(false);
    expect(await origins.allowsApp('unknown', 'https://reader.example')).toBe(false);
    expect(state.calls).toEqual(['getClient reader', 'getClient unknown']);
    now = 1_001;
    await origins.allowsApp('reader', 'https://reader.example');
    expect(state.calls).toHaveLength(3);
  });

  it('answers preflight questions from memory when it can, and never asks about a malformed origin', async () => {
    const state = { down: false, calls: [] as string[] };
    const origins = new WebOrigins(fakeUsers(state));
    expect(origins.knownAnyAppAllows('https://reader.example')).toBeUndefined();
    expect(await origins.anyAppAllows('https://reader.example')).toBe(true);
    expect(origins.knownAnyAppAllows('https://reader.example')).toBe(true);
    for (const malformed of ['null', 'https://reader.example/', 'HTTPS://READER.EXAMPLE', 'file://x', 'https://reader.example:443']) {
      expect(origins.knownAnyAppAllows(malformed), malformed).toBe(false);
      expect(await origins.anyAppAllows(malformed), malformed).toBe(false);
    }
    expect(state.calls).toEqual(['checkWebOrigin https://reader.example']);
  });

  it('fails closed and remembers nothing while the users service is down', async () => {
    const state = { down: true, calls: [] as string[] };
    const origins = new WebOrigins(fakeUsers(state));
    expect(await origins.allowsApp('reader', 'https://reader.example')).toBe(false);
    expect(await origins.anyAppAllows('https://reader.example')).toBe(false);
    state.down = false;
    expect(await origins.allowsApp('reader', 'https://reader.example')).toBe(true);
    expect(await origins.anyAppAllows('https://reader.example')).toBe(true);
  });

  it('adds Origin to Vary once, keeping what is there', () => {
    const headers = new Map<string, unknown>([['Vary', 'Authorization']]);
    const res = { getHeader: (name: string) => headers.get(name), setHeader: (name: string, value: unknown) => headers.set(name, value) } as unknown as ServerResponse;
    varyByOrigin(res);
    varyByOrigin(res);
    expect(headers.get('Vary')).toBe('Authorization, Origin');
  });
});
