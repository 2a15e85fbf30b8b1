import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { generateToken, hashToken } from '@inkwell/auth-tokens';
import { AppError, ErrorCode } from '@inkwell/errors';
import { AccessTokenSchema, GetAccessTokenResponseSchema, type GetAccessTokenResponse } from '@inkwell/proto/users';
import { describe, expect, it } from 'vitest';
import { AccessTokenResolver, looksLikeAccessToken, type AccessTokenResolverOptions } from './access-token.resolver.js';

/** A users service stand-in that knows some tokens and counts lookups (the resolver's logic is under test, not gRPC). */
function usersKnowing(tokens: Record<string, { userId?: string; clientId?: string; scopes?: string[]; expiresAtMs?: number }>) {
  const calls: string[] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const users: AccessTokenResolverOptions['users'] = {
    async getAccessToken({ accessToken }) {
      calls.push(accessToken as string);
      if (gate !== undefined) await gate;
      const known = tokens[accessToken as string];
      if (known === undefined) throw new AppError(ErrorCode.UNAUTHENTICATED, 'unknown', { details: [{ reason: 'invalid_token' }] });
      return create(GetAccessTokenResponseSchema, {
        token: create(AccessTokenSchema, {
          tokenId: '1',
          userId: known.userId,
          clientId: known.clientId ?? '',
          scopes: known.scopes ?? [],
          ...(known.expiresAtMs === undefined ? {} : { expiresAt: timestampFromMs(known.expiresAtMs) }),
        }),
      }) as GetAccessTokenResponse;
    },
  };
  return {
    users,
    calls,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release() {
      gate = undefined;
      release?.();
    },
  };
}

