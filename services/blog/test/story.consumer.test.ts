import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventConsumer, EventPayloadInit } from '@inkwell/events';
import { StorySnapshotSchema } from '@inkwell/proto/stories';
import { createTestTopics, eventually, type TestTopics } from '@inkwell/testing';
import { createStoryConsumer } from '../src/consumers/story.consumer.js';
import { logger, startBlogHarness, user, type BlogHarness } from './support.js';


function storyEvent(kind: 'storyCreated' | 'storyUpdated' | 'storyDeleted', storyId: string, published: boolean): EventPayloadInit {
  const story = create(StorySnapshotSchema, { storyId, authorId: '1', title: 'A story', published });
  return { case: kind, value: { story } } as EventPayloadInit;
}

describe('the stories consumer keeps the blog’s copy of published stories', () => {
  let h: BlogHarness;
  let kafka: TestTopics;
  let topic: string;
  let consumer: EventConsumer;

  beforeAll(async () => {
    h = await startBlogHarness('inkwell_test_blog_consumer');
    kafka = await createTestTopics('blog-consumer', ['stories']);
    topic = kafka.topics[0]!;
    consumer = createStoryConsumer({ kafka: kafka.kafka, pool: h.pool, logger, topics: [topic], groupId: kafka.groupId });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await kafka?.close();
    await h?.close();
  });

  const send = (payload: EventPayloadInit, key: string, occurredAt: Date, eventId: string = randomUUID()) => kafka.sendEvent(topic, key, payload, { eventId, occurredAt });

  async function state(storyId: string): Promise<{ published: boolean; deleted: boolean } | undefined> {
    const { rows } = await h.pool.query<{ published: boolean; deleted: boolean }>('SELECT published, deleted FROM known_stories WHERE id = $1', [storyId]);
    return rows[0];
  }

  it('lets a post link a story once its StoryUpdated says published, and not after it is deleted', async () => {
    const t0 = Date.now();
    await send(storyEvent('storyCreated', '9001', false), '9001', new Date(t0));
    await eventually(async () => (await state('9001')) !== undefined, { timeoutMs: 20_000, what: 'the consumer' });
    await expect(h.client.createBlogPost({ title: 't', content: 'c', storyIds: ['9001'] }, user('1'))).rejects.toMatchObject({ details: [{ pointer: '/data/relationships/stories' }] });

    await send(storyEvent('storyUpdated', '9001', true), '9001', new Date(t0 + 1));
    await eventually(async () => (await state('9001'))?.published === true, { timeoutMs: 20_000, what: 'the consumer' });
    const { blogPost } = await h.client.createBlogPost({ title: 't', content: 'c', storyIds: ['9001'] }, user('1'));
    expect(blogPost?.storyIds).toEqual(['9001']);

    await send(storyEvent('storyDeleted', '9001', true), '9001', new Date(t0 + 2));
    await eventually(async () => (await state('9001'))?.deleted === true, { timeoutMs: 20_000, what: 'the consumer' });
    expect((await h.client.getBlogPost({ id: blogPost!.id }, user('2'))).blogPost?.storyIds).toEqual([]);
  });

  it('ignores changes older than the one recorded, anything after deletion, and redeliveries', async () => {
    const t0 = Date.now();
    await send(storyEvent('storyCreated', '9002', false), '9002', new Date(t0));
    await send(storyEvent('storyUpdated', '9002', true), '9002', new Date(t0 + 10));
    // A stale update (older occurred_at) arriving late must not unpublish it.
    await send(storyEvent('storyUpdated', '9002', false), '9002', new Date(t0 + 5));
    const marker = await send(storyEvent('storyCreated', '9003', true), '9003', new Date(t0));
    await eventually(async () => (await state('9003')) !== undefined, { timeoutMs: 20_000, what: 'the consumer' });
    expect(await state('9002')).toEqual({ published: true, deleted: false });

    await send(storyEvent('storyDeleted', '9003', true), '9003', new Date(t0 + 20));
    await send(storyEvent('storyUpdated', '9003', true), '9003', new Date(t0 + 30));
    // Redelivering the first event (same id) changes nothing either.
    await send(storyEvent('storyCreated', '9003', true), '9003', new Date(t0 + 40), marker);
    await send(storyEvent('storyCreated', '9004', true), '9004', new Date(t0));
    await eventually(async () => (await state('9004')) !== undefined, { timeoutMs: 20_000, what: 'the consumer' });
    expect(await state('9003')).toEqual({ published: false, deleted: true });
  });
});
