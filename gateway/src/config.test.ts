import { ConfigError } from '@inkwell/config';
import { KeyRing } from '@inkwell/testing';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config.js';

/** The INTERNAL_AUTH_* variables every test environment needs (test-only keys). */
const AUTH = KeyRing.generate(['gateway', 'users']).env('gateway');

describe('loadGatewayConfig', () => {
  it('has local defaults, with links on the bind address', () => {
    expect(loadGatewayConfig({ ...AUTH })).toEqual({
      host: '127.0.0.1',
      port: 8080,
      metricsPort: 9150,
      publicBaseUrl: 'http://127.0.0.1:8080',
      backends: { users: '127.0.0.1:50051', messaging: '127.0.0.1:50055', blog: '127.0.0.1:50054', stories: '127.0.0.1:50052', bookshelves: '127.0.0.1:50053', webhooks: '127.0.0.1:50056' },
      redis: { url: 'redis://127.0.0.1:6379' },
      idempotencyRedis: undefined,
      redisKeyPrefix: '',
      internalAuth: { keyId: AUTH.INTERNAL_AUTH_KEY_ID, privateKey: expect.anything(), trustedKeys: expect.any(Map) },
      grpcTls: undefined,
      logLevel: 'info',
      grpcDeadlineMs: 5000,
      shutdownDelayMs: 2000,
      shutdownGraceMs: 10000,
      rateLimit: { windowMs: 300_000, tokenMax: 1000, anonymousMax: 60 },
      callerShare: { inFlight: 4, waiting: 64, bytesPerSecond: 8 * 1024 * 1024 },
      credentials: { addressMax: 20, addressWindowMs: 60_000, signInMax: 5, signInWindowMs: 900_000 },
      tokenCache: { size: 10_000, ttlMs: 60_000 },
      trustProxy: false,
      cookieSecure: 'auto',
      sessionTtlSeconds: 86_400,
      benchNoAuth: false,
      cursorTtlSeconds: 3600,
      kafka: { brokers: ['127.0.0.1:19092'], namespace: '' },
      publicCache: { enabled: true, ttlMs: 60_000, maxEntries: 50_000, maxBytes: 256 * 1024 * 1024, listTtlMs: 200, feedTtlMs: 2_000 },
    });
  });

  it('takes rate limits, cache bounds and the cookie and proxy switches from the environment', () => {
    const config = loadGatewayConfig({ ...AUTH, RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_TOKEN_MAX: '5', RATE_LIMIT_ANONYMOUS_MAX: '2', TOKEN_CACHE_SIZE: '10', TRUST_PROXY: 'true', COOKIE_SECURE: 'false', BENCH_NOAUTH: '1' });
    expect(config).toMatchObject({ rateLimit: { windowMs: 60_000, tokenMax: 5, anonymousMax: 2 }, tokenCache: { size: 10 }, trustProxy: true, cookieSecure: false, benchNoAuth: true });
  });

  it('takes the public cache switch and bounds from the environment', () => {
    const config = loadGatewayConfig({ ...AUTH, PUBLIC_CACHE: 'false', PUBLIC_CACHE_TTL_SECONDS: '5', PUBLIC_CACHE_MAX_ENTRIES: '100', PUBLIC_LIST_CACHE_TTL_MS: '50', FEED_CACHE_TTL_MS: '750' });
    expect(config.publicCache).toEqual({ enabled: false, ttlMs: 5_000, maxEntries: 100, maxBytes: 256 * 1024 * 1024, listTtlMs: 50, feedTtlMs: 750 });
    expect(loadGatewayConfig({ ...AUTH, PUBLIC_CACHE_MAX_BYTES: '1048576' }).publicCache.maxBytes).toBe(1_048_576);
  });

  it('puts the idempotency store on a Redis of its own when IDEMPOTENCY_REDIS_URL names one', () => {
    expect(loadGatewayConfig({ ...AUTH, IDEMPOTENCY_REDIS_URL: 'redis://replays:6379' }).idempotencyRedis).toEqual({ url: 'redis://replays:6379' });
  });

  it('rejects a zero rate limit and a switch that is not a boolean', () => {
    expect(() => loadGatewayConfig({ ...AUTH, RATE_LIMIT_ANONYMOUS_MAX: '0', TRUST_PROXY: 'yes' })).toThrow(/RATE_LIMIT_ANONYMOUS_MAX[\s\S]*TRUST_PROXY|TRUST_PROXY[\s\S]*RATE_LIMIT_ANONYMOUS_MAX/);
  });

  it('takes the environment and strips a trailing slash from PUBLIC_BASE_URL', () => {
    const config = loadGatewayConfig({ ...AUTH, GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: '9000', GATEWAY_METRICS_PORT: '0', PUBLIC_BASE_URL: 'https://api.inkwell.example/', USERS_SERVICE_ADDR: 'users:50051' });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 9000, metricsPort: 0, publicBaseUrl: 'https://api.inkwell.example', backends: { users: 'users:50051' } });
  });

  it('reports every bad variable at once', () => {
    try {
      loadGatewayConfig({ ...AUTH, GATEWAY_PORT: '70000', PUBLIC_BASE_URL: 'ftp://x', USERS_SERVICE_ADDR: 'no-port', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const names = (error as ConfigError).problems.map((problem) => problem.split(':')[0]);
      expect(names).toEqual(expect.arrayContaining(['GATEWAY_PORT', 'PUBLIC_BASE_URL', 'USERS_SERVICE_ADDR', 'LOG_LEVEL']));
    }
  });

  it('requires the internal-auth key, its id and the trusted keys (no unsigned mode)', () => {
    try {
      loadGatewayConfig({});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const names = (error as ConfigError).problems.map((problem) => problem.split(':')[0]);
      expect(names.sort()).toEqual(['INTERNAL_AUTH_KEY_ID', 'INTERNAL_AUTH_PRIVATE_KEY', 'INTERNAL_AUTH_TRUSTED_KEYS']);
    }
  });
});
