import { randomBytes } from 'node:crypto';
import { encodeRevocationNotice, hashToken, REVOCATION_CHANNEL } from '@inkwell/auth-tokens';
import { createLogger } from '@inkwell/logging';
import { createRedis, type Redis } from '@inkwell/redis';
import { eventually, stackEnv } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeToRevocations, type RevocationSubscription } from '../src/auth/revocation.subscriber.js';

const name = `revocation-test-${randomBytes(4).toString('hex')}`;
let parent: Redis;
let publisher: Redis;
let subscription: RevocationSubscription;
const revoked: string[][] = [];
let gaps = 0;

beforeAll(async () => {
  const url = stackEnv().redisUrl;
  parent = createRedis(url, { connectionName: name });
  publisher = createRedis(url);
  subscription = subscribeToRevocations(parent, { revoked: (hashes) => revoked.push([...hashes]), gap: () => gaps++ }, createLogger('revocation-test', { level: 'silent' }));
  await subscription.subscribed;
});

afterAll(async () => {
  await subscription?.close();
  await parent?.quit();
  await publisher?.quit();
});

describe('the revocation subscription', () => {
  it('reports the hashes of every notice on the channel and ignores malformed ones', async () => {
    const hashes = [hashToken('one'), hashToken('two')];
    await publisher.publish(REVOCATION_CHANNEL, 'not json');
    await publisher.publish(REVOCATION_CHANNEL, encodeRevocationNotice(hashes));
    await eventually(() => revoked.length > 0);
    expect(revoked).toEqual([hashes]);
  });

  it('after losing its connection it reconnects, reports a gap (drop the cache) and hears notices again', async () => {
    const clients = (await publisher.client('LIST')) as string;
    const line = clients.split('\n').find((entry) => entry.includes(`name=${name}`) && / sub=1 /.test(` ${entry} `));
    const id = /(?:^|\s)id=(\d+)/.exec(line ?? '')?.[1];
    expect(id).toBeDefined();
    await publisher.client('KILL', 'ID', id as string);
    await eventually(() => gaps === 1);

    // The renewed SUBSCRIBE may land a moment after 'ready': publish until the notice is heard.
    const hash = hashToken('three');
    await eventually(
      async () => {
        if (revoked.some((hashes) => hashes.includes(hash))) return true;
        await publisher.publish(REVOCATION_CHANNEL, encodeRevocationNotice([hash]));
        return false;
      },
      { timeoutMs: 5_000, what: 'the renewed subscription to hear a notice' },
    );
    expect(revoked.at(-1)).toEqual([hash]);
  });
});
