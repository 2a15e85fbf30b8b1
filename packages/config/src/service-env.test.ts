import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configProblems, loadConfig, serviceAddress, serviceEnv } from './index.js';

const keys = generateKeyPairSync('ed25519');
const required = {
  DATABASE_URL: 'postgres://inkwell_blog@db/inkwell',
  INTERNAL_AUTH_PRIVATE_KEY: String(keys.privateKey.export({ type: 'pkcs8', format: 'pem' })),
  INTERNAL_AUTH_KEY_ID: 'blog-1',
  INTERNAL_AUTH_TRUSTED_KEYS: JSON.stringify({ gateway: [{ kid: 'gateway-1', publicKey: String(keys.publicKey.export({ type: 'spki', format: 'pem' })) }] }),
};

describe('serviceEnv', () => {
  const blog = serviceEnv('BLOG', { grpc: 50054, metrics: 9154 }, { redis: true, markdown: true }, { EXTRA: z.string().default('x') });
  const plain = serviceEnv('SHELVES', { grpc: 50053, metrics: 9153 }, { redis: false, markdown: false }, {});

  it('reads the common variables, the service’s own address and metrics port, and its own variables', () => {
    const config = loadConfig(blog, { ...required, BLOG_GRPC_PORT: '6000' });
    expect(config).toMatchObject({ BLOG_GRPC_HOST: '127.0.0.1', BLOG_GRPC_PORT: 6000, BLOG_METRICS_PORT: 9154, KAFKA_BROKERS: ['127.0.0.1:19092'], REDIS_URL: 'redis://127.0.0.1:6379', EXTRA: 'x', GRPC_HEALTH_PORT: 0 });
  });

  it('reads Redis and the Markdown render pool only when the service uses them', () => {
    expect(loadConfig(blog, { ...required, MARKDOWN_RENDER_WORKERS: '3' }).MARKDOWN_RENDER_WORKERS).toBe(3);
    expect(loadConfig(plain, { ...required, MARKDOWN_RENDER_WORKERS: 'x', REDIS_URL: 'x' })).not.toHaveProperty('REDIS_URL');
    expect(configProblems(blog, { ...required, MARKDOWN_RENDER_WORKERS: 'x' })[0]).toMatch(/^MARKDOWN_RENDER_WORKERS:/);
  });

  it('checks the variables together: Kafka, gRPC TLS and Redis', () => {
    expect(configProblems(blog, { ...required, KAFKA_SASL_USERNAME: 'u' })).toEqual(['KAFKA_SASL_USERNAME: needs KAFKA_SASL_MECHANISM']);
    expect(configProblems(plain, { ...required, GRPC_TLS_CERT: '/nonexistent.pem' }).map((line) => line.split(':')[0])).toContain('GRPC_TLS_CERT');
    // Any readable file does as a CA bundle here: the check is that TLS is on at all.
    expect(configProblems(blog, { ...required, REDIS_TLS_CA_FILE: fileURLToPath(import.meta.url) })).toEqual(['REDIS_TLS_CA_FILE: needs a rediss:// REDIS_URL']);
    expect(configProblems(blog, {})).toEqual(expect.arrayContaining([expect.stringMatching(/^DATABASE_URL:/), expect.stringMatching(/^INTERNAL_AUTH_PRIVATE_KEY:/)]));
  });
});

describe('serviceAddress', () => {
  it('takes host:port and [ipv6]:port, nothing else', () => {
    expect(serviceAddress.safeParse('users:50051').success).toBe(true);
    expect(serviceAddress.safeParse('[::1]:50051').success).toBe(true);
    expect(serviceAddress.safeParse('users').success).toBe(false);
  });
});