describe('AccessTokenResolver', () => {
  const token = generateToken('accessToken');

  it('answers from the cache without another lookup, synchronously', async () => {
    const backend = usersKnowing({ [token]: { userId: '7', clientId: 'app', scopes: ['read_user'], expiresAtMs: Date.now() + 3_600_000 } });
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000 });
    const first = await resolver.resolve(token);
    expect(first).toMatchObject({ userId: '7', appId: 'app', scopes: ['read_user'], hash: hashToken(token), rateKey: 'u:7' });
    const second = resolver.resolve(token);
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toBe(first);
    expect(backend.calls).toHaveLength(1);
  });

  it('counts every token on its principal: the user (personal or through any app), or the app for app-only tokens', async () => {
    const [personal, throughApp, otherApp, appOnly] = [1, 2, 3, 4].map(() => generateToken('accessToken')) as [string, string, string, string];
    const hour = Date.now() + 3_600_000;
    const backend = usersKnowing({
      [personal]: { userId: '7', expiresAtMs: hour },
      [throughApp]: { userId: '7', clientId: 'reader', expiresAtMs: hour },
      [otherApp]: { userId: '7', clientId: 'library', expiresAtMs: hour },
      [appOnly]: { clientId: 'reader', expiresAtMs: hour },
    });
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000 });
    const keys = await Promise.all([personal, throughApp, otherApp, appOnly].map(async (one) => (await resolver.resolve(one))?.rateKey));
    expect(keys).toEqual(['u:7', 'u:7', 'u:7', 'app:reader']);
  });

  it('rejects tokens of the wrong shape without any lookup', () => {
    const backend = usersKnowing({});
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000 });
    for (const bad of ['abc', `iwk_rt_${'a'.repeat(43)}`, 'iwk_at_short', `iwk_at_${'a'.repeat(43)}!`]) expect(resolver.resolve(bad)).toBeNull();
    expect(backend.calls).toHaveLength(0);
    expect(looksLikeAccessToken(generateToken('personalToken'))).toBe(true);
  });

  it('remembers unknown tokens too, so repeating one costs no lookup', async () => {
    const backend = usersKnowing({});
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000 });
    expect(await resolver.resolve(token)).toBeNull();
    expect(resolver.resolve(token)).toBeNull();
    expect(backend.calls).toHaveLength(1);
  });

  it('keeps a valid token cached (no new lookup) through 20,000 distinct unknown tokens: they only evict each other', async () => {
    const backend = usersKnowing({ [token]: { userId: '7', expiresAtMs: Date.now() + 3_600_000 } });
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 100, ttlMs: 60_000 });
    await resolver.resolve(token);
    for (let i = 0; i < 20_000; i++) expect(await resolver.resolve(generateToken('accessToken'))).toBeNull();
    expect(backend.calls).toHaveLength(20_001);
    expect(resolver.negativeCacheSize).toBe(100);
    const again = resolver.resolve(token);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toMatchObject({ userId: '7' });
    expect(backend.calls).toHaveLength(20_001);
  });

  it('tells a cache miss apart without looking anything up, so the caller can count the request first', async () => {
    const backend = usersKnowing({ [token]: { userId: '7' } });
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000 });
    const unknown = generateToken('personalToken');
    expect(resolver.cached(token)).toBeUndefined();
    expect(resolver.cached(unknown)).toBeUndefined();
    expect(resolver.cached('garbage')).toBeNull();
    expect(backend.calls).toHaveLength(0);
    await resolver.lookUp(token);
    await resolver.lookUp(unknown);
    expect(resolver.cached(token)).toMatchObject({ userId: '7' });
    expect(resolver.cached(unknown)).toBeNull();
    expect(backend.calls).toHaveLength(2);
  });

  it('never serves a token past its expiry, nor past the cache TTL', async () => {
    let now = 1_000_000;
    const backend = usersKnowing({ [token]: { userId: '7', expiresAtMs: now + 5_000 } });
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000, now: () => now });
    expect(await resolver.resolve(token)).not.toBeNull();
    now += 5_000;
    expect(await resolver.resolve(token)).toBeNull();
    expect(backend.calls).toHaveLength(2);

    const other = generateToken('personalToken');
    const withoutExpiry = usersKnowing({ [other]: { userId: '8' } });
    const patient = new AccessTokenResolver({ users: withoutExpiry.users, cacheSize: 10, ttlMs: 60_000, now: () => now });
    await patient.resolve(other);
    now += 59_999;
    expect(patient.resolve(other)).not.toBeInstanceOf(Promise);
    now += 1;
    expect(patient.resolve(other)).toBeInstanceOf(Promise);
  });

  it('makes one lookup for concurrent misses of one token', async () => {
    const backend = usersKnowing({ [token]: { userId: '7' } });
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000 });
    backend.hold();
    const pending = [resolver.resolve(token), resolver.resolve(token), resolver.resolve(token)];
    backend.release();
    const results = await Promise.all(pending);
    expect(results.every((result) => result?.userId === '7')).toBe(true);
    expect(backend.calls).toHaveLength(1);
  });

  it('forgets evicted tokens, and does not cache a lookup that a revocation overtook', async () => {
    const backend = usersKnowing({ [token]: { userId: '7' } });
    const resolver = new AccessTokenResolver({ users: backend.users, cacheSize: 10, ttlMs: 60_000 });
    await resolver.resolve(token);
    resolver.evict([hashToken(token)]);
    expect(resolver.resolve(token)).toBeInstanceOf(Promise);

    const racing = generateToken('accessToken');
    const slow = usersKnowing({ [racing]: { userId: '9' } });
    const raced = new AccessTokenResolver({ users: slow.users, cacheSize: 10, ttlMs: 60_000 });
    slow.hold();
    const inFlight = raced.resolve(racing);
    raced.evict([hashToken(racing)]);
    slow.release();
    expect((await inFlight)?.userId).toBe('9');
    expect(raced.resolve(racing)).toBeInstanceOf(Promise);
    expect(raced.cacheSize).toBe(0);
  });

  it('passes other failures on without caching them', async () => {
    const users: AccessTokenResolverOptions['users'] = {
      getAccessToken: async () => {
        throw new AppError(ErrorCode.UNAVAILABLE, 'down');
      },
    };
    const resolver = new AccessTokenResolver({ users, cacheSize: 10, ttlMs: 60_000 });
    await expect(resolver.resolve(token)).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(resolver.cacheSize).toBe(0);
  });
});
