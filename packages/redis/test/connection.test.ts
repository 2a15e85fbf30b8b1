import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, pingRedis, redisClientOptions, type Redis } from '../src/index.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('redisClientOptions', () => {
  it('adds nothing to a plain redis:// URL', () => {
    expect(redisClientOptions('redis://u:p@redis:6379/1')).toEqual({});
    expect(redisClientOptions({ url: 'redis://redis:6379' })).toEqual({});
  });

  it('checks a rediss:// server by its host name, against the given CA bundle or the system CAs', () => {
    expect(redisClientOptions({ url: 'rediss://u:p@redis.internal:6380', tlsCa: 'PEM' })).toEqual({ tls: { servername: 'redis.internal', ca: ['PEM'] } });
    expect(redisClientOptions('rediss://redis.internal:6380')).toEqual({ tls: { servername: 'redis.internal' } });
  });

  it('leaves user, password and database to the URL, as ioredis reads them', () => {
    const client = createRedis({ url: 'rediss://inkwell-users:s%40cret@redis.internal:6380/2', tlsCa: 'PEM' }, { lazyConnect: true });
    expect(client.options).toMatchObject({ host: 'redis.internal', port: 6380, username: 'inkwell-users', password: 's@cret', db: 2, tls: { servername: 'redis.internal', ca: ['PEM'] } });
    client.disconnect();
  });
});

describe('an ACL user in the URL', () => {
  const user = `inkwell-test-${randomUUID().slice(0, 8)}`;
  const password = randomUUID();
  let admin: Redis;

  beforeAll(async () => {
    admin = createRedis(url);
    // A user limited to its own keys, as a managed Redis would give each process.
    await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, `~${user}:*`, '+@all');
  });

  afterAll(async () => {
    await admin.call('ACL', 'DELUSER', user);
    await admin.quit();
  });

  function as(name: string, secret: string): Redis {
    const target = new URL(url);
    target.username = name;
    target.password = secret;
    return createRedis(target.toString(), { retryStrategy: () => null });
  }

  it('signs in as that user and is held to its key pattern', async () => {
    const client = as(user, password);
    try {
      await client.set(`${user}:k`, 'v', 'EX', 10);
      expect(await client.get(`${user}:k`)).toBe('v');
      await expect(client.get('someone-else:k')).rejects.toThrow(/NOPERM/);
    } finally {
      client.disconnect();
    }
  });

  it('is refused with a wrong password', async () => {
    const client = as(user, 'wrong');
    try {
      expect(await pingRedis(client, 1_000)).toBe(false);
    } finally {
      client.disconnect();
    }
  });
});
